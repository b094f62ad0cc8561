// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A custom chip needs its compute, memory and memory bandwidth.
fabric f {
  chip = custom { bf16 = 400 TFLOPS; };
// CHECK: {{.*}}custom-chip-missing-figures.plx:[[@LINE-1]]:10: error: chip 'custom' is missing required fields 'hbm' and 'hbm_bw'
// CHECK-NEXT: {{^}}  chip = custom { bf16 = 400 TFLOPS; };
// CHECK-NEXT: {{^}}         ^~~~~~
  nodes = 1;
  chips_per_node = 1;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
