// plx-plan-baselines alone, with IR as its input: the placed 4-rank job of
// Inputs/train-4.plx (4 heads, 2 KV heads, ZeRO-3), here over two steps.
// The standard baselines, in report order: every Ulysses degree the heads
// allow, the best Megatron tensor x context layout, the best 1F1B depth and
// the best interleaved 1F1B pipeline (all with ZeRO-1, as Megatron runs;
// passes/Baselines/StepPlanners.h).
// On 4 ranks the best Megatron layout is tp1-cp2 and the best pipeline 4
// stages deep (plxc-predict.test compares them). A baseline already in the
// module (the unplanned one below) is replaced; no candidate is added.
// RUN: plx-opt %s -plx-plan-baselines > %t.mlir
// RUN: FileCheck %s < %t.mlir
// CHECK-NOT: role candidate
// CHECK-NOT: @job_step0_baseline0 {{.*}}stale
// CHECK: plan.step @job_step0_baseline0 index 0 world 4 {{.*}} strategy "static-sp-1" {{.*}} role baseline layout [1, 1, 1, 1] {
// CHECK: plan.step @job_step0_baseline1 index 0 world 4 {{.*}} strategy "static-sp-2" {{.*}} role baseline layout [2, 1, 1, 1] {
// CHECK: plan.step @job_step0_baseline2 index 0 world 4 {{.*}} strategy "static-sp-4" {{.*}} role baseline layout [4, 1, 1, 1] {
// CHECK: plan.step @job_step0_baseline3 index 0 world 4 {{.*}} strategy "megatron-tp1-cp2" zero 1 {{.*}} role baseline layout [1, 1, 2, 1] {
// CHECK: plan.step @job_step0_baseline4 index 0 world 4 {{.*}} strategy "pp4-tp1-1f1b" zero 1 {{.*}} role baseline layout [1, 1, 1, 4] {
// The interleaved family: 4 layers allow pp 2 with two model chunks per
// stage (pp 4 would need 8), tp 1 or 2; the faster is shown.
// CHECK: plan.step @job_step0_baseline5 index 0 world 4 {{.*}} strategy "pp2-tp{{[12]}}-v2-1f1b" zero 1 {{.*}} role baseline layout [1, {{[12]}}, 1, 2, 2] {
// CHECK-NOT: @job_step0_baseline6
//
// Step 1 plans its own batch with the layouts step 0 chose, in the same
// order.
// RUN: %python -c "import re, sys; t = open(sys.argv[1]).read(); f = lambda s: re.findall(r'@job_step%d_baseline\d+ index %d .*?strategy (\"[^\"]+\").*? layout (\[[^]]*\])' % (s, s), t); a, b = f(0), f(1); assert len(a) == 6 and a == b, (a, b); print('same layouts')" %t.mlir | FileCheck %s --check-prefix=STEPS
// STEPS: same layouts
//
// A dynamic-pipeline job (Inputs/dpp-8.plx: sp 4 per stage, 2 stages,
// 192 MiB per chip) is also compared with FlexSP over the cluster (only
// fully checkpointed it fits), packed batch-level 1F1B and even token
// slicing on its own DPP layout, which are steps of pipelines. The static
// baselines cannot hold its 16K-token sequences and say why.
// RUN: plx-translate --import-plx %S/Inputs/dpp-8.plx | plx-opt -plx-instantiate -plx-place -plx-plan-baselines | FileCheck %s --check-prefix=DPP
// DPP: plan.unplanned @dpp_step0_baseline0 index 0 job @dpp strategy "static-sp-1" role baseline reason "sequence 6 (16,384 tokens) needs
// DPP: plan.unplanned @dpp_step0_baseline6 index 0 job @dpp strategy "pp-tp-v2-1f1b" role baseline reason "none of the {{[0-9]+}} interleaved 1F1B pipeline layouts fits
// DPP: plan.step @dpp_step0_baseline7 {{.*}} strategy "flexsp-full-ckpt" checkpoint full {{.*}} role baseline layout [1, 1, 1, 1]
// DPP: plan.step @dpp_step0_baseline8 {{.*}} strategy "packed-1f1b" {{.*}} role baseline layout [4, 1, 1, 2] checkpoint_label "{{[a-z]+}}"
// DPP-NEXT: plan.pipeline 0 stages 2 sp 4
// DPP: plan.step @dpp_step0_baseline9 {{.*}} strategy "seq1f1b" {{.*}} role baseline layout [4, 1, 1, 2] checkpoint_label "uniform"
// DPP-NEXT: plan.pipeline 0 stages 2 sp 4
//
// RUN: not plx-opt %s -plx-plan-baselines=max-simulated-ranks=0 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: error: plx-plan-baselines: max-simulated-ranks must be at least 1, got 0

module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 2 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
  plan.unplanned @job_step0_baseline0 index 0 job @job strategy "static-sp-1" role baseline reason "stale"
}
