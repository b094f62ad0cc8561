// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Both parameters are needed.
dataset d {
  lengths = lognormal(mu = 8);
// CHECK: {{.*}}lognormal-missing-argument.plx:[[@LINE-1]]:13: error: lognormal(...) is missing argument 'sigma'
// CHECK-NEXT: {{^}}  lengths = lognormal(mu = 8);
// CHECK-NEXT: {{^}}            ^~~~~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
