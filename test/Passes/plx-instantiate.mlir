// RUN: plx-opt %s -split-input-file -plx-instantiate | FileCheck %s
// RUN: plx-opt %s -split-input-file -plx-instantiate -plx-place | FileCheck %s --check-prefix=PLACED

plx.model @m <layers = 4, hidden = 256, heads = 8, kv_heads = 8, head_dim = 32, ffn = 1024, vocab = 100>
plx.dataset @d #plx.lognormal<mu = 7.0, sigma = 1.0> clamp 0 padding 1 overlong drop
plx.fabric @f chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 4 x 4 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 8, tiers = 2, link_bandwidth = 5.0e10>

// 8 ranks: sp 2 x pp 2 x dp 2; rank = ((d * 2 + p) * 2 + s): each replica
// (d) holds 4 consecutive ranks.
plx.train @t model @m data @d fabric @f chips 8 batch 8 steps 1 seed 0 strategy <sp_degree = 2, pp_degree = 2>

// CHECK-LABEL: plan.job @t_job fabric @f ranks 8 {
// CHECK-NEXT:    plan.comm_group @sp0 all_to_all ranks [0, 1]
// CHECK-NEXT:    plan.comm_group @sp1 all_to_all ranks [2, 3]
// CHECK-NEXT:    plan.comm_group @sp2 all_to_all ranks [4, 5]
// CHECK-NEXT:    plan.comm_group @sp3 all_to_all ranks [6, 7]
// CHECK-NEXT:    plan.comm_group @dp0 ring ranks [0, 4]
// CHECK:         plan.comm_group @pp0 pipeline ranks [0, 2]
// CHECK:         plan.comm_group @pp3 pipeline ranks [5, 7]
// CHECK-NEXT:  }

// PLACED: plan.job @t_job fabric @f ranks 8 chips [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)]
// PLACED-NEXT: plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0

// -----

// A serving job of 2 instances of PP2 x EP2 on its whole fabric.
plx.model @moe <layers = 4, hidden = 256, heads = 4, kv_heads = 4, head_dim = 64, ffn = 1024, vocab = 100, experts = 4, top_k = 2, moe_ffn = 128>
plx.workload @w #plx.trajectories<"t.jsonl", tasks = 3, concurrency = 1>
plx.fabric @f chip <name = "H100", bf16_flops = 9.89e14, fp8_flops = 1.979e15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e12, nvlink_bandwidth = 9.0e11, sm_count = 132> nodes 2 x 4 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 8, tiers = 2, link_bandwidth = 5.0e10>
plx.serve @s model @moe workload @w fabric @f seed 0 strategy <pp = 2, ep = 2>

// CHECK-LABEL: plan.job @s_job fabric @f ranks 8 {
// CHECK-NEXT:    plan.comm_group @ep0 all_to_all ranks [0, 1]
// CHECK:         plan.comm_group @ep3 all_to_all ranks [6, 7]
// CHECK-NEXT:    plan.comm_group @pp0 pipeline ranks [0, 2]
// CHECK:         plan.comm_group @pp3 pipeline ranks [5, 7]
