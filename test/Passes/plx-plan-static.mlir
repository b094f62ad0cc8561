// plx-plan-static alone, with IR as its input: the placed job of
// Inputs/train-4.plx (plx-instantiate, plx-place), as plx-opt prints it. plx-
// plan-static.test keeps the runs that edit the spec or run more passes after
// it.

// plx-plan-static plans each train job's step with one static layout; the
// lengths come from the dataset (a histogram of 256- and 1024-token bins).
// RUN: plx-opt %s -plx-plan-static | FileCheck %s

// Ulysses SP 2 (the job's strategy): 2 groups of 2 ranks. Best-fit packing
// fits all 8 sequences (4,352 tokens) in one micro-batch; balancing then
// gives the three 1,024-token sequences (ids 2, 4, 7) to the least loaded
// group in turn (2 and 7 to group 0, 4 to group 1) and the five 256-token
// ones to group 1, which stays the lighter one (a 1,024-token sequence
// costs more than four 256-token ones: attention is quadratic).
// CHECK:      plan.step @job_step0 index 0 world 4 time [[T:[0-9.e-]+]] peak_mem {{[0-9]+}} job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] {
// CHECK-NEXT:   plan.microbatch 0 time [[T]] {
// CHECK-NEXT:     plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time {{.*}} mem {{[0-9]+}}
// CHECK-NEXT:     plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time {{.*}} mem {{[0-9]+}}
// CHECK-NEXT:   }
// CHECK-NEXT: }

// A baseline layout instead of the strategy: Megatron TP 2 x CP 2, one group.
// RUN: plx-opt %s -plx-plan-static=layout=megatron-tp2-cp2 | FileCheck %s --check-prefix=MEGATRON
// MEGATRON: plan.step @job_step0 index 0 world 4 {{.*}} strategy "megatron-tp2-cp2"
// MEGATRON: plan.sp_group degree 4 ranks [0, 3] seqs [{{.*}}] time {{.*}} mem {{[0-9]+}} tp 2 cp 2

// Errors: an unknown layout and a pipeline under the job's ZeRO-3.
// RUN: not plx-opt %s -plx-plan-static=layout=pp2 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: plx-plan-static: unknown layout 'pp2'; expected static-sp-<d>, megatron-tp<t>-cp<c>, pp<p>-tp<t>-1f1b, pp<p>-tp<t>-v<v>-1f1b or sp<d>-tp<t>-cp<c>-pp<p>[-v<v>]
// RUN: not plx-opt %s -plx-plan-static=layout=pp2-tp1-1f1b 2>&1 | FileCheck %s --check-prefix=ZERO3
// ZERO3: error: 'plx.train' op cannot plan step 0 with pp2-tp1-1f1b: a pipeline needs zero <= 2 (ZeRO-3 gathers every layer on every micro-batch)

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
}
