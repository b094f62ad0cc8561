// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt topology.
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fattree { radix = 8; tiers = 2; link = 400 Gb/s; };
// CHECK: {{.*}}unknown-topology.plx:[[@LINE-1]]:14: error: field 'topology' expects one of 'railx', 'fat_tree', 'rail_optimized', 'torus' with a { ... } block, got 'fattree { ... }'; did you mean 'fat_tree'?
// CHECK-NEXT: {{^}}  topology = fattree { radix = 8; tiers = 2; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}             ^~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
