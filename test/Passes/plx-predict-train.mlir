// plx-predict-train alone, with IR as its input: the placed job of
// Inputs/train-4.plx (plx-instantiate, plx-place) with alternative plans of
// its one step written by hand. The lengths are the batch its dataset draws
// for seed 3 (a 3:1 histogram of 256- and 1024-token sequences); the
// candidate is the strategy's static-sp-2 layout: two Ulysses groups of 2,
// the long sequences 2 and 7 on ranks 0-1, the rest on ranks 2-3.
// RUN: plx-opt %s -plx-predict-train > %t.mlir
// RUN: FileCheck %s < %t.mlir
//
// The prediction sits on the plx.train. The candidate and the baseline
// "static-sp-2 (copy)" are the same plan, so they predict the same time and
// the candidate (judged first; a baseline must be strictly faster) is the
// job's plan, under the candidate's name; the baselines are listed in
// their IR order, each with its name. pp4-tp1-1f1b is not what the
// strategy fixes (sp 2, pp 1, ZeRO-3), and says so; the unplanned
// megatron baseline is infeasible for the reason its op gives.
// CHECK: plx.train @job {{.*}}plan.prediction = {
// CHECK-SAME: baselines = [{allowed_by_strategy = true, {{[^}]*}}name = "static-sp-2 (copy)"
// CHECK-SAME: {allowed_by_strategy = false, differs_from_strategy = "sp 1 (the strategy fixes sp = 2), pp 4 (the strategy fixes pp = 1), ZeRO-1 (the strategy fixes zero = 3)", {{[^}]*}}name = "pp4-tp1-1f1b"
// CHECK-SAME: {infeasible = "tp 4 does not divide the 2 KV heads", name = "megatron-tp4-cp1"}]
// CHECK-SAME: plan = {checkpoint = "selective", layout = {cp = 1 : i64, pp = 1 : i64, sp = 2 : i64, tp = 1 : i64}, microbatches = 1 : i64, strategy = "static-sp-2", zero = 3 : i64}
// The alternatives are gone; the chosen plan is the job's step 0, the
// candidate's groups without its role.
// CHECK-NOT: role
// CHECK: plan.step @job_step0 index 0 world 4 {{.*}} job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] {
// CHECK-NEXT: plan.microbatch 0
// CHECK-NEXT: plan.sp_group degree 2 ranks [0, 1] seqs [2, 7]
// CHECK-NEXT: plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6]
// CHECK-NOT: plan.step
// CHECK-NOT: plan.unplanned
//
// The same plan twice predicts the same time.
// RUN: %python -c "import re, sys; t = open(sys.argv[1]).read(); m = re.search(r'plan.prediction = \{.*', t).group(0); own = re.search(r'predicted_step_time_s = ([0-9.eE+-]+)', m[m.index('memory ='):]).group(1); base = re.search(r'name = \"static-sp-2 \(copy\)\", peak_memory_bytes = \d+ : i64, planned_step_time_s = [0-9.eE+-]+ : f64, predicted_step_time_s = ([0-9.eE+-]+)', m).group(1); assert float(own) == float(base), (own, base); print('same time')" %t.mlir | FileCheck %s --check-prefix=TIE
// TIE: same time
//
// Fed what plx-plan-strategy and plx-plan-baselines write (they replace the
// hand-written alternatives), it gives plxc's prediction: every field of
// plxc's JSON report for the job is in the attribute, with the same values.
// RUN: plx-opt %s -plx-plan-strategy -plx-plan-baselines | plx-opt -plx-predict-train > %t-full.mlir
// RUN: plxc %S/Inputs/train-4.plx --report=json > %t.json
// RUN: %python %S/../Tools/compare-prediction.py %t-full.mlir %t.json | FileCheck %s --check-prefix=SAME
// SAME: same prediction for 1 jobs
//
// The contention option reaches the simulator. On this 4-rank job it
// changes nothing, so take the 16-rank placed job of plx-adaptive-sp.mlir
// (2 nodes of 8): its ZeRO-3 traffic and all-to-alls share the inter-node
// links, so with contention the step is strictly slower than with every
// transfer alone.
// RUN: plx-opt %S/plx-adaptive-sp.mlir -plx-plan-strategy -plx-plan-baselines > %t-16-plans.mlir
// RUN: plx-opt %t-16-plans.mlir -plx-predict-train > %t-16.mlir
// RUN: plx-opt %t-16-plans.mlir -plx-predict-train=contention=false > %t-16-alone.mlir
// RUN: %python %S/../Tools/compare-prediction.py %t-16.mlir --field predicted_step_time_s > %t-with.txt
// RUN: %python %S/../Tools/compare-prediction.py %t-16-alone.mlir --field predicted_step_time_s > %t-without.txt
// RUN: %python -c "import sys; a, b = (float(open(f).read()) for f in sys.argv[1:]); assert 0 < b < a, (a, b); print('alone faster')" %t-with.txt %t-without.txt | FileCheck %s --check-prefix=ALONE
// ALONE: alone faster
//
// Planned under a smaller guard than predict's, the job has no candidates,
// and the error says which guard to raise.
// RUN: plx-opt %s -plx-plan-strategy=max-simulated-ranks=2 | not plx-opt -plx-predict-train 2>&1 | FileCheck %s --check-prefix=GUARD
// GUARD: error: train job 'job': step 0 has no candidate plan ({{.*}}with a max-simulated-ranks of at least the job's 4 ranks)
// RUN: not plx-opt %s -plx-predict-train=max-simulated-ranks=0 2>&1 | FileCheck %s --check-prefix=RANKS
// RANKS: error: plx-predict-train: max-simulated-ranks must be at least 1, got 0
//
// A job whose alternatives cannot run: Inputs/predict-errors.mlir. An
// alternative that cannot stand for the job's plan is the error's location
// (the third to sixth cases), else the job.
// RUN: not plx-opt %S/Inputs/predict-errors.mlir -split-input-file -plx-predict-train 2>&1 | FileCheck %s --check-prefix=ERR

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
  // The planner's modelled times (0.7 ms) are the candidate's; the
  // simulator, not they, decides.
  plan.step @job_step0_candidate0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role candidate layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
  plan.step @job_step0_baseline0 index 0 world 4 time 7.0e-4 peak_mem 68905984 job @job strategy "static-sp-2 (copy)" lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role baseline layout [2, 1, 1, 1] {
    plan.microbatch 0 time 7.0e-4 {
      plan.sp_group degree 2 ranks [0, 1] seqs [2, 7] time 7.0e-4 mem 63663104
      plan.sp_group degree 2 ranks [2, 3] seqs [4, 0, 1, 3, 5, 6] time 7.0e-4 mem 68905984
    }
  }
  // One 4-stage pipeline, ZeRO-1: one micro-batch per long sequence, then
  // the short ones two and three at a time.
  plan.step @job_step0_baseline1 index 0 world 4 time 1.2e-4 peak_mem 61775872 job @job strategy "pp4-tp1-1f1b" zero 1 lengths [256, 256, 1024, 256, 1024, 256, 256, 1024] role baseline layout [1, 1, 1, 4] {
    plan.microbatch 0 time 2.0e-5 {
      plan.sp_group degree 4 ranks [0, 3] seqs [2] time 2.0e-5 mem 61775872 pp 4
    }
    plan.microbatch 1 time 2.0e-5 {
      plan.sp_group degree 4 ranks [0, 3] seqs [4] time 2.0e-5 mem 61775872 pp 4
    }
    plan.microbatch 2 time 2.0e-5 {
      plan.sp_group degree 4 ranks [0, 3] seqs [7] time 2.0e-5 mem 61775872 pp 4
    }
    plan.microbatch 3 time 1.0e-5 {
      plan.sp_group degree 4 ranks [0, 3] seqs [0, 3, 6] time 1.0e-5 mem 51290112 pp 4
    }
    plan.microbatch 4 time 1.0e-5 {
      plan.sp_group degree 4 ranks [0, 3] seqs [1, 5] time 1.0e-5 mem 40804352 pp 4
    }
  }
  plan.unplanned @job_step0_baseline2 index 0 job @job strategy "megatron-tp4-cp1" role baseline reason "tp 4 does not divide the 2 KV heads"
}

// ERR: predict-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:3: error: train job 'job': cannot plan step 0 with static-sp-2: sequence 2 needs 90 GB on each of its 2 ranks
// ERR: predict-errors.mlir:{{[0-9]+}} offset :{{[0-9]+}}:3: error: train job 'job': step 0 has no candidate plan (run plx-plan-strategy before plx-predict-train, as plx-train-pipeline does, with a max-simulated-ranks of at least the job's 4 ranks)
// ERR: predict-errors.mlir:{{[0-9]+}} offset :15:3: error: train job 'job': @job_step0_candidate0 plans another batch than step 0 draws (its lengths differ)
// ERR: predict-errors.mlir:{{[0-9]+}} offset :15:3: error: train job 'job': @job_step0_candidate0 runs on 2 ranks, the job on 4
// ERR: predict-errors.mlir:{{[0-9]+}} offset :15:3: error: train job 'job': @job_step0_candidate0 names layout [4, 1, 1, 1] but its groups are [2, 1, 1, 1]
// ERR: predict-errors.mlir:{{[0-9]+}} offset :22:3: error: train job 'job': @job_step0_candidate1 (pp4-tp1-1f1b) is a candidate the strategy does not allow: sp 1 (the strategy fixes sp = 2), pp 4 (the strategy fixes pp = 1), ZeRO-1 (the strategy fixes zero = 3)
// ERR: predict-errors.mlir:{{[0-9]+}} offset :22:3: error: 'plan.unplanned' op is an alternative plan of @ghost, which is no plx.train of the module
// ERR: predict-errors.mlir:{{[0-9]+}} offset :23:3: error: 'plan.unplanned' op is an alternative plan of step 1, but @job runs 1 steps
