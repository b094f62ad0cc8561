// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// One missing field keeps its hint.
fabric f {
// CHECK: {{.*}}missing-required-field-hint.plx:[[@LINE-1]]:8: error: fabric 'f' is missing required field 'topology' (one of 'railx', 'fat_tree', 'rail_optimized', 'torus')
// CHECK-NEXT: {{^}}fabric f {
// CHECK-NEXT: {{^}}       ^
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
}
// CHECK-NEXT: {{^}}1 error generated.
