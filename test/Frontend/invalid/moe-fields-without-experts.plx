// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// MoE fields in a dense model: each is named.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  top_k = 2;
// CHECK: {{.*}}moe-fields-without-experts.plx:[[@LINE-1]]:11: error: top_k (2) needs a MoE model, but experts is 0
// CHECK-NEXT: {{^}}  top_k = 2;
// CHECK-NEXT: {{^}}          ^
  moe_ffn = 1408;
// CHECK-NEXT: {{.*}}moe-fields-without-experts.plx:[[@LINE-1]]:13: error: moe_ffn (1408) needs a MoE model, but experts is 0
// CHECK-NEXT: {{^}}  moe_ffn = 1408;
// CHECK-NEXT: {{^}}            ^~~~
}
// CHECK-NEXT: {{^}}2 errors generated.
