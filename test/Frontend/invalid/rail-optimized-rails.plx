// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// One rail per chip of a node; the note points at chips_per_node.
fabric f {
  chip = H800;
  nodes = 8;
  chips_per_node = 8;
  topology = rail_optimized { rails = 4; radix = 64; link = 400 Gb/s; };
// CHECK: {{.*}}rail-optimized-rails.plx:[[@LINE-1]]:39: error: rail_optimized rails must equal the chips per node (8), got 4
// CHECK-NEXT: {{^}}  topology = rail_optimized { rails = 4; radix = 64; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                                      ^
// CHECK-NEXT: {{.*}}rail-optimized-rails.plx:[[@LINE-5]]:3: note: chips_per_node is set here
// CHECK-NEXT: {{^}}  chips_per_node = 8;
// CHECK-NEXT: {{^}}  ^~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
