// RUN: plx-opt %s -split-input-file -plx-simulate=job=j -verify-diagnostics

// expected-error @below {{plx-simulate: no plan.job named 'j'}}
module {
  rt.program @rank_0 rank 0 {
    rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
  }
}

// -----

plx.fabric @f chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 2 x 1 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e11>
// expected-error @below {{'plan.job' op has no chips: run plx-place first}}
plan.job @j fabric @f ranks 1 {
}
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}

// -----

plx.fabric @f chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 2 x 1 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e11>
// expected-error @below {{'plan.job' op has 2 ranks but the module has 1 rt programs}}
plan.job @j fabric @f ranks 2 chips [(0, 0), (1, 0)] {
}
rt.program @rank_0 rank 0 {
  rt.compute fwd layers [0, 2) stage 0 seqs [0] time 1.0
}
