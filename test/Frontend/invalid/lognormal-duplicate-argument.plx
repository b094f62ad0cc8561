// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// An argument given twice; the note points at the first.
dataset d {
  lengths = lognormal(mu = 8, sigma = 1, mu = 9);
// CHECK: {{.*}}lognormal-duplicate-argument.plx:[[@LINE-1]]:42: error: duplicate argument 'mu' of lognormal(...)
// CHECK-NEXT: {{^}}  lengths = lognormal(mu = 8, sigma = 1, mu = 9);
// CHECK-NEXT: {{^}}                                         ^~
// CHECK-NEXT: {{.*}}lognormal-duplicate-argument.plx:[[@LINE-4]]:23: note: first set here
// CHECK-NEXT: {{^}}  lengths = lognormal(mu = 8, sigma = 1, mu = 9);
// CHECK-NEXT: {{^}}                      ^~
}
// CHECK-NEXT: {{^}}1 error generated.
