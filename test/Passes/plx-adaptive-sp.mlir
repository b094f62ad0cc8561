// plx-adaptive-sp alone, with IR as its input: the placed job of
// Inputs/flexsp-16.plx (plx-instantiate, plx-place), as plx-opt prints it.
// plx-adaptive-sp.test keeps the runs that edit the spec or run more passes
// after it.

// plx-adaptive-sp plans each step with FlexSP's adaptive SP groups. 16 GPUs
// on 2 nodes, a 6 GB budget per chip: one node holds about 81K tokens, the
// cluster about 163K, so the batch's 96K-token sequence needs a group wider
// than a node while the 2K-token ones are cheapest in small groups.
// RUN: plx-opt %s -plx-adaptive-sp | FileCheck %s
// CHECK:      plan.step @flexsp_step0 index 0 world 16 {{.*}} job @flexsp strategy "flexsp" lengths [2048,
// The long sequence (id 63) alone on all 16 GPUs, crossing the node.
// CHECK-NEXT:   plan.microbatch 0 time {{.*}} {
// CHECK-NEXT:     plan.sp_group degree 16 ranks [0, 15] seqs [63]
// CHECK-NEXT:   }
// The short ones in node-local groups: twice eight of 2 side by side; no
// short sequence crosses a node.
// CHECK-NEXT:   plan.microbatch 1 time {{.*}} {
// CHECK-NEXT:     plan.sp_group degree 2 ranks [0, 1] seqs
// CHECK-COUNT-7:  plan.sp_group degree 2 ranks
// CHECK-NEXT:   }
// CHECK-NEXT:   plan.microbatch 2 time {{.*}} {
// CHECK-NEXT:     plan.sp_group degree 2 ranks [0, 1] seqs
// CHECK-COUNT-7:  plan.sp_group degree 2 ranks
// CHECK-NEXT:   }
// The plan verifies (every micro-batch's groups tile the 16 ranks) and
// lowers, and its programs run.
// RUN: plx-opt %s -plx-adaptive-sp -plx-lower-to-rt -plx-verify-rt -plx-simulate=job=flexsp_job | FileCheck %s --check-prefix=SIM
// SIM: plx.sim.step_time

// The baselines of the same pass: one degree for everything, and the best
// single degree of the batch (FlexSP's BatchAda).
// RUN: plx-opt %s -plx-adaptive-sp='mode=static degree=16' | FileCheck %s --check-prefix=STATIC
// STATIC:     strategy "static-sp-16"
// STATIC-NOT: degree 2
// RUN: plx-opt %s -plx-adaptive-sp=mode=best_homogeneous | FileCheck %s --check-prefix=HOMO
// HOMO: strategy "best-homogeneous-sp"

// RUN: not plx-opt %s -plx-adaptive-sp=mode=static 2>&1 | FileCheck %s --check-prefix=MODE
// MODE: error: plx-adaptive-sp: mode=static needs degree=D >= 1, got degree=0
// The modes are a typed option: an unknown one is refused by the option
// parser.
// RUN: not plx-opt %s -plx-adaptive-sp=mode=wide 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: for the --mode option: Cannot find option named 'wide'!

module {
  plx.model @gpt1b <layers = 8, hidden = 2048, heads = 16, kv_heads = 16, head_dim = 128, ffn = 8192, vocab = 50257, mlp = gelu>
  plx.dataset @mixed #plx.histogram<bounds = [2047, 2048, 98303, 98304], weights = [0.0, 95.0, 0.0, 5.0]> clamp 98304 padding 1 overlong drop
  plx.fabric @a100_16 chip <name = "A100_40GB", bf16_flops = 3.12e+14, fp8_flops = 0.0, hbm_bytes = 40000000000, hbm_bandwidth = 1.555e+12, nvlink_bandwidth = 6.0e+11, sm_count = 108> nodes 2 x 8 intra_node nvswitch 300000000000 topology #plx.fat_tree<radix = 8, tiers = 2, link_bandwidth = 6.25e+09>
  plx.train @flexsp model @gpt1b data @mixed fabric @a100_16 batch 64 steps 1 seed 5 strategy <sp = adaptive, sp_degree = 0, checkpoint = selective, memory_limit = 6000000000>
  plan.job @flexsp_job fabric @a100_16 ranks 16 chips [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5), (0, 6), (0, 7), (1, 0), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (1, 7)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1, 2, 3, 4, 5, 6, 7] order [0, 1, 2, 3, 4, 5, 6, 7] hops 0
    plan.comm_group @sp1 all_to_all ranks [8, 9, 10, 11, 12, 13, 14, 15] order [8, 9, 10, 11, 12, 13, 14, 15] hops 0
    plan.comm_group @dp0 ring ranks [0, 8] order [0, 8] hops 4
    plan.comm_group @dp1 ring ranks [1, 9] order [1, 9] hops 4
    plan.comm_group @dp2 ring ranks [2, 10] order [2, 10] hops 4
    plan.comm_group @dp3 ring ranks [3, 11] order [3, 11] hops 4
    plan.comm_group @dp4 ring ranks [4, 12] order [4, 12] hops 4
    plan.comm_group @dp5 ring ranks [5, 13] order [5, 13] hops 4
    plan.comm_group @dp6 ring ranks [6, 14] order [6, 14] hops 4
    plan.comm_group @dp7 ring ranks [7, 15] order [7, 15] hops 4
  }
}
