// RUN: plx-opt %s -split-input-file -plx-place -verify-diagnostics

plx.fabric @small chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 2 x 4 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 5.0e10> failed <chip(1, 3)>
// expected-error @below {{no placement on fabric 'small': job 'big' needs 8 chips; only 7 healthy chips are free}}
plan.job @big fabric @small ranks 8 {
  plan.comm_group @dp ring ranks [0, 1, 2, 3, 4, 5, 6, 7]
}

// -----

// A 2 x 5 grid with one rail: a row of 5 reaches only 3 nodes in one hop.
plx.fabric @grid chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 10 x 1 intra_node nvswitch 450000000000 topology #plx.railx<rows = 2, cols = 5, rails = 1, link_bandwidth = 1.0e11>
// expected-error @below {{no placement on fabric 'grid'}}
plan.job @ep fabric @grid ranks 6 {
  plan.comm_group @ep all_to_all ranks [0, 1, 2, 3, 4, 5]
}
