// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Both rules of the tree itself are reported.
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 7; tiers = 4; link = 400 Gb/s; };
// CHECK: {{.*}}fat-tree-bad-radix-and-tiers.plx:[[@LINE-1]]:33: error: fat_tree radix must be an even number >= 2, got 7
// CHECK-NEXT: {{^}}  topology = fat_tree { radix = 7; tiers = 4; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                                ^
// CHECK-NEXT: {{.*}}fat-tree-bad-radix-and-tiers.plx:[[@LINE-4]]:44: error: fat_tree tiers must be 2 or 3, got 4
// CHECK-NEXT: {{^}}  topology = fat_tree { radix = 7; tiers = 4; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                                           ^
}
// CHECK-NEXT: {{^}}2 errors generated.
