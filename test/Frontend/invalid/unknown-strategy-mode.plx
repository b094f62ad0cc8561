// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt mode.
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
train t {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    sp = adaptiv;
// CHECK: {{.*}}unknown-strategy-mode.plx:[[@LINE-1]]:10: error: field 'sp' expects a degree or one of 'adaptive', 'best_homogeneous', got 'adaptiv'; did you mean 'adaptive'?
// CHECK-NEXT: {{^}}    sp = adaptiv;
// CHECK-NEXT: {{^}}         ^~~~~~~
  }
}
// CHECK-NEXT: {{^}}1 error generated.
