// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Imports come first.
model m {
  layers = 32;
}
import "other.plx";
// CHECK: {{.*}}import-after-declaration.plx:[[@LINE-1]]:1: error: imports must come before the first declaration
// CHECK-NEXT: {{^}}import "other.plx";
// CHECK-NEXT: {{^}}^~~~~~
// CHECK-NEXT: {{^}}1 error generated.
