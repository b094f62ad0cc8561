// plx-dynamic-pp alone, with IR as its input: the placed job of
// Inputs/dpp-8.plx (plx-instantiate, plx-place), as plx-opt prints it. plx-
// dynamic-pp.test keeps the runs that edit the spec or run more passes after
// it.

// plx-dynamic-pp plans each step as dynamic 1F1B pipelines of chunks. 8 H100
// in 2 nodes: Ulysses SP 4 inside each node, 2 stages of 2 layers. The
// batch holds two 16K-token sequences among 512-token ones, and 192 MiB per
// chip cannot hold a 16K sequence whole on a stage: each long sequence is
// cut into slices of equal modelled time (later slices shorter, since they
// attend to more context), its tail slice shares a chunk with short
// sequences, and the stages checkpoint some layers of the chunks.
// RUN: plx-opt %s -plx-dynamic-pp | FileCheck %s
// CHECK:      plan.step @dpp_step0 index 0 world 8 {{.*}} job @dpp strategy "dpp" lengths [512, 512, 512, 512, 512, 512, 16384,
// CHECK-NEXT:   plan.pipeline 0 stages 2 sp 4 nsplit 7 time {{.*}} backward [6, 5, 4, 3, 2, 1, 0, 13, 12, 11, 10, 9, 8, 7, 14] {
// CHECK-NEXT:     plan.chunk 0 split slices [6:0-4124]
// CHECK-NEXT:     plan.chunk 1 split slices [6:4124-6996]
// CHECK-NEXT:     plan.chunk 2 split slices [6:6996-9340]
// CHECK-NEXT:     plan.chunk 3 split slices [6:9340-11372]
// CHECK-NEXT:     plan.chunk 4 split slices [6:11372-13188]
// CHECK-NEXT:     plan.chunk 5 split slices [6:13188-14848]
// CHECK-NEXT:     plan.chunk 6 hybrid slices [6:14848-16384, 0:0-512,
// CHECK-NEXT:     plan.chunk 7 split slices [13:0-4124]
// CHECK:          plan.chunk 13 hybrid slices [13:14848-16384,
// CHECK-NEXT:     plan.chunk 14 packed slices
// Stage 0 holds more chunks at once than stage 1, so it checkpoints at
// least as many layers of every chunk.
// CHECK-NEXT:     plan.remat stage 0 layers [2, 2, 2, 2, 2, 1, 1, 2, 2, 2, 2, 2, 0, 2, 0]
// CHECK-NEXT:     plan.remat stage 1 layers [2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 0, 0, 2, 0]

// The plan verifies (every token of every sequence in exactly one chunk),
// lowers to one program per rank with the slices in order, and runs.
// RUN: plx-opt %s -plx-dynamic-pp -plx-lower-to-rt -plx-verify-rt -plx-simulate=job=dpp_job | FileCheck %s --check-prefix=SIM
// SIM: plx.sim.step_time
// SIM: rt.program @rank_0 rank 0 resident
// SIM: rt.compute fwd layers [0, 1) stage 0 seqs [6] {{.*}} slices [0]
// SIM: rt.compute recompute layers [0, 1) stage 0
// SIM: rt.program @rank_7

// The pass's baselines: whole sequences only (batch-level 1F1B), and even
// token slicing (Seq1F1B-like) with one checkpointed layer count.
// RUN: plx-opt %s -plx-dynamic-pp=mode=packed | FileCheck %s --check-prefix=PACKED
// PACKED:      strategy "packed-1f1b"
// PACKED:      plan.pipeline 0 stages 2 sp 4 nsplit 1
// PACKED-NEXT:   plan.chunk 0 packed slices [6:0-16384]
// PACKED-NOT:  split
// RUN: plx-opt %s -plx-dynamic-pp=mode=even | FileCheck %s --check-prefix=EVEN
// EVEN:      strategy "seq1f1b"
// EVEN:      plan.chunk 0 split slices [6:0-4096]
// EVEN-NEXT: plan.chunk 1 split slices [6:4096-8192]

// Without checkpointing the long sequences do not fit at any slice count:
// the error names the stage, the chunks and the memory.
// RUN: not plx-opt %s -plx-dynamic-pp=checkpoint=none 2>&1 | FileCheck %s --check-prefix=NOFIT
// NOFIT: error: 'plx.train' op cannot plan step 0 with dpp-ckpt-none: no slice count from 1 to 16 gives a plan that fits; with K = 16 slices: stage 0 holds chunks

// The adaptive plan's time and peak memory (plx-checkpoint.mlir compares
// full checkpointing with them: slower, less memory).
// RUN: plx-opt %s -plx-dynamic-pp | FileCheck %s --check-prefix=ADAPTIVE
// ADAPTIVE: plan.step @dpp_step0 index 0 world 8 time 0.006646{{[0-9]*}} peak_mem 1898{{[0-9]+}}

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
}
