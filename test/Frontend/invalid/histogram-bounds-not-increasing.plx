// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Bin bounds are upper bounds, in increasing order.
dataset d {
  lengths = histogram(bounds = [2Ki, 8Ki, 4Ki], weights = [5, 3, 2]);
// CHECK: {{.*}}histogram-bounds-not-increasing.plx:[[@LINE-1]]:43: error: histogram bounds must increase: 4096 follows 8192
// CHECK-NEXT: {{^}}  lengths = histogram(bounds = [2Ki, 8Ki, 4Ki], weights = [5, 3, 2]);
// CHECK-NEXT: {{^}}                                          ^~~
}
// CHECK-NEXT: {{^}}1 error generated.
