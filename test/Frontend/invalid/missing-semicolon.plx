// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A missing ';' at the end of a line: the next line's name would read as
// the unit of 32, so the error must point after the number, not at '='.
model m {
  layers = 32
// CHECK: {{.*}}missing-semicolon.plx:[[@LINE-1]]:14: error: expected ';' after '32'
// CHECK-NEXT: {{^}}  layers = 32
// CHECK-NEXT: {{^}}             ^
  hidden = 4096;
}
// CHECK-NEXT: {{^}}1 error generated.
