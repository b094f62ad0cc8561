// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A missing ';' after a quantity with a unit names the whole quantity.
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  intra_node_bw = 900 GB/s
// CHECK: {{.*}}missing-semicolon-after-unit.plx:[[@LINE-1]]:27: error: expected ';' after '900 GB/s'
// CHECK-NEXT: {{^}}  intra_node_bw = 900 GB/s
// CHECK-NEXT: {{^}}                          ^
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
