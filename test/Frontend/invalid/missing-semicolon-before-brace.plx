// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// The last field of a block still needs its ';'.
model m {
  layers = 32;
  dtype = bf16
// CHECK: {{.*}}missing-semicolon-before-brace.plx:[[@LINE-1]]:15: error: expected ';' after 'bf16'
// CHECK-NEXT: {{^}}  dtype = bf16
// CHECK-NEXT: {{^}}              ^
}
// CHECK-NEXT: {{^}}1 error generated.
