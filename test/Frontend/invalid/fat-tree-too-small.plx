// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A 2-tier fat tree of radix 8 attaches 32 endpoints; 512 chips need more.
fabric f {
  chip = H100;
  nodes = 64;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
// CHECK: {{.*}}fat-tree-too-small.plx:[[@LINE-1]]:33: error: fat_tree with radix 8, 2 tiers and oversubscription 1 attaches at most 32 endpoints, but the fabric needs 512 (64 nodes x 8 chips)
// CHECK-NEXT: {{^}}  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                                ^
// CHECK-NEXT: {{.*}}fat-tree-too-small.plx:[[@LINE-6]]:3: note: nodes is set here
// CHECK-NEXT: {{^}}  nodes = 64;
// CHECK-NEXT: {{^}}  ^~~~~
// CHECK-NEXT: {{.*}}fat-tree-too-small.plx:[[@LINE-8]]:3: note: chips_per_node is set here
// CHECK-NEXT: {{^}}  chips_per_node = 8;
// CHECK-NEXT: {{^}}  ^~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
