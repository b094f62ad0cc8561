// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// Bounds are shown in a unit the user would write, not in base units.
fabric f {
  chip = custom { bf16 = 100 TFLOPS; hbm = 512 KiB; hbm_bw = 1 TB/s; };
// CHECK: {{.*}}range-bound-with-unit.plx:[[@LINE-1]]:44: error: field 'hbm' must be at least 1 MiB, got 512 KiB
  nodes = 1;
  chips_per_node = 1;
  topology = fat_tree { radix = 4; tiers = 2; link = 1 Kb/s; };
// CHECK: {{.*}}range-bound-with-unit.plx:[[@LINE-1]]:54: error: field 'link' must be at least 1 KB/s, got 1 Kb/s
}
