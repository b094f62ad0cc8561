// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Syntax errors in three declarations: each is reported, and nothing of
// what ANTLR's recovery leaves behind.
model m {
  layers = 32
// CHECK: {{.*}}several-errors-syntax.plx:[[@LINE-1]]:14: error: expected ';' after '32'
// CHECK-NEXT: {{^}}  layers = 32
// CHECK-NEXT: {{^}}             ^
  hidden = ;
  heads = 32;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1) @;
// CHECK-NEXT: {{.*}}several-errors-syntax.plx:[[@LINE-1]]:42: error: unexpected character '@'
// CHECK-NEXT: {{^}}  lengths = lognormal(mu = 8, sigma = 1) @;
// CHECK-NEXT: {{^}}                                         ^
}
fabric f {
  chip = H100
// CHECK-NEXT: {{.*}}several-errors-syntax.plx:[[@LINE-1]]:14: error: expected ';' after 'H100'
// CHECK-NEXT: {{^}}  chip = H100
// CHECK-NEXT: {{^}}             ^
}
// CHECK-NEXT: {{^}}3 errors generated.
