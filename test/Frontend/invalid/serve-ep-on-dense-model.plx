// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A dense model has no experts to spread.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
workload w {
  synthetic = swe_bench;
}
serve s {
  model = m;
  workload = w;
  fabric = f;
  strategy {
    ep = 2;
// CHECK: {{.*}}serve-ep-on-dense-model.plx:[[@LINE-1]]:10: error: ep (2) must be 1 for a dense model (experts = 0): there are no experts to spread
// CHECK-NEXT: {{^}}    ep = 2;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}serve-ep-on-dense-model.plx:[[@LINE-28]]:7: note: model 'm' is declared here
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
