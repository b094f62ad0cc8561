// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A bare number where a unit is needed: 900 what?
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  intra_node_bw = 900;
// CHECK: {{.*}}bare-number-needs-unit.plx:[[@LINE-1]]:19: error: field 'intra_node_bw' needs a unit: a bandwidth (e.g. 900 GB/s or 400 Gb/s), got '900'
// CHECK-NEXT: {{^}}  intra_node_bw = 900;
// CHECK-NEXT: {{^}}                  ^~~
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
