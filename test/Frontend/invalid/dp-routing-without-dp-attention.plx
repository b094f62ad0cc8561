// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// KV-aware routing places turns on DP-attention ranks: TP attention has
// none.
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
    dp_routing = kv_aware;
// CHECK: {{.*}}dp-routing-without-dp-attention.plx:[[@LINE-1]]:18: error: dp_routing = kv_aware places turns on DP-attention ranks; it needs dp_attention = true or auto
// CHECK-NEXT: {{^}}    dp_routing = kv_aware;
// CHECK-NEXT: {{^}}                 ^
  }
}
// CHECK-NEXT: {{^}}1 error generated.
