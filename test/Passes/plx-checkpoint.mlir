// plx-checkpoint alone, with IR as its input: the planned step of
// Inputs/dpp-8.plx (plx-instantiate, plx-place, plx-dynamic-pp), as plx-opt
// prints it.

// plx-checkpoint plans the checkpointing of every pipeline of a pipelined
// step again, keeping its chunks and their order (the job of
// test/Passes/plx-dynamic-pp.mlir: 2 stages of 2 layers, 15 chunks).
// Full checkpointing recomputes both layers of every chunk on both stages,
// takes longer and needs less memory than the adaptive plan (the input's,
// which plx-dynamic-pp.mlir checks live: time 0.006646... s, peak 1898... bytes).
// RUN: plx-opt %s -plx-checkpoint=strategy=full | FileCheck %s --check-prefix=FULL
// FULL:      plan.step @dpp_step0 index 0 world 8 time 0.007014{{[0-9]*}} peak_mem 1577{{[0-9]+}}
// FULL:        plan.chunk 14 packed
// FULL-NEXT:   plan.remat stage 0 layers [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]
// FULL-NEXT:   plan.remat stage 1 layers [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]

// Adaptive again solves the checkpointing ILP within its 2 % gap. It need
// not give the planner's layers back (the planner keeps the search's
// solution refined by branch and bound, and another near-optimal one can
// come out here); on this plan it does, to the planner's 6.65 ms.
// RUN: plx-opt %s -plx-checkpoint | FileCheck %s --check-prefix=SAME
// SAME: plan.step @dpp_step0 index 0 world 8 time 0.006646{{[0-9]*}}
// SAME: plan.remat stage 0 layers [2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 0, 2, 0]
// SAME: plan.remat stage 1 layers [2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 0, 0, 2, 0]

// One uniform count: the least that fits everywhere, or the one given.
// RUN: plx-opt %s -plx-checkpoint='strategy=uniform layers=2' | FileCheck %s --check-prefix=UNIFORM
// UNIFORM: plan.remat stage 0 layers [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2]

// Without checkpointing the chunks do not fit: the error names the stage,
// the chunks and the memory.
// RUN: not plx-opt %s -plx-checkpoint=strategy=none 2>&1 | FileCheck %s --check-prefix=NONE
// NONE: error: 'plan.step' op cannot plan its checkpointing: pipeline 0: stage 0 holds chunks {0, 1, 2, 3, 4, 5, 6, 7} at once: {{.*}} MB of activations without checkpointing, but only {{.*}} MB are free beside the model states

// Bad options.
// RUN: not plx-opt %s -plx-checkpoint=strategy=most 2>&1 | FileCheck %s --check-prefix=STRATEGY
// STRATEGY: for the --strategy option: Cannot find option named 'most'!
// RUN: not plx-opt %s -plx-checkpoint=gap=1.5 2>&1 | FileCheck %s --check-prefix=GAP
// GAP: error: plx-checkpoint: gap must lie in [0, 1)

module {
  plx.model @small <layers = 4, hidden = 512, heads = 8, kv_heads = 8, head_dim = 64, ffn = 2048, vocab = 1000>
  plx.dataset @mixed #plx.histogram<bounds = [511, 512, 16383, 16384], weights = [0.0, 6.0, 0.0, 1.0]> clamp 16384 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 4 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @dpp model @small data @mixed fabric @pair batch 16 steps 1 seed 5 strategy <sp_degree = 4, pp = dynamic, pp_degree = 0, checkpoint = adaptive, memory_limit = 201326592>
  plan.job @dpp_job fabric @pair ranks 8 chips [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1, 2, 3] order [0, 1, 2, 3] hops 0
    plan.comm_group @sp1 all_to_all ranks [4, 5, 6, 7] order [4, 5, 6, 7] hops 0
    plan.comm_group @dp0 ring ranks [0, 4] order [0, 4] hops 4
    plan.comm_group @dp1 ring ranks [1, 5] order [1, 5] hops 4
    plan.comm_group @dp2 ring ranks [2, 6] order [2, 6] hops 4
    plan.comm_group @dp3 ring ranks [3, 7] order [3, 7] hops 4
  }
  plan.step @dpp_step0 index 0 world 8 time 0.0066468081747878644 peak_mem 189810688 job @dpp strategy "dpp" lengths [512, 512, 512, 512, 512, 512, 16384, 512, 512, 512, 512, 512, 512, 16384, 512, 512] bubble 0.09815213741416662 {
    plan.pipeline 0 stages 2 sp 4 nsplit 7 time 0.0066468081747878644 bubble 0.09815213741416662 backward [6, 5, 4, 3, 2, 1, 0, 13, 12, 11, 10, 9, 8, 7, 14] {
      plan.chunk 0 split slices [6:0-4124] time 0.000324921287761229 mem 48564224
      plan.chunk 1 split slices [6:4124-6996] time 0.00031582015297855416 mem 33820672
      plan.chunk 2 split slices [6:6996-9340] time 0.0003136668971759493 mem 27602944
      plan.chunk 3 split slices [6:9340-11372] time 0.00029512438876798765 mem 23928832
      plan.chunk 4 split slices [6:11372-13188] time 0.0002995234068845281 mem 21385216
      plan.chunk 5 split slices [6:13188-14848] time 0.00030326425654112605 mem 19548160
      plan.chunk 6 hybrid slices [6:14848-16384, 0:0-512, 2:0-512, 4:0-512, 7:0-512, 9:0-512] time 0.00041348552257398154 mem 45613056
      plan.chunk 7 split slices [13:0-4124] time 0.000324921287761229 mem 48564224
      plan.chunk 8 split slices [13:4124-6996] time 0.00031582015297855416 mem 33820672
      plan.chunk 9 split slices [13:6996-9340] time 0.0003136668971759493 mem 27602944
      plan.chunk 10 split slices [13:9340-11372] time 0.00029512438876798765 mem 23928832
      plan.chunk 11 split slices [13:11372-13188] time 0.0002995234068845281 mem 21385216
      plan.chunk 12 split slices [13:13188-14848] time 0.00030326425654112605 mem 19548160
      plan.chunk 13 hybrid slices [13:14848-16384, 1:0-512, 3:0-512, 5:0-512, 8:0-512, 10:0-512] time 0.00041348552257398154 mem 45613056
      plan.chunk 14 packed slices [11:0-512, 12:0-512, 14:0-512, 15:0-512] time 0.00014102732031099697 mem 22020096
      plan.remat stage 0 layers [2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 0, 2, 0]
      plan.remat stage 1 layers [2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 0, 0, 2, 0]
    }
  }
}

