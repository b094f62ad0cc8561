// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// What is "overlong" without a clamp?
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
  overlong = truncate;
// CHECK: {{.*}}overlong-without-clamp.plx:[[@LINE-1]]:3: error: field 'overlong' needs a 'clamp' to apply to
// CHECK-NEXT: {{^}}  overlong = truncate;
// CHECK-NEXT: {{^}}  ^~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
