// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A unit with a '/' needs its denominator.
fabric f {
  intra_node_bw = 900 GB/;
// CHECK: {{.*}}unit-without-denominator.plx:[[@LINE-1]]:26: error: expected a unit, got ';'
// CHECK-NEXT: {{^}}  intra_node_bw = 900 GB/;
// CHECK-NEXT: {{^}}                         ^
}
// CHECK-NEXT: {{^}}1 error generated.
