// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A torus has 2 or 3 dimensions.
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = torus { dims = [4]; link = 400 Gb/s; };
// CHECK: {{.*}}torus-dims-count.plx:[[@LINE-1]]:29: error: torus dims must list 2 or 3 extents, got 1
// CHECK-NEXT: {{^}}  topology = torus { dims = [4]; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                            ^~~
}
// CHECK-NEXT: {{^}}1 error generated.
