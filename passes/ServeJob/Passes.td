//===- Passes.td - Serve passes: plan each serve job -------*- tablegen -*-===//
#ifndef PLEXUS_PASSES_SERVEJOB_PASSES_TD
#define PLEXUS_PASSES_SERVEJOB_PASSES_TD

include "mlir/Pass/PassBase.td"

def ServePipelinePass : Pass<"plx-serve-pipeline", "::mlir::ModuleOp"> {
  let summary = "Plan the layout and wave interval of each serve job";
  let description = [{
    For every `plx.serve`, builds its agent workload (recorded
    trajectories, or the seeded generator of its preset) and plans it the
    way `plxc` does (passes/ServeJob/ServePipeline.h, passes/Serving):
    of the layouts of the job's chips that its strategy allows, the
    planner screens those that fit with a short replay, balances the
    layers over each one's stages, and, for `wave_interval = auto`,
    sweeps the prefill-wave interval on the best few; the layout and
    interval with the least job completion time win. Adds
    `plan.serve_layout @<job>_layout` with the layout and
    `plan.serve_policy @<job>_policy` with the interval and the job and
    turn completion times that replaying the whole workload on the plan
    predicts.

    For test/Tools/Inputs/serve-small.plx (times rounded here),
    ```mlir
    plx.serve @agents model @moe workload @swe fabric @h800_16 seed 5 strategy <pp = 2, ep = 8, dp_attention = true, mtp_drafts = 3>
    ```
    gains:
    ```mlir
    plan.serve_layout @agents_layout job @agents chips 16 instances 1 pp 2 ep 8 dp_attention layers [11, 5] mtp 3
    plan.serve_policy @agents_policy layout @agents_layout interval 8 chosen jct 68.75 turn_mean 0.318 turn_p50 0.28 turn_p90 0.537 turn_p99 0.882
    ```

    `interval=N` (N >= 1) plans with N decode rounds between prefill
    waves instead of the strategy's interval; 0 keeps the strategy's. A
    job that cannot be planned (no layout of its chips fits the model, or
    no replay finishes) is an error on the `plx.serve`, and so is a module
    that already declares one of the two symbols. The baselines
    `plxc` replays beside the plan are not run. Needs neither
    `plx-instantiate` nor `plx-place`.
  }];
  let options = [
    Option<"interval", "interval", "int64_t", "0",
           "decode rounds between prefill waves (0: the strategy's)">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

#endif // PLEXUS_PASSES_SERVEJOB_PASSES_TD
