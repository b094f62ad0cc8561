// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A RailX grid has one node per cell.
fabric f {
  chip = B200;
  nodes = 16;
  chips_per_node = 8;
  topology = railx {
    rows = 3;
// CHECK: {{.*}}railx-grid-mismatch.plx:[[@LINE-1]]:12: error: railx grid 3 x 4 = 12 nodes, but the fabric has 16 nodes
// CHECK-NEXT: {{^}}    rows = 3;
// CHECK-NEXT: {{^}}           ^
// CHECK-NEXT: {{.*}}railx-grid-mismatch.plx:[[@LINE-7]]:3: note: nodes is set here
// CHECK-NEXT: {{^}}  nodes = 16;
// CHECK-NEXT: {{^}}  ^~~~~
    cols = 4;
    rails = 16;
    link = 800 Gb/s;
  };
}
// CHECK-NEXT: {{^}}1 error generated.
