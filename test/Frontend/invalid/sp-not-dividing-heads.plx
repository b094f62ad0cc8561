// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Ulysses splits heads: sp must divide them (one error for the value,
// though 5 does not divide the 32 chips either).
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
    sp = 5;
// CHECK: {{.*}}sp-not-dividing-heads.plx:[[@LINE-1]]:10: error: sp (5) must divide heads (32): Ulysses gives each rank heads / sp attention heads
// CHECK-NEXT: {{^}}    sp = 5;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}sp-not-dividing-heads.plx:[[@LINE-26]]:7: note: model 'm' is declared here
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
