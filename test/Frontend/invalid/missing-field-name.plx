// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A value without its field name is reported where it is, not after the
// line above.
model m {
  layers = 32;
  = 4096;
// CHECK: {{.*}}missing-field-name.plx:[[@LINE-1]]:3: error: expected '}' or a field name, got '='
// CHECK-NEXT: {{^}}  = 4096;
// CHECK-NEXT: {{^}}  ^
}
// CHECK-NEXT: {{^}}1 error generated.
