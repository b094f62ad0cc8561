// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt distribution.
dataset d {
  lengths = lognorm(mu = 8, sigma = 1);
// CHECK: {{.*}}unknown-distribution.plx:[[@LINE-1]]:13: error: field 'lengths' expects file("..."), lognormal(...) or histogram(...), got 'lognorm(...)'; did you mean 'lognormal'?
// CHECK-NEXT: {{^}}  lengths = lognorm(mu = 8, sigma = 1);
// CHECK-NEXT: {{^}}            ^~~~~~~~~~~~~~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
