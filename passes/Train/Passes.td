//===- Passes.td - Training passes: static plans and lowering -*- tablegen -*-===//
#ifndef PLEXUS_PASSES_TRAIN_PASSES_TD
#define PLEXUS_PASSES_TRAIN_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlanStaticPass : Pass<"plx-plan-static", "::mlir::ModuleOp"> {
  let summary = "Plan each training step with one static layout";
  let description = [{
    For every `plx.train`, draws the global batch of each of its steps from
    its dataset (deterministic in the job's seed; docs/batches.md) and adds
    a `plan.step @<job>_step<i>` holding the plan of one static layout:
    the job's own strategy (`sp`, `tp`, `cp`, `pp` degrees; a degree the
    planner would choose counts as 1) or, with `layout=NAME`, one of the
    baselines (`static-sp-<d>`, `megatron-tp<t>-cp<c>`, `pp<p>-tp<t>-1f1b`).
    Sequences are packed best-fit-decreasing into micro-batches under each
    chip's memory; groups, micro-batches and the step are timed with the
    cost model and the fabric's collective models on the chips `plx-place`
    gave the job (passes/Baselines/StepPlanners.h). A layout that cannot run
    the batch is an error on the job naming the sequence, the memory it
    needs and the knob that would help.

    Needs `plx-instantiate` and `plx-place` first.
  }];
  let options = [
    Option<"layoutName", "layout", "std::string", "\"\"",
           "plan this baseline layout instead of the job's strategy">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def AdaptiveSpPass : Pass<"plx-adaptive-sp", "::mlir::ModuleOp"> {
  let summary = "Plan each training step with FlexSP's adaptive SP groups";
  let description = [{
    For every `plx.train`, draws each step's global batch and plans it with
    FlexSP (passes/AdaptiveSP): the sequence blaster cuts the sorted batch
    into micro-batches, and per micro-batch a bucketed MILP (CBC) chooses
    Ulysses groups of mixed power-of-two degrees and assigns the sequences,
    on node-aligned rank ranges. Its cost model is derived from the spec
    (passes/Train/FlexSpModel.h). Adds `plan.step @<job>_step<i>` with
    strategy "flexsp" (or the baseline's name), timed like every plan.

    Options select the same pass's baselines: `mode=static` with
    `degree=D` (static SP of one degree), `mode=best_homogeneous` (the best
    single degree per batch, FlexSP's BatchAda). `time-limit` caps each
    MILP (seconds); `allow-sp1` admits groups of one rank. A sequence too
    long for the whole cluster is an error naming it and the memory it
    needs. Needs `plx-instantiate` and `plx-place` first.
  }];
  let options = [
    Option<"mode", "mode", "::plexus::adaptivesp::SpStrategy",
           "::plexus::adaptivesp::SpStrategy::Adaptive",
           "which plan to make: adaptive, static or best_homogeneous",
           [{::llvm::cl::values(
             clEnumValN(::plexus::adaptivesp::SpStrategy::Adaptive,
                        "adaptive", "FlexSP's heterogeneous groups"),
             clEnumValN(::plexus::adaptivesp::SpStrategy::Static, "static",
                        "one degree (degree=D) for the whole batch"),
             clEnumValN(::plexus::adaptivesp::SpStrategy::BestHomogeneous,
                        "best_homogeneous",
                        "the best single degree of each batch"))}]>,
    Option<"degree", "degree", "int64_t", "0",
           "the SP degree of mode=static">,
    Option<"timeLimit", "time-limit", "double", "10",
           "seconds each MILP may take at most">,
    Option<"allowSp1", "allow-sp1", "bool", "false",
           "allow SP groups of one rank">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def DynamicPpPass : Pass<"plx-dynamic-pp", "::mlir::ModuleOp"> {
  let summary = "Plan each training step as dynamic 1F1B pipelines of chunks";
  let description = [{
    For every `plx.train`, draws each step's global batch and plans it with
    dynamic pipeline parallelism (passes/DynamicPP; docs/dpp.md):
    `sp`-way Ulysses SP with ZeRO-3 inside each stage, world / `sp`
    stages across nodes. The batch's longest sequence is cut into K slices
    of equal modelled time and every long sequence on the same mesh; short
    sequences are packed, best-fit decreasing, into packed chunks or beside
    a long sequence's tail slice (hybrid chunks); the chunks run longest
    first through one or more 1F1B pipelines, grouped by the dynamic
    programme that trades a pipeline's warm-up against checkpointing; K is
    searched. Adds `plan.step @<job>_step<i>` holding `plan.pipeline` ops
    of `plan.chunk` ops, and the checkpointing the grouping was planned
    with as `plan.remat` ops (`plx-checkpoint` can plan it again).

    The cost model is derived from the spec (passes/Train/DppPlanning.h).
    Options select the pass's baselines: `mode=packed` (batch-level 1F1B:
    whole sequences only) and `mode=even` (every long sequence cut into
    slices of equal tokens, Seq1F1B-like); `checkpoint` chooses the
    checkpointing planned with (`adaptive`: the stage-aware ILP; `none`,
    `full`, `uniform`). A batch that cannot fit is an error on the job.
    Needs `plx-instantiate` and `plx-place` first.
  }];
  let options = [
    Option<"mode", "mode", "::plexus::dpp::ChunkingMode",
           "::plexus::dpp::ChunkingMode::WorkloadBalanced",
           "how sequences become chunks: dynamic, packed or even",
           [{::llvm::cl::values(
             clEnumValN(::plexus::dpp::ChunkingMode::WorkloadBalanced,
                        "dynamic", "DPP's workload-balanced chunks"),
             clEnumValN(::plexus::dpp::ChunkingMode::Packed, "packed",
                        "whole sequences only (batch-level 1F1B)"),
             clEnumValN(::plexus::dpp::ChunkingMode::EvenTokens, "even",
                        "slices of equal tokens (Seq1F1B-like)"))}]>,
    Option<"checkpoint", "checkpoint", "::plexus::ckpt::CheckpointStrategy",
           "::plexus::ckpt::CheckpointStrategy::Adaptive",
           "how the stages checkpoint their chunks: adaptive, none, full or "
           "uniform",
           [{PLEXUS_CHECKPOINT_STRATEGY_VALUES}]>,
    Option<"spDegree", "sp", "int64_t", "0",
           "Ulysses degree per stage (0: the job's sp, else a node)">,
    Option<"minSlices", "min-slices", "int64_t", "1",
           "the least slice count K of the longest sequence searched">,
    Option<"maxSlices", "max-slices", "int64_t", "16",
           "the largest slice count K searched">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def CheckpointPass : Pass<"plx-checkpoint", "::mlir::ModuleOp"> {
  let summary = "Plan how many layers each stage recomputes for each chunk";
  let description = [{
    For every `plan.step` made of `plan.pipeline` ops, plans the
    checkpointing of each pipeline again, keeping its chunks and their
    order: with `strategy=adaptive`, the stage-aware chunk-level ILP (one
    integer per 1F1B time slot, n + d_p - 1 of them, solved with CBC to a
    2 % gap; docs/dpp.md) that recomputes as few layers as every stage's
    memory allows; `none`; `full` (every layer of every chunk); `uniform`
    (one layer count everywhere: `layers=N`, or the least that fits).
    Replaces the pipeline's `plan.remat` ops and updates its modelled time
    and bubble ratio and the step's time and peak memory. A pipeline whose
    chunks do not fit even fully checkpointed is an error naming the stage
    and the chunks.
  }];
  let options = [
    Option<"strategy", "strategy", "::plexus::ckpt::CheckpointStrategy",
           "::plexus::ckpt::CheckpointStrategy::Adaptive",
           "how the stages checkpoint their chunks: adaptive, none, full or "
           "uniform",
           [{PLEXUS_CHECKPOINT_STRATEGY_VALUES}]>,
    Option<"layers", "layers", "int64_t", "-1",
           "strategy=uniform: the layer count (-1: the least that fits)">,
    Option<"gap", "gap", "double", "0.02",
           "strategy=adaptive: the relative optimality gap">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def LowerToRtPass : Pass<"plx-lower-to-rt", "::mlir::ModuleOp"> {
  let summary = "Lower a planned step to one rt.program per rank";
  let description = [{
    Turns the module's `plan.step` (or the one named by `step=NAME`) into
    the programs of its ranks (passes/Lower/StepLowering.h): for each
    micro-batch, each rank runs its group's forward and backward layer by
    layer with the collectives its layout needs (Ulysses all-to-alls,
    tensor-parallel all-reduces, context-parallel K/V gathers, ZeRO-3
    parameter gathers and gradient reduce-scatters), pipelined groups run
    1F1B with sends and receives between stages, and the step ends with
    the data-parallel gradient synchronisation. Compute ops carry their
    time, FLOPs and memory from the cost model of the `plx.train` the step
    names (`job`); programs carry their resident memory. The lowering never
    re-plans: a plan it cannot run is an error on the step. By default the
    grain of the compute ops is the one plxc simulates (layersPerOpFor,
    passes/Train/TrainPipeline.h), so the rt this pass writes is the rt
    whose time plxc reports.
  }];
  let options = [
    Option<"stepName", "step", "std::string", "\"\"",
           "the plan.step to lower (default: the only one)">,
    Option<"layersPerOp", "layers-per-op", "int64_t", "0",
           "layers per compute op and per ZeRO-3 gather; 0: as plxc lowers "
           "the step it simulates (layersPerOpFor with op-budget)">,
    Option<"opBudget", "op-budget", "int64_t", "4000000",
           "with layers-per-op=0, the program size (ops over every rank) "
           "above which layers are grouped into coarser ops">,
  ];
  let dependentDialects = ["::plexus::rt::RtDialect"];
}

def PlanStrategyPass : Pass<"plx-plan-strategy", "::mlir::ModuleOp"> {
  let summary = "Plan each training step with the job's strategy, as candidates";
  let description = [{
    For every `plx.train`, draws each step's batch and plans it the way
    the job's strategy asks (passes/Train/TrainPipeline.h,
    planJobStrategy): a strategy that fixes every choice is its static
    layout; `pp = dynamic` (no tp, cp, micro_batch) is DPP; `sp =
    adaptive` alone is FlexSP; every choice left open (`sp = adaptive` or
    `best_homogeneous`, `pp = dynamic`, `checkpoint = adaptive`) is also
    searched over the static layouts it allows (Ulysses degrees, pipeline
    depths with ZeRO <= 2, selective or full checkpointing). A planner
    that cannot plan the batch gives way to that search, with a `note`.

    Adds the step's candidates for `plx-predict-train` to judge:
    `plan.step @<job>_step<i>_candidate0 ... role candidate layout [sp, tp,
    cp, pp]`, the planner's plan, then up to three runners-up of the
    static search (`_candidate1`...), fastest estimate first; when nothing
    the strategy allows can run the batch, `plan.unplanned
    @<job>_step<i>_candidate0` saying why. Candidates the module already
    holds for the job are replaced. Jobs of more than
    `max-simulated-ranks` ranks are skipped, as are jobs that cannot be
    planned at all (no placement, no batches): `plx-predict-train`
    reports them. Needs `plx-instantiate` and `plx-place` first.
  }];
  let options = [
    Option<"maxSimulatedRanks", "max-simulated-ranks", "int64_t", "1048576",
           "jobs of more ranks are not planned (a guard)">,
    Option<"maxReplicaRanks", "max-replica-ranks", "int64_t", "4096",
           "jobs of more ranks are planned as data-parallel replicas of at "
           "most this many ranks">,
    Option<"progress", "progress", "bool", "false",
           "print progress lines on stderr once planning takes a second">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def PlanBaselinesPass : Pass<"plx-plan-baselines", "::mlir::ModuleOp"> {
  let summary = "Plan each training step with the standard baselines";
  let description = [{
    For every `plx.train`, draws each step's batch and plans it with the
    baselines reports compare the job with (passes/Baselines/StepPlanners.h,
    standardBaselines): every power-of-two Ulysses degree the heads
    and chips allow, the best Megatron-style tensor/context layout with
    ZeRO-1, the best 1F1B pipeline depth, each packing micro-batches by memory, their layouts
    chosen on step 0 and kept for the later steps; for `pp = dynamic`
    also FlexSP over the whole cluster, packed batch-level 1F1B and even
    token slicing (Seq1F1B-like) on the job's DPP layout. Adds them as
    `plan.step @<job>_step<i>_baseline<k> ... role baseline`, in report
    order, or `plan.unplanned` for a baseline that cannot run the batch.
    Baselines the module already holds for the job are replaced. Jobs of
    more than `max-simulated-ranks` ranks are skipped. Needs
    `plx-instantiate` and `plx-place` first.
  }];
  let options = [
    Option<"maxSimulatedRanks", "max-simulated-ranks", "int64_t", "1048576",
           "jobs of more ranks are not planned (a guard)">,
    Option<"maxReplicaRanks", "max-replica-ranks", "int64_t", "4096",
           "jobs of more ranks are planned as data-parallel replicas of at "
           "most this many ranks">,
    Option<"progress", "progress", "bool", "false",
           "print progress lines on stderr once planning takes a second">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

def PredictTrainPass : Pass<"plx-predict-train", "::mlir::ModuleOp"> {
  let summary = "Judge each training step's alternative plans and predict the job";
  let description = [{
    For every `plx.train`, judges the alternative plans of each step that
    `plx-plan-strategy` (candidates) and `plx-plan-baselines` (baselines)
    added (passes/Train/TrainPipeline.h): each plan is lowered and
    simulated on the job's placed chips with contention, memory is checked
    on every rank, and the job's plan is the fastest feasible candidate or
    baseline its strategy admits. The alternatives are removed; every
    step's chosen plan is added as a `plan.step` (`@<job>_step<i>`), and the
    job's prediction (the fields of plxc's JSON report for the job: plan,
    planned, surrogate and predicted step times, MFU, memory, bound,
    efficiency, and per baseline its outcome, in the list `baselines`) is
    attached to the `plx.train` as the dictionary attribute
    `plan.prediction`. A job that cannot be planned (no candidate, no plan
    that runs a step) is an error on the job; the pass then fails after
    the other jobs are predicted.

    Run it after `plx-instantiate`, `plx-place`, `plx-plan-strategy` and
    `plx-plan-baselines`, or as the registered pipeline
    `plx-train-pipeline`.
  }];
  let options = [
    Option<"maxSimulatedRanks", "max-simulated-ranks", "int64_t", "1048576",
           "jobs of more ranks are neither planned nor simulated (a guard)">,
    Option<"maxReplicaRanks", "max-replica-ranks", "int64_t", "4096",
           "jobs of more ranks are planned and simulated as data-parallel "
           "replicas of at most this many ranks">,
    Option<"contention", "contention", "bool", "true",
           "simulate link contention between concurrent transfers">,
    Option<"tracePath", "trace", "std::string", "\"\"",
           "write a Chrome trace of the first job's step 0 to this file">,
    Option<"timelineColumns", "timeline-columns", "int64_t", "0",
           "add each job's step 0 binned into this many columns to its "
           "prediction (its timeline; 0: none)">,
    Option<"progress", "progress", "bool", "false",
           "print progress lines on stderr once judging takes a second">,
  ];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

#endif // PLEXUS_PASSES_TRAIN_PASSES_TD
