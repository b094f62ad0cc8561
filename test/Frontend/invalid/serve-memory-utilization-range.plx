// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// memory_utilization is a fraction of the HBM.
model moe {
  layers = 8;
  hidden = 2048;
  heads = 16;
  vocab = 32000;
  experts = 12;
  top_k = 2;
  moe_ffn = 1024;
}
workload w {
  synthetic = swe_bench;
}
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
serve s {
  model = moe;
  workload = w;
  fabric = f;
  strategy {
    ep = 4;
    memory_utilization = 1.5;
// CHECK: {{.*}}serve-memory-utilization-range.plx:[[@LINE-1]]:26: error: field 'memory_utilization' must be at most 1, got 1.5
// CHECK-NEXT: {{^}}    memory_utilization = 1.5;
// CHECK-NEXT: {{^}}                         ^~~
  }
}
// CHECK-NEXT: {{^}}1 error generated.
