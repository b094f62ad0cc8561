// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A character that is no part of the language.
model m {
  layers = 32 @;
// CHECK: {{.*}}stray-character.plx:[[@LINE-1]]:15: error: unexpected character '@'
// CHECK-NEXT: {{^}}  layers = 32 @;
// CHECK-NEXT: {{^}}              ^
}
// CHECK-NEXT: {{^}}1 error generated.
