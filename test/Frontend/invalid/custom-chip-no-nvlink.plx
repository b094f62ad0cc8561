// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Several chips per node need an intra-node bandwidth from somewhere.
fabric f {
  chip = custom { bf16 = 400 TFLOPS; hbm = 64 GiB; hbm_bw = 2 TB/s; };
// CHECK: {{.*}}custom-chip-no-nvlink.plx:[[@LINE-1]]:10: error: chip 'custom' has no NVLink figure, but there are 4 chips per node: set 'intra_node_bw' in the fabric or 'nvlink' in the chip
// CHECK-NEXT: {{^}}  chip = custom { bf16 = 400 TFLOPS; hbm = 64 GiB; hbm_bw = 2 TB/s; };
// CHECK-NEXT: {{^}}         ^~~~~~
  nodes = 2;
  chips_per_node = 4;
  topology = fat_tree { radix = 4; tiers = 2; link = 100 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
