// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// What is "overlong" without a clamp?
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
  overlong = truncate;
// CHECK: {{.*}}overlong-without-clamp.plx:[[@LINE-1]]:3: error: field 'overlong' needs a positive 'clamp' to apply to
// CHECK-NEXT: {{^}}  overlong = truncate;
// CHECK-NEXT: {{^}}  ^~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.

// A clamp of 0 means "no limit", so it does not count either.
// RUN: printf 'dataset d {\n  lengths = lognormal(mu = 6.0, sigma = 1.0);\n  clamp = 0;\n  overlong = drop;\n}\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: {{.*}}.plx:4:3: error: field 'overlong' needs a positive 'clamp' to apply to
