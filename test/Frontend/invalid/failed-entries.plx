// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// Failed chips, links and OCS ports are checked against the fabric's size,
// in source order.
fabric rx {
  chip = H100;
  nodes = 9;
  chips_per_node = 8;
  topology = railx { rows = 3; cols = 3; rails = 1; link = 800 Gb/s; };
  failed = [chip(9, 1), link(4, 4), port(row, 3, 0, 2), port(col, 0, 1, 1), chip(0, 8), chip(1, 1), chip(1, 1)];
// CHECK: {{.*}}failed-entries.plx:[[@LINE-1]]:13: error: failed chip: node 9 is outside [0, 9)
// CHECK: {{.*}}failed-entries.plx:[[@LINE-2]]:25: error: failed link: a link joins two different nodes, got 4 twice
// CHECK: {{.*}}failed-entries.plx:[[@LINE-3]]:37: error: failed port: row 3 is outside [0, 3)
// CHECK: {{.*}}failed-entries.plx:[[@LINE-4]]:57: error: failed port: rail 1 is outside [0, 1)
// CHECK: {{.*}}failed-entries.plx:[[@LINE-5]]:77: error: failed chip: chip index 8 is outside [0, 8) of a node
// CHECK: {{.*}}failed-entries.plx:[[@LINE-6]]:101: error: chip(1, 1) is listed twice
// CHECK: 6 errors generated.
}

// RUN: printf 'fabric f {\n  chip = H100; nodes = 2; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n  failed = [port(row, 0, 0, 0), disk(3), link(0, 1, 2), chip];\n}\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: {{.*}}.plx:4:33: error: a failed entry is chip(node, index), link(node, node) or port(row|col, index, rail, position), got 'disk(...)'
// SHAPE: {{.*}}.plx:4:42: error: link(...) takes 2 arguments, got 3
// SHAPE: {{.*}}.plx:4:57: error: a failed entry is chip(node, index), link(node, node) or port(row|col, index, rail, position), got 'chip'
// SHAPE: 3 errors generated.

// Ports exist only on railx fabrics.
// RUN: printf 'fabric f {\n  chip = H100; nodes = 2; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n  failed = [port(row, 0, 0, 0)];\n}\n' > %t2.plx
// RUN: not plxc %t2.plx 2>&1 | FileCheck %s --check-prefix=RAILX
// RAILX: {{.*}}.plx:4:13: error: failed OCS ports exist only on railx fabrics; this one is fat_tree
