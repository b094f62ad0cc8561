// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Half a node.
fabric f {
  chip = H100;
  nodes = 1.5;
// CHECK: {{.*}}non-whole-number.plx:[[@LINE-1]]:11: error: field 'nodes' must be a whole number, got 1.5
// CHECK-NEXT: {{^}}  nodes = 1.5;
// CHECK-NEXT: {{^}}          ^~~
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
