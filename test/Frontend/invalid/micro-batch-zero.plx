// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A micro-batch holds at least one sequence.
model m { layers = 2; hidden = 64; heads = 2; ffn = 256; vocab = 100; }
dataset d { lengths = lognormal(mu = 5, sigma = 1); }
fabric f { chip = H100; nodes = 1; chips_per_node = 2; topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; }; }
train t {
  model = m; data = d; fabric = f; batch = 4;
  strategy { micro_batch = 0; }
// CHECK: {{.*}}micro-batch-zero.plx:[[@LINE-1]]:28: error: field 'micro_batch' must be at least 1, got 0
// CHECK-NEXT: {{^}}  strategy { micro_batch = 0; }
// CHECK-NEXT: {{^}}                           ^
}
// CHECK-NEXT: {{^}}1 error generated.
