// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// The torus extents multiply to the node count.
fabric f {
  chip = H100;
  nodes = 16;
  chips_per_node = 8;
  topology = torus { dims = [4, 2, 3]; link = 400 Gb/s; };
// CHECK: {{.*}}torus-dims-mismatch.plx:[[@LINE-1]]:29: error: torus 4 x 2 x 3 = 24 nodes, but the fabric has 16 nodes
// CHECK-NEXT: {{^}}  topology = torus { dims = [4, 2, 3]; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                            ^~~~~~~~~
// CHECK-NEXT: {{.*}}torus-dims-mismatch.plx:[[@LINE-6]]:3: note: nodes is set here
// CHECK-NEXT: {{^}}  nodes = 16;
// CHECK-NEXT: {{^}}  ^~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
