// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
fabric f {
  chip = H100;
  nodes = 2;
  chips_per_node = 8;
  intra_node_bw = 0 GB/s;
// CHECK: {{.*}}intra-node-bw-zero.plx:[[@LINE-1]]:19: error: field 'intra_node_bw' must be positive with 8 chips per node
// CHECK-NEXT: {{^}}  intra_node_bw = 0 GB/s;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
