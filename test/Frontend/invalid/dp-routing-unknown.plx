// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// dp_routing is `pinned` or `kv_aware`; dp_attention `true`, `false` or
// `auto`.
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
    dp_attention = maybe;
// CHECK: {{.*}}dp-routing-unknown.plx:[[@LINE-1]]:20: error: field 'dp_attention' expects one of 'true', 'false', 'auto', got 'maybe'
// CHECK-NEXT: {{^}}    dp_attention = maybe;
// CHECK-NEXT: {{^}}                   ^
    dp_routing = kv;
// CHECK: {{.*}}dp-routing-unknown.plx:[[@LINE-1]]:18: error: field 'dp_routing' expects one of 'pinned', 'kv_aware', got 'kv'
// CHECK-NEXT: {{^}}    dp_routing = kv;
// CHECK-NEXT: {{^}}                 ^
  }
}
// CHECK: {{^}}2 errors generated.
