// plx-predict-train alone, with IR as its input: the placed job of
// Inputs/train-4.plx (plx-instantiate, plx-place), as plx-opt prints it.
// It is what plxc runs on the job, so its prediction is plxc's: every field
// of plxc's JSON report for the job (plan, planned, surrogate and
// predicted step times, MFU, memory, bound, baselines) is in the
// plan.prediction attribute it attaches, with the same values.
// RUN: plx-opt %s -plx-predict-train > %t.mlir
// RUN: plxc %S/Inputs/train-4.plx --report=json > %t.json
// RUN: %python %S/../Tools/compare-prediction.py %t.mlir %t.json | FileCheck %s --check-prefix=SAME
// SAME: same prediction for 1 jobs
// The job's plan of its one step is written beside its plan.job, and the
// prediction sits on the plx.train.
// RUN: FileCheck %s < %t.mlir
// CHECK: plx.train @job {{.*}}plan.prediction = {
// CHECK: plan.step @job_step0 index 0 world 4
// CHECK-NOT: plan.step @job_step1

// The contention option reaches the simulator. On this 4-rank job it
// changes nothing, so take the 16-rank placed job of plx-adaptive-sp.mlir
// (2 nodes of 8): its ZeRO-3 traffic and all-to-alls share the inter-node
// links, so with contention the step is strictly slower than with every
// transfer alone.
// RUN: plx-opt %S/plx-adaptive-sp.mlir -plx-predict-train > %t-16.mlir
// RUN: plx-opt %S/plx-adaptive-sp.mlir -plx-predict-train=contention=false > %t-16-alone.mlir
// RUN: %python %S/../Tools/compare-prediction.py %t-16.mlir --field predicted_step_time_s > %t-with.txt
// RUN: %python %S/../Tools/compare-prediction.py %t-16-alone.mlir --field predicted_step_time_s > %t-without.txt
// RUN: %python -c "import sys; a, b = (float(open(f).read()) for f in sys.argv[1:]); assert 0 < b < a, (a, b); print('alone faster')" %t-with.txt %t-without.txt | FileCheck %s --check-prefix=ALONE
// ALONE: alone faster

// RUN: not plx-opt %s -plx-predict-train=max-simulated-ranks=0 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: error: plx-predict-train: max-simulated-ranks must be at least 1, got 0

module {
  plx.model @small <layers = 4, hidden = 256, heads = 4, kv_heads = 2, head_dim = 64, ffn = 1024, vocab = 1000>
  plx.dataset @short #plx.histogram<bounds = [255, 256, 1023, 1024], weights = [0.0, 3.0, 0.0, 1.0]> clamp 2048 padding 1 overlong drop
  plx.fabric @pair chip <name = "H100", bf16_flops = 9.89e+14, fp8_flops = 1.979e+15, hbm_bytes = 80000000000, hbm_bandwidth = 3.35e+12, nvlink_bandwidth = 9.0e+11> nodes 2 x 2 intra_node nvswitch 450000000000 topology #plx.fat_tree<radix = 4, tiers = 2, link_bandwidth = 1.25e+10>
  plx.train @job model @small data @short fabric @pair batch 8 steps 1 seed 3 strategy <sp_degree = 2, checkpoint = selective>
  plan.job @job_job fabric @pair ranks 4 chips [(0, 0), (0, 1), (1, 0), (1, 1)] {
    plan.comm_group @sp0 all_to_all ranks [0, 1] order [0, 1] hops 0
    plan.comm_group @sp1 all_to_all ranks [2, 3] order [2, 3] hops 0
    plan.comm_group @dp0 ring ranks [0, 2] order [0, 2] hops 4
    plan.comm_group @dp1 ring ranks [1, 3] order [1, 3] hops 4
  }
}
