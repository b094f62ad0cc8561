// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A dataset without its length distribution.
dataset d {
// CHECK: {{.*}}dataset-missing-lengths.plx:[[@LINE-1]]:9: error: dataset 'd' is missing required field 'lengths' (file("..."), lognormal(mu = ..., sigma = ...) or histogram(bounds = [...], weights = [...]))
// CHECK-NEXT: {{^}}dataset d {
// CHECK-NEXT: {{^}}        ^
  clamp = 4Ki;
}
// CHECK-NEXT: {{^}}1 error generated.
