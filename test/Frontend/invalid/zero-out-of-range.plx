// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// ZeRO has stages 0 to 3.
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
    zero = 4;
// CHECK: {{.*}}zero-out-of-range.plx:[[@LINE-1]]:12: error: field 'zero' must be at most 3, got 4
// CHECK-NEXT: {{^}}    zero = 4;
// CHECK-NEXT: {{^}}           ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
