// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A token cannot be routed to more experts than there are.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  vocab = 32000;
  experts = 8;
  top_k = 9;
// CHECK: {{.*}}top-k-exceeds-experts.plx:[[@LINE-1]]:11: error: top_k (9) must be between 1 and experts (8)
// CHECK-NEXT: {{^}}  top_k = 9;
// CHECK-NEXT: {{^}}          ^
  moe_ffn = 1408;
}
// CHECK-NEXT: {{^}}1 error generated.
