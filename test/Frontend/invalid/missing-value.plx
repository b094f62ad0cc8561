// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A field without a value.
model m {
  layers = ;
// CHECK: {{.*}}missing-value.plx:[[@LINE-1]]:12: error: expected a value, got ';'
// CHECK-NEXT: {{^}}  layers = ;
// CHECK-NEXT: {{^}}           ^
  hidden = 4096;
}
// CHECK-NEXT: {{^}}1 error generated.
