// plx-lower-to-rt alone, with IR as its input: the planned step of
// Inputs/train-4.plx (plx-instantiate, plx-place, plx-plan-static), as plx-opt
// prints it. plx-lower-to-rt.test keeps the runs that edit the spec or run
// more passes after it.

// plx-lower-to-rt turns the planned step into one rt.program per rank; the
// programs pass plx-verify-rt and run in plx-simulate on the placed chips.
// RUN: plx-opt %s -plx-lower-to-rt -plx-verify-rt | FileCheck %s

// Before the programs: the model and the batch they run, for code
// generation (4 layers, hidden 256, 4 heads of 64, 2 K/V heads, SwiGLU 1024,
// vocab 1000, bf16; the step's 8 lengths, none cut).
// CHECK:       rt.model layers 4 hidden 256 heads 4 kv_heads 2 head_dim 64 ffn 1024 mlp "swiglu" vocab 1000 element_bytes 2 seed {{[0-9]+}}
// CHECK-NEXT:  rt.batch seed {{[0-9]+}} lengths [{{[0-9, ]+}}]{{$}}
// Every communicator once, ranks in ring order, before the programs; the
// ops name theirs.
// CHECK-NEXT:  rt.group @"zero:0-3" zero [0, 1, 2, 3]
// CHECK-NEXT:  rt.group @"sp:0-1" sp [0, 1]
// CHECK-NEXT:  rt.group @"sp:2-3" sp [2, 3]
// CHECK-NOT:   rt.group

// Rank 0 is in group [0, 1] with sequences 2 and 7 (2,048 tokens, 1,024 per
// rank). ZeRO-3 over all 4 ranks: each layer's gather is issued one layer
// ahead on the communication stream and names the layers it carries; the
// first also carries the token embedding: (983,552 + 256,000) params x 2
// bytes / 4 ranks = 619,776 bytes, the next 983,552 x 2 / 4 = 491,776. Each
// layer's forward sends its Q, K, V, O by all-to-all first: 1,024 tokens x
// (2 x 4 x 64 + 2 x 2 x 64) values x 2 bytes = 1,572,864 bytes; the compute
// op names the Ulysses group its attention runs in. The resident bytes are
// every layer's, the embedding's, the final norm's and the untied head's
// parameters (4 x 983,552 + 2 x 256,000 + 256 = 4,446,464) at 16 bytes of
// ZeRO-3 states over 4 ranks (17,785,856), plus two gathered layer buffers
// (2 x 983,552 x 2 = 3,934,208): 21,720,064. A 1,024-token sequence's
// forward FLOPs per layer are 2 x 1024 x 196,608 (projections) + 2 x 4 x 64
// x 1024^2 (attention core) + 2 x 1024 x 786,432 (SwiGLU) = 2,550,136,832,
// the same per rank for two over 2 ranks. Its time on the H100 at the
// chip's rates (docs/cost-model.md, "Compute time by kind of kernel" and
// "GEMMs by shape and dtype"; GEMMs at 0.6063 of 989 TFLOP/s, 0.65 x
// (792.1 / 989) / (267.9 / 312), on 132 SMs in 128 x 128 tiles): the
// rank's 1,024 tokens fill few tiles, so each GEMM takes one wave of one
// 128 x 128 x 256 tile-product per SM, 132 x 128 x 128 x 2 x 256 FLOPs at
// that rate = 1.8467 us: QKV (1024 x 256 by 256 x 512: 32 tiles, k too
// short to split), O (16 tiles) and down (1024 x 1024 by 1024 x 256: 16
// tiles, k split 4 ways); gate-and-up (1024 x 256 by 256 x 2048) is
// memory-bound, (1024 x 256 + 256 x 2048 + 1024 x 2048) x 2 bytes =
// 5,767,168 at 0.75 x 3.35 TB/s = 2.2954 us. Then the fused core's
// 536,870,912 FLOPs at 0.55 of the peak (0.9870 us) and 1,024 tokens x
// 11,776 elementwise bytes (norms 2 x 1,024, bias-dropout-adds 2 x 1,792,
// SwiGLU 3 x 2 x 1,024) at 0.75 x 3.35 TB/s (4.7995 us): 13.622 us.
// Selective checkpointing keeps 10,240 bytes per token and layer:
// 10,240 x 2,048 / 2 = 10,485,760 per rank (docs/lowering.md).
// CHECK-LABEL: rt.program @rank_0 rank 0 resident 21720064 {
// CHECK-NEXT:    rt.all_gather group zero @"zero:0-3" bytes 619776 async layers [0, 1)
// CHECK-NEXT:    rt.wait pending 0
// CHECK-NEXT:    rt.all_gather group zero @"zero:0-3" bytes 491776 async layers [1, 2)
// CHECK-NEXT:    rt.all_to_all group sp @"sp:0-1" bytes 1572864
// CHECK-NEXT:    rt.compute fwd layers [0, 1) stage 0 seqs [2, 7] time 1.36218{{[0-9]*}}e-05 flops 2550136832.0 mem 10485760 ulysses @"sp:0-1"
// The backward starts at the last layer: recompute (selective: the
// attention core), backward, all-to-all, then the gradients' reduction on
// the stream; the next wait leaves that reduction pending. Recompute reruns
// the core (536,870,912 FLOPs), the backward is twice the forward and frees
// the layer's activations. The last layer also runs the output head, 2 x
// 2,048 tokens x 256 x 1,000 vocab / 2 ranks = 524,288,000 forward FLOPs,
// so its backward is 2 x (2,550,136,832 + 524,288,000) = 6,148,849,664
// (the recompute does not rerun the head), and it frees the loss's fp32
// softmax of the logits besides the layer's activations, 2,048 x 1,000 x 4
// / 2 = 4,096,000 bytes; the last layer's gradients also carry the final
// norm and the head: (983,552 + 256,256) x 2 = 2,479,616 bytes, layers 1
// and 2 983,552 x 2 = 1,967,104, layer 0 with the embedding 2,479,104. Its
// forward gathered (983,552 + 256,256) x 2 / 4 = 619,904 bytes.
// CHECK:         rt.all_gather group zero @"zero:0-3" bytes 619904 async layers [3, 4)
// CHECK:         rt.compute recompute layers [3, 4) stage 0 seqs [2, 7] time {{[0-9.e-]+}} flops 536870912.0 ulysses
// CHECK-NEXT:    rt.compute bwd layers [3, 4) stage 0 seqs [2, 7] time {{[0-9.e-]+}} flops 6148849664.0 mem -14581760
// CHECK-NEXT:    rt.all_to_all group sp @"sp:0-1" bytes 1572864
// CHECK-NEXT:    rt.reduce_scatter group zero @"zero:0-3" bytes 2479616 async layers [3, 4)
// CHECK-NEXT:    rt.wait pending 1
// CHECK:         rt.reduce_scatter group zero @"zero:0-3" bytes 1967104 async layers [2, 3)
// CHECK:         rt.reduce_scatter group zero @"zero:0-3" bytes 1967104 async layers [1, 2)
// CHECK:         rt.reduce_scatter group zero @"zero:0-3" bytes 2479104 async layers [0, 1)
// Ranks 2 and 3 split 2,304 tokens: 1,152 local tokens per all-to-all,
// 1,152 x 768 x 2 = 1,769,472 bytes.
// CHECK-LABEL: rt.program @rank_2 rank 2
// CHECK:         rt.all_to_all group sp @"sp:2-3" bytes 1769472
// CHECK-LABEL: rt.program @rank_3 rank 3
// CHECK: rt.compute fwd layers [0, 1) stage 0 seqs [4, 0, 1, 3, 5, 6]

// Simulated on the placed chips: MFU and per-rank peak memory are attached.
// RUN: plx-opt %s -plx-lower-to-rt -plx-simulate=job=job_job | FileCheck %s --check-prefix=SIM
// SIM: module attributes {plx.sim.bubble_fraction = {{.*}}, plx.sim.flops = {{.*}}, plx.sim.mfu = {{.*}}, plx.sim.step_time = {{.*}}}
// The peak is the resident bytes, the 4 layers' kept activations and the
// loss's logits: 21,720,064 + 4 x 10,485,760 + 4,096,000 = 67,759,104 on
// ranks 0 and 1; ranks 2 and 3 keep 10,240 x 2,304 / 2 per layer and
// 2,304 x 1,000 x 4 / 2 of logits: 73,513,984.
// SIM: rt.program @rank_0 rank 0 resident 21720064 attributes {{{.*}}plx.sim.peak_mem = 67759104 : i64}
// SIM: rt.program @rank_2 rank 2 resident 21720064 attributes {{{.*}}plx.sim.peak_mem = 73513984 : i64}

// The grain of the compute ops is the one plxc simulates (layersPerOpFor):
// 8 ops x 4 layers x 1 micro-batch x 4 ranks = 128 estimated ops, so a
// budget of 128 keeps one layer per op and a budget of 100 takes
// ceil(128 / 100) = 2 layers per op (forward ops over [0, 2) and [2, 4)).
// RUN: plx-opt %s -plx-lower-to-rt=op-budget=128 | FileCheck %s --check-prefix=FINE
// FINE: rt.compute fwd layers [0, 1) stage 0 seqs [2, 7]
// FINE: rt.compute fwd layers [1, 2) stage 0 seqs [2, 7]
// RUN: plx-opt %s -plx-lower-to-rt=op-budget=100 | FileCheck %s --check-prefix=COARSE
// The ZeRO-3 gathers take the same grain: one per two layers.
// COARSE:     rt.compute fwd layers [0, 2) stage 0 seqs [2, 7]
// COARSE:     rt.compute fwd layers [2, 4) stage 0 seqs [2, 7]
// COARSE-NEXT: rt.all_gather group zero @"zero:0-3" bytes {{[0-9]+}} async layers [2, 4)
// COARSE-NOT: layers [1, 2)
// A layer count fixes the grain whatever the budget.
// RUN: plx-opt %s -plx-lower-to-rt='op-budget=100 layers-per-op=1' | FileCheck %s --check-prefix=FINE
// RUN: not plx-opt %s -plx-lower-to-rt=layers-per-op=-1 2>&1 | FileCheck %s --check-prefix=GRAIN
// GRAIN: error: plx-lower-to-rt: layers-per-op must be 0 (as plxc simulates) or at least 1, and op-budget at least 1; got -1 and 4000000

// A step that assumes full checkpointing (`checkpoint full`, as plxc writes
// when a searched plan picks it) is lowered with it: the backward
// recomputes each layer's whole forward (the same FLOPs as the forward and
// the forward's 512 KiB of kept input grown to the layer's full
// activations), where the job's selective mode recomputes only the
// attention core.
// RUN: sed -e 's/strategy "static-sp-2"/strategy "static-sp-2" checkpoint full/' %s | plx-opt -plx-lower-to-rt | FileCheck %s --check-prefix=FULL
// FULL-LABEL: rt.program @rank_0
// FULL:       rt.compute fwd layers [0, 1) stage 0 seqs [2, 7] time {{.*}} flops [[F:[0-9.]+]] mem 524288
// FULL:       rt.compute recompute layers [3, 4) stage 0 seqs [2, 7] time {{.*}} flops [[F]] mem
// RUN: plx-opt %s -plx-lower-to-rt | FileCheck %s --check-prefix=SELECTIVE
// SELECTIVE-LABEL: rt.program @rank_0
// SELECTIVE:       rt.compute fwd layers [0, 1) stage 0 seqs [2, 7] time {{.*}} flops [[F:[0-9.]+]]
// SELECTIVE-NOT:   rt.compute recompute layers [3, 4) stage 0 seqs [2, 7] time {{.*}} flops [[F]]
// SELECTIVE:       rt.compute recompute layers [3, 4) stage 0 seqs [2, 7]

module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.step @job_step0 index 0 world 4 time 0.0007408884786324788 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] {
    plan.microbatch 0 time 0.0007408884786324788 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 0.0007408884786324788 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 0.0007408884786324788 mem 68905984
    }
  }
}
