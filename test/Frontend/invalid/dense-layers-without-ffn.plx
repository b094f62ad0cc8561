// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Dense layers in a MoE model need the dense width; the other shape rules
// are still checked.
model m {
// CHECK: {{.*}}dense-layers-without-ffn.plx:[[@LINE-1]]:7: error: model 'm' is missing required field 'ffn' (the dense MLP width, used by the first dense_layers = 1 layer)
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  layers = 4;
  dense_layers = 1;
  hidden = 4096;
  heads = 32;
  vocab = 32000;
  experts = 8;
  top_k = 10;
// CHECK-NEXT: {{.*}}dense-layers-without-ffn.plx:[[@LINE-1]]:11: error: top_k (10) must be between 1 and experts (8)
// CHECK-NEXT: {{^}}  top_k = 10;
// CHECK-NEXT: {{^}}          ^~
  moe_ffn = 1408;
}
// CHECK-NEXT: {{^}}2 errors generated.
