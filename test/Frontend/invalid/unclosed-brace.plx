// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// End of file inside a block: point at the end and at the '{'.
model m {
  layers = 32;
  hidden = 4096;
// CHECK: {{.*}}unclosed-brace.plx:[[@LINE-1]]:17: error: expected '}' at end of file
// CHECK-NEXT: {{^}}  hidden = 4096;
// CHECK-NEXT: {{^}}                ^
// CHECK-NEXT: {{.*}}unclosed-brace.plx:[[@LINE-6]]:9: note: to match this '{'
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}        ^
// CHECK-NEXT: {{^}}1 error generated.
