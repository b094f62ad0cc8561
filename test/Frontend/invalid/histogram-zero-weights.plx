// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Weights that sum to zero describe no data.
dataset d {
  lengths = histogram(bounds = [2Ki, 8Ki], weights = [0, 0]);
// CHECK: {{.*}}histogram-zero-weights.plx:[[@LINE-1]]:54: error: histogram weights sum to zero
// CHECK-NEXT: {{^}}  lengths = histogram(bounds = [2Ki, 8Ki], weights = [0, 0]);
// CHECK-NEXT: {{^}}                                                     ^~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
