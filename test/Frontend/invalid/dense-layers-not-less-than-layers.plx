// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A MoE model needs at least one MoE layer.
model m {
  layers = 4;
  dense_layers = 4;
// CHECK: {{.*}}dense-layers-not-less-than-layers.plx:[[@LINE-1]]:18: error: dense_layers (4) must be less than layers (4): a MoE model needs at least one MoE layer
// CHECK-NEXT: {{^}}  dense_layers = 4;
// CHECK-NEXT: {{^}}                 ^
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  experts = 8;
  top_k = 2;
  moe_ffn = 1408;
}
// CHECK-NEXT: {{^}}1 error generated.
