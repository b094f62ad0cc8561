// plx-plan-strategy alone, with IR as its input: the placed 4-rank job of
// Inputs/train-4.plx with `sp = best_homogeneous`, which leaves the Ulysses
// degree open. The strategy has no planner of its own for that, so its
// plan is the best of the static degrees the heads allow (4 heads: 1, 2
// and 4), and the two others follow as runners-up; every candidate is
// marked, holds the step's batch and names its layout.
// RUN: plx-opt %s -plx-plan-strategy > %t.mlir
// RUN: FileCheck %s < %t.mlir
// CHECK: plan.step @job_step0_candidate0 index 0 world 4 {{.*}} job @job strategy "best-homogeneous-sp:static-sp-{{[124]}}" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [{{[124]}}, 1, 1, 1] {
// CHECK: plan.step @job_step0_candidate1 index 0 world 4 {{.*}} role candidate layout [{{[124]}}, 1, 1, 1] {
// CHECK: plan.step @job_step0_candidate2 index 0 world 4 {{.*}} role candidate layout [{{[124]}}, 1, 1, 1] {
// CHECK-NOT: candidate3
// CHECK-NOT: role baseline
//
// Three different degrees, fastest estimate (the step's `time`) first.
// RUN: %python -c "import re, sys; t = open(sys.argv[1]).read(); c = re.findall(r'@job_step0_candidate\d+ index 0 world 4 time (\S+) .*? layout \[(\d+),', t); d = [int(x) for _, x in c]; s = [float(x) for x, _ in c]; assert sorted(d) == [1, 2, 4], d; assert s == sorted(s), s; print('three degrees in order')" %t.mlir | FileCheck %s --check-prefix=ORDER
// ORDER: three degrees in order
//
// Run again, it replaces its candidates instead of adding more.
// RUN: plx-opt %s -plx-plan-strategy -plx-plan-strategy | grep -c 'role candidate' | FileCheck %s --check-prefix=AGAIN
// AGAIN: 3
//
// A strategy that fixes every choice has one candidate, its layout; the
// hand-written candidate of plx-predict-train.mlir is replaced by it.
// RUN: plx-opt %S/plx-predict-train.mlir -plx-plan-strategy > %t-fixed.mlir
// RUN: FileCheck %s --check-prefix=FIXED < %t-fixed.mlir
// FIXED: plan.step @job_step0_candidate0 index 0 world 4 {{.*}} strategy "static-sp-2" {{.*}} role candidate layout [2, 1, 1, 1] {
// FIXED-NOT: candidate1
// The hand-written candidate (time 7.0e-4, printed 0.0007) is gone.
// RUN: grep -c 'role candidate' %t-fixed.mlir | FileCheck %s --check-prefix=ONECAND
// ONECAND: 1
// RUN: not grep 'candidate0 index 0 world 4 time 0.0007 ' %t-fixed.mlir
//
// FlexSP's adaptive groups (a 16-rank job): the planner's plan first, then
// the static degree it generalises; all groups of FlexSP's plan are of
// mixed degree, so its layout is all ones.
// RUN: plx-opt %S/plx-adaptive-sp.mlir -plx-plan-strategy | FileCheck %s --check-prefix=FLEXSP
// FLEXSP: plan.step @flexsp_step0_candidate0 {{.*}} strategy "flexsp" {{.*}} role candidate layout [1, 1, 1, 1] solver_time
// FLEXSP: plan.step @flexsp_step0_candidate1 {{.*}} strategy "best-homogeneous-sp:static-sp-{{[0-9]+}}"
//
// A batch nothing the strategy allows can run (Ulysses SP 2 with eager
// attention and a 160K-token sequence): the candidate is a plan.unplanned
// saying why, and plx-predict-train fails the job with that reason.
// RUN: plx-translate --import-plx %S/../Tools/Inputs/infeasible.plx | plx-opt -plx-instantiate -plx-place -plx-plan-strategy | FileCheck %s --check-prefix=UNPLANNED
// UNPLANNED: plan.unplanned @t_step0_candidate0 index 0 job @t strategy "static-sp-2" role candidate reason "{{.+}}"
//
// RUN: not plx-opt %s -plx-plan-strategy=max-simulated-ranks=0 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: error: plx-plan-strategy: max-simulated-ranks must be at least 1, got 0
// Jobs above the guard are not planned (plx-predict-train reports them).
// RUN: plx-opt %s -plx-plan-strategy=max-simulated-ranks=2 | FileCheck %s --check-prefix=GUARD
// GUARD-NOT: plan.step

module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11, sm_count = 132> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp = best_homogeneous, sp_degree = 0, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
}
