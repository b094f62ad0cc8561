// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// One '}' too many at the top level.
model m {
  layers = 32;
}
}
// CHECK: {{.*}}unmatched-close-brace.plx:[[@LINE-1]]:1: error: unmatched '}'
// CHECK-NEXT: {{^}}}
// CHECK-NEXT: {{^}}^
// CHECK-NEXT: {{^}}1 error generated.
