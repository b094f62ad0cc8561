// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Adaptive checkpointing is stage-aware: it needs pp = dynamic.
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
    pp = 2;
    checkpoint = adaptive;
// CHECK: {{.*}}checkpoint-adaptive-without-dynamic-pp.plx:[[@LINE-1]]:18: error: conflicting fields: checkpoint = adaptive is stage-aware and needs pp = dynamic
// CHECK-NEXT: {{^}}    checkpoint = adaptive;
// CHECK-NEXT: {{^}}                 ^~~~~~~~
// CHECK-NEXT: {{.*}}checkpoint-adaptive-without-dynamic-pp.plx:[[@LINE-5]]:10: note: pp is set here
// CHECK-NEXT: {{^}}    pp = 2;
// CHECK-NEXT: {{^}}         ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
