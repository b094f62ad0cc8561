// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Expert parallelism spreads 12 experts: ep = 8 does not divide them.
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
    ep = 8;
// CHECK: {{.*}}serve-ep-not-dividing-experts.plx:[[@LINE-1]]:10: error: ep (8) must divide experts (12)
// CHECK-NEXT: {{^}}    ep = 8;
// CHECK-NEXT: {{^}}         ^
// CHECK-NEXT: {{.*}}serve-ep-not-dividing-experts.plx:[[@LINE-27]]:7: note: model 'moe' is declared here
// CHECK-NEXT: {{^}}model moe {
// CHECK-NEXT: {{^}}      ^~~
  }
}
// CHECK-NEXT: {{^}}1 error generated.
