//===- Passes.td - Serve passes: plan each serve job -------*- tablegen -*-===//
#ifndef PLEXUS_PASSES_SERVEJOB_PASSES_TD
#define PLEXUS_PASSES_SERVEJOB_PASSES_TD

include "mlir/Pass/PassBase.td"

def ServePipelinePass : Pass<"plx-serve-pipeline", "::mlir::ModuleOp"> {
  let summary = "Plan, replay and predict each serve job (plxc's serve stage)";
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

    Then it replays the workload on the baseline systems plxc compares
    with (wide expert parallelism with and without prefill delay, vLLM-style
    2-stage pipelines, prefill/decode disaggregation; docs/pipeswift.md)
    and attaches the job's prediction, the fields of plxc's JSON report for
    the job (layout, policy and interval sweep, completion times,
    throughput, per baseline its outcome, in the list `baselines`), to the
    `plx.serve` as the dictionary attribute `plan.prediction`; plxc renders
    its report from it. `baselines=false` skips the baseline replays.

    `interval=N` (N >= 1) plans with N decode rounds between prefill
    waves instead of the strategy's interval; 0 keeps the strategy's.
    `trace=FILE` writes a Chrome trace of the first job's replay. A job
    that cannot be planned (no layout of its chips fits the model, or no
    replay finishes) is an error on the `plx.serve`, and so is a module
    that already declares one of the two symbols. Needs neither
    `plx-instantiate` nor `plx-place`.
  }];
  let options = [
    Option<"interval", "interval", "int64_t", "0",
           "decode rounds between prefill waves (0: the strategy's)">,
    Option<"baselines", "baselines", "bool", "true",
           "replay the baseline systems beside the plan">,
    Option<"tracePath", "trace", "std::string", "\"\"",
           "write a Chrome trace of the first job's replay to this file">,
    Option<"progress", "progress", "bool", "false",
           "print progress lines on stderr once planning takes a second">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

#endif // PLEXUS_PASSES_SERVEJOB_PASSES_TD
