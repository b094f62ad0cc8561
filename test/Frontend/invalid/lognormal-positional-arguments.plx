// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Arguments are named; one error for the call, not one per argument.
dataset d {
  lengths = lognormal(8, 1);
// CHECK: {{.*}}lognormal-positional-arguments.plx:[[@LINE-1]]:23: error: arguments of lognormal(...) are named: write lognormal(mu = ..., sigma = ...)
// CHECK-NEXT: {{^}}  lengths = lognormal(8, 1);
// CHECK-NEXT: {{^}}                      ^
}
// CHECK-NEXT: {{^}}1 error generated.
