// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// experts without top_k and moe_ffn: they are missing, not "0".
model m {
// CHECK: {{.*}}moe-missing-widths.plx:[[@LINE-1]]:7: error: model 'm' is missing required fields 'top_k' and 'moe_ffn'
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  layers = 32;
  hidden = 4096;
  heads = 32;
  vocab = 32000;
  experts = 64;
}
// CHECK-NEXT: {{^}}1 error generated.
