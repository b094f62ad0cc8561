// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// One weight per bound.
dataset d {
  lengths = histogram(bounds = [2Ki, 8Ki, 32Ki], weights = [0.7, 0.3]);
// CHECK: {{.*}}histogram-count-mismatch.plx:[[@LINE-1]]:60: error: histogram has 3 bounds but 2 weights
// CHECK-NEXT: {{^}}  lengths = histogram(bounds = [2Ki, 8Ki, 32Ki], weights = [0.7, 0.3]);
// CHECK-NEXT: {{^}}                                                           ^~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
