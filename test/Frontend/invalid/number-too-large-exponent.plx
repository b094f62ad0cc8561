// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// 1e400 is not even a double.
train t {
  model = m;
  data = d;
  fabric = f;
  batch = 8;
  seed = 1e400;
// CHECK: {{.*}}number-too-large-exponent.plx:[[@LINE-1]]:10: error: field 'seed' must be at most 9223372036854775807, got 1e400
// CHECK-NEXT: {{^}}  seed = 1e400;
// CHECK-NEXT: {{^}}         ^~~~~
}
model m {
  layers = 2;
  hidden = 64;
  heads = 2;
  ffn = 128;
  vocab = 100;
}
dataset d {
  lengths = lognormal(mu = 5, sigma = 1);
}
fabric f {
  chip = CPU;
  nodes = 1;
  chips_per_node = 1;
  topology = fat_tree { radix = 4; tiers = 2; link = 10 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
