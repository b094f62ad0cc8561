// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Every declaration is named.
model {
// CHECK: {{.*}}declaration-without-name.plx:[[@LINE-1]]:7: error: expected a name, got '{'
// CHECK-NEXT: {{^}}model {
// CHECK-NEXT: {{^}}      ^
  layers = 32;
}
// CHECK-NEXT: {{^}}1 error generated.
