// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt kind. The job naming the declaration gets no second error:
// its kind was the mistake.
modle m {
// CHECK: {{.*}}unknown-declaration-kind.plx:[[@LINE-1]]:1: error: unknown declaration kind 'modle'; did you mean 'model'? (expected one of 'model', 'dataset', 'workload', 'fabric', 'train', 'serve')
// CHECK-NEXT: {{^}}modle m {
// CHECK-NEXT: {{^}}^~~~~
  layers = 32;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train t {
  model = m;
  data = d;
  fabric = f;
  batch = 8;
}
// CHECK-NEXT: {{^}}1 error generated.
