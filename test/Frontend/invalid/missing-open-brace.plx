// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A declaration's body starts with '{'.
model m
// CHECK: {{.*}}missing-open-brace.plx:[[@LINE-1]]:8: error: expected '{' after 'm'
// CHECK-NEXT: {{^}}model m
// CHECK-NEXT: {{^}}       ^
  layers = 32;
}
// CHECK-NEXT: {{^}}1 error generated.
