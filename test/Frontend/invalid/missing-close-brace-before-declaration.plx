// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A block left open runs into the next declaration.
model m {
  layers = 32;

dataset d {
// CHECK: {{.*}}missing-close-brace-before-declaration.plx:[[@LINE-1]]:1: error: expected '}' before 'dataset'
// CHECK-NEXT: {{^}}dataset d {
// CHECK-NEXT: {{^}}^~~~~~~
// CHECK-NEXT: {{.*}}missing-close-brace-before-declaration.plx:[[@LINE-7]]:9: note: to match this '{'
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}        ^
  lengths = lognormal(mu = 8, sigma = 1);
}
// CHECK-NEXT: {{^}}1 error generated.
