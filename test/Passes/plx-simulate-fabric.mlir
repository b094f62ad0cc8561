// RUN: plx-opt %s -split-input-file -plx-place -plx-simulate='job=dp_job comm-efficiency=1' | FileCheck %s
// At the default 78 % of line rate, the bandwidth parts stretch by 1/0.78:
// RailX 8 ms / 0.78 + 42.4 us + 10 ms = 20.2988 ms.
// RUN: plx-opt %s -split-input-file -plx-place -plx-simulate=job=dp_job | FileCheck %s --check-prefix=EFF
// EFF: plx.sim.step_time = 0.02029881{{[0-9]*}}

// The same five programs (a 1 GB gradient all-reduce after 10 ms of
// compute) on RailX and on a fat-tree with the same 100 GB/s links.

// RailX, one row of 5 nodes with 2 rails (K_5 = two Hamiltonian rings): the
// ring all-reduce runs on both rails at once (passes/Fabric/CollectiveModel.h):
// 2 (p-1)/p S / (2 x 100 GB/s) = 8 ms, plus 8 ring steps of (5 us + 0.3 us
// optical hop) = 42.4 us; after 10 ms of compute: 18.0424 ms.
// CHECK: plx.sim.step_time = 1.80424{{[0-9]*}}e-02
plx.fabric @rx chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 5 x 1 intra_node nvswitch 450000000000 topology #plx.railx<rows = 1, cols = 5, rails = 2, link_bandwidth = 1.0e11>
plan.job @dp_job fabric @rx ranks 5 {
  plan.comm_group @dp ring ranks [0, 1, 2, 3, 4]
}
rt.group @"dp" dp [0, 1, 2, 3, 4]
rt.program @rank_0 rank 0 {
  rt.compute bwd layers [0, 4) stage 0 seqs [0] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_1 rank 1 {
  rt.compute bwd layers [0, 4) stage 0 seqs [1] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_2 rank 2 {
  rt.compute bwd layers [0, 4) stage 0 seqs [2] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_3 rank 3 {
  rt.compute bwd layers [0, 4) stage 0 seqs [3] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_4 rank 4 {
  rt.compute bwd layers [0, 4) stage 0 seqs [4] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}

// -----

// A 2-tier fat-tree: each node has one 100 GB/s link, so the ring takes
// 2 (p-1)/p S / 100 GB/s = 16 ms plus its latencies: twice RailX's
// transfer time.
// CHECK: plx.sim.step_time = 2.60{{[0-9]*}}e-02
plx.fabric @ft chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 5 x 1 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.0e11>
plan.job @dp_job fabric @ft ranks 5 {
  plan.comm_group @dp ring ranks [0, 1, 2, 3, 4]
}
rt.group @"dp" dp [0, 1, 2, 3, 4]
rt.program @rank_0 rank 0 {
  rt.compute bwd layers [0, 4) stage 0 seqs [0] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_1 rank 1 {
  rt.compute bwd layers [0, 4) stage 0 seqs [1] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_2 rank 2 {
  rt.compute bwd layers [0, 4) stage 0 seqs [2] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_3 rank 3 {
  rt.compute bwd layers [0, 4) stage 0 seqs [3] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
rt.program @rank_4 rank 4 {
  rt.compute bwd layers [0, 4) stage 0 seqs [4] time 0.01
  rt.all_reduce group dp @"dp" bytes 1000000000
}
