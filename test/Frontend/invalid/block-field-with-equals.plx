// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A block field takes no '='.
train t {
  strategy = {
// CHECK: {{.*}}block-field-with-equals.plx:[[@LINE-1]]:14: error: expected a value, got '{'; a block field is written 'key { ... }', without '='
// CHECK-NEXT: {{^}}  strategy = {
// CHECK-NEXT: {{^}}             ^
    sp = 8;
  }
}
// CHECK-NEXT: {{^}}1 error generated.
