// RUN: plxc %s --emit=spec 2>&1 | FileCheck %s
// Units convert to base units: bits per second are divided by 8, IEC
// prefixes are powers of 2, SI prefixes powers of 10, and a count may carry
// a prefix alone.
// CHECK-NOT: error
fabric f {
  chip = custom {
    bf16 = 1.5 PFLOPS;
    fp8 = 3000 TFLOP/s;
    hbm = 80 GiB;
    hbm_bw = 3.35 TB/s;
  };
  nodes = 2;
  chips_per_node = 4;
  intra_node_bw = 900 GB/s;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK: plx.fabric @f chip <name = "custom", bf16_flops = 1.5{{0*}}e+15, fp8_flops = 3.0{{0*}}e+15, hbm_bytes = 85899345920, hbm_bandwidth = 3.35{{0*}}e+12, nvlink_bandwidth = 0.0> nodes 2 x 4 intra_node nvswitch 900000000000 topology #plx.fat_tree<radix = 8, tiers = 2, link_bandwidth = 5.0{{0*}}e+10>

dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
  clamp = 384Ki;
  padding = 1_024;
}
// CHECK: plx.dataset @d {{.*}} clamp 393216 padding 1024
