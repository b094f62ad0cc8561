// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// 'Gbps' is not a unit; 'Gb/s' is.
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gbps; };
// CHECK: {{.*}}unknown-unit.plx:[[@LINE-1]]:58: error: unknown unit 'Gbps'; did you mean 'Gb/s'?
// CHECK-NEXT: {{^}}  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gbps; };
// CHECK-NEXT: {{^}}                                                         ^~~~
}
// CHECK-NEXT: {{^}}1 error generated.
