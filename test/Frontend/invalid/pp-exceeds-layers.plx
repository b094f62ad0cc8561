// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Every stage needs a layer.
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
    pp = 64;
// CHECK: {{.*}}pp-exceeds-layers.plx:[[@LINE-1]]:10: error: pp (64) must not exceed layers (32): every pipeline stage needs at least one layer
// CHECK-NEXT: {{^}}    pp = 64;
// CHECK-NEXT: {{^}}         ^~
// CHECK-NEXT: {{.*}}pp-exceeds-layers.plx:[[@LINE-26]]:7: note: model 'm' is declared here
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
