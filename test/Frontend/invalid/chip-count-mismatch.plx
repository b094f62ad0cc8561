// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// chips must equal nodes x chips_per_node.
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  chips = 30;
// CHECK: {{.*}}chip-count-mismatch.plx:[[@LINE-1]]:11: error: chip count does not match: chips = 30 but nodes x chips_per_node = 4 x 8 = 32
// CHECK-NEXT: {{^}}  chips = 30;
// CHECK-NEXT: {{^}}          ^~
// CHECK-NEXT: {{.*}}chip-count-mismatch.plx:[[@LINE-6]]:3: note: nodes is set here
// CHECK-NEXT: {{^}}  nodes = 4;
// CHECK-NEXT: {{^}}  ^~~~~
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
