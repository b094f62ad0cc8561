// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A number where a chip name is expected.
fabric f {
  chip = 100;
// CHECK: {{.*}}wrong-value-kind-number-for-name.plx:[[@LINE-1]]:10: error: field 'chip' expects a catalog name (A100_40GB, A100_80GB, A800, H100, H800, H200, GH200, B200, CPU) or 'custom { ... }', got '100'
// CHECK-NEXT: {{^}}  chip = 100;
// CHECK-NEXT: {{^}}         ^~~
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
