//===- PlanOps.td - Ops of the plan (decisions) dialect ----*- tablegen -*-===//
//
// A training step: plan.step > plan.microbatch > plan.sp_group, or for DPP
// plan.step > plan.pipeline > plan.chunk, plan.remat (PlanPipelineOps.td).
// A serve job: plan.serve_layout and plan.serve_policy (PlanServeOps.td).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PLAN_OPS_TD
#define PLEXUS_PLAN_OPS_TD

include "dialects/Plan/IR/PlanDialect.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// plan.step
//===----------------------------------------------------------------------===//

def Plan_Checkpointing : I32EnumAttr<"Checkpointing",
    "activation checkpointing of a step of micro-batches", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"selective", 1>,
    I32EnumAttrCase<"full", 2>, I32EnumAttrCase<"attention_mlp", 3>]> {
  let cppNamespace = "::plexus::plan";
}

def Plan_Role : I32EnumAttr<"Role",
    "what an alternative plan of a step is before plx-predict-train judges it", [
    I32EnumAttrCase<"candidate", 0>, I32EnumAttrCase<"baseline", 1>]> {
  let cppNamespace = "::plexus::plan";
}

def Plan_StepOp : Plan_Op<"step", [
    Symbol, IsolatedFromAbove, SingleBlock, NoTerminator]> {
  let summary = "One training step: its micro-batches or pipelines in order";
  let description = [{
    A `plan.step` is what the planner decided for one optimizer step of a
    training job over `world` ranks. Its body lists the step's micro-batches
    (`plan.microbatch`) in the order they run; their gradients accumulate
    until the step ends. A step planned by dynamic pipeline parallelism
    lists 1F1B pipelines (`plan.pipeline`) instead, also run one after
    another; a step never mixes the two.

    Attributes (written `index`, `world`, `time`, `peak_mem`):
    - `index`: which step of the job this is (0-based, non-negative).
    - `world_size`: the number of ranks taking part (at least 1).
    - `time`: the modeled time of the whole step in seconds. Micro-batches
      (pipelines) run one after the other, so it is at least the sum of
      their times.
    - `peak_mem`: the modeled peak memory of the busiest rank in bytes; at
      least the per-rank memory of every SP group of the step.

    Optional (written after `peak_mem`, in this order):
    - `job`: the `plx.train` whose step this is; `plx-lower-to-rt` reads
      the model, chip and strategy from it.
    - `strategy`: the name of the plan (`static-sp-64`, `megatron-tp8-cp2`,
      `pp4-tp8-1f1b`, `flexsp`, ...), shown by reports.
    - `zero`: the ZeRO stage (0..3) the plan assumes, when it differs from
      the job's (Megatron-style baselines use ZeRO-1).
    - `checkpoint`: the activation checkpointing (`none`, `selective`,
      `full`) a step of micro-batches assumes, when it differs from the
      job's (a searched strategy may pick full checkpointing to fit);
      `plx-lower-to-rt` lowers with it, so the programs are the ones the
      plan was costed and simulated with. Pipelined steps say it per chunk
      (`plan.remat`).
    - `lengths`: the token count of each sequence id of the step (id i has
      `lengths[i]` tokens, each at least 1); every id a group or chunk
      lists must have a length.
    - `bubble`: the modeled idle share of the ranks over the whole step, in
      [0, 1] (pipelined steps).

    An alternative plan of a step, which `plx-predict-train` judges and then
    removes, also carries (written after `bubble`, in this order; `role`
    and `layout` together, and only with `job`):
    - `role`: `candidate` (a plan of the job's own strategy:
      `plx-plan-strategy` writes its planner's plan first, then the static
      layouts the strategy generalises) or `baseline` (a plan of a standard
      baseline, `plx-plan-baselines`, in the order reports list them).
    - `layout`: the group layout `[sp, tp, cp, pp]` the planner used (all
      1 for FlexSP's groups of mixed degrees; `[sp, 1, 1, stages]` for a
      step of pipelines).
    - `checkpoint_label`: how reports name the checkpointing a pipeline
      planner chose per chunk (`adaptive`, `uniform`, ...), when it is not
      the step's `checkpoint`.
    - `solver_time`: the wall-clock seconds the planner's solver spent on
      the plan (FlexSP's MILPs); the one attribute that is not
      deterministic.
    - `note`: why the strategy's own planner did not make this plan, when a
      fallback did.
    - `replicas`: the job runs this step as that many identical
      data-parallel replicas of `world` ranks each (at least 2), the step's
      plan being the one of the replica with the heaviest share of the
      batch; its gradients are all-reduced across the replicas at the end
      (passes/Train/Replicas.h).

    The verifier checks the attributes and that the step holds at least one
    micro-batch or pipeline. For a step of micro-batches it checks that
    micro-batch indices count 0, 1, 2, ... in order, that no sequence is
    processed by two groups of the step, and the two cost bounds above
    (with a relative tolerance of 1e-9 for the sum).

    For a step of pipelines it checks that pipeline indices count 0, 1,
    2, ... in order, that every pipeline has the same `stages` and `sp`
    with `stages * sp` equal to the world size, that no token of a sequence
    is in two chunks and no tokens are skipped (with `lengths`: every
    sequence is covered exactly once, and chunk kinds agree with the
    lengths), that a sequence cut into several slices stays in one
    pipeline, runs forward in token order and backward in reverse, and
    that the step time is at least the sum of the pipeline times.

    ```mlir
    plan.step @step0 index 0 world 8 time 2.5 peak_mem 3000000000 {
      plan.microbatch 0 time 1.25 {
        plan.sp_group degree 8 ranks [0, 7] seqs [3] time 1.25 mem 3000000000
      }
      plan.microbatch 1 time 1.25 {
        plan.sp_group degree 4 ranks [0, 3] seqs [0, 5] time 1.25 mem 2000000000
        plan.sp_group degree 4 ranks [4, 7] seqs [1, 2] time 1.0 mem 1500000000
      }
    }
    ```

    A pipelined step (see `plan.pipeline`):

    ```mlir
    plan.step @dpp_step0 index 0 world 32 time 61.2 peak_mem 79000000000 job @dpp strategy "dpp" lengths [70000, 3000, 500, 90000] bubble 0.12 {
      plan.pipeline 0 stages 4 sp 8 nsplit 3 time 40.1 bubble 0.12 backward [2, 1, 0, 3] {
        plan.chunk 0 split slices [3:0-40000] time 0.91 mem 1000
        plan.chunk 1 split slices [3:40000-60000] time 0.9 mem 1000
        plan.chunk 2 hybrid slices [3:60000-90000, 1:0-3000] time 0.9 mem 1000
        plan.chunk 3 packed slices [0:0-70000, 2:0-500] time 0.8 mem 1000
        plan.remat stage 0 layers [3, 3, 2, 0]
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plan_Int64Attr:$index,
                       Plan_Int64Attr:$world_size, Plan_F64Attr:$time,
                       Plan_Int64Attr:$peak_mem,
                       OptionalAttr<FlatSymbolRefAttr>:$job,
                       OptionalAttr<StrAttr>:$strategy,
                       OptionalAttr<DenseI64ArrayAttr>:$lengths,
                       OptionalAttr<Plan_Int64Attr>:$zero,
                       OptionalAttr<Plan_Checkpointing>:$checkpoint,
                       OptionalAttr<Plan_F64Attr>:$bubble,
                       OptionalAttr<Plan_Role>:$role,
                       OptionalAttr<DenseI64ArrayAttr>:$layout,
                       OptionalAttr<StrAttr>:$checkpoint_label,
                       OptionalAttr<Plan_F64Attr>:$solver_time,
                       OptionalAttr<StrAttr>:$note,
                       OptionalAttr<Plan_Int64Attr>:$replicas);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $sym_name `index` $index `world` $world_size
    `time` custom<Decimal>($time) `peak_mem` $peak_mem
    (`job` $job^)? (`strategy` $strategy^)? (`zero` $zero^)?
    (`checkpoint` $checkpoint^)? (`lengths` $lengths^)? (`bubble` custom<Decimal>($bubble)^)?
    (`role` $role^)? (`layout` $layout^)?
    (`checkpoint_label` $checkpoint_label^)?
    (`solver_time` custom<Decimal>($solver_time)^)? (`note` $note^)?
    (`replicas` $replicas^)?
    attr-dict-with-keyword $bodyRegion
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the step with an empty body block, ready for micro-batches
    // or pipelines.
    OpBuilder<(ins "::llvm::StringRef":$symName, "int64_t":$index,
                   "int64_t":$worldSize, "double":$time, "int64_t":$peakMem)>
  ];
  let extraClassDeclaration = [{
    /// The region checks of a step of plan.pipeline ops
    /// (PlanPipelineOps.cpp); verifyRegions() hands such steps to it.
    ::llvm::LogicalResult verifyPipelinedRegions();
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.unplanned
//===----------------------------------------------------------------------===//

def Plan_UnplannedOp : Plan_Op<"unplanned", [Symbol]> {
  let summary = "An alternative plan of a step that its planner could not make";
  let description = [{
    Stands, among a step's alternative plans (`plan.step` ops with a
    `role`), for one that its planner could not make: the job's own
    strategy when neither its planner nor any static layout it allows can
    run the batch, or a baseline that cannot (a sequence too long for its
    groups, a layout the model's heads do not divide, ...). `reason` says
    why, as the report will. `plx-predict-train` reads it in the place of
    the plan and removes it.

    ```mlir
    plan.unplanned @small_step0_baseline2 index 0 job @small strategy "megatron-tp8-cp1" role baseline reason "tp 8 does not divide the 4 heads"
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, Plan_Int64Attr:$index,
                       FlatSymbolRefAttr:$job, StrAttr:$strategy,
                       Plan_Role:$role, StrAttr:$reason);
  let assemblyFormat = [{
    $sym_name `index` $index `job` $job `strategy` $strategy `role` $role
    `reason` $reason attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.microbatch
//===----------------------------------------------------------------------===//

def Plan_MicrobatchOp : Plan_Op<"microbatch", [
    HasParent<"StepOp">, SingleBlock, NoTerminator]> {
  let summary = "One micro-batch of a step: its SP groups, run side by side";
  let description = [{
    A `plan.microbatch` is one forward and backward pass over part of the
    step's sequences. Its body holds the sequence-parallel groups
    (`plan.sp_group`) it is cut into; the groups run concurrently, each on
    its own ranks, so the micro-batch takes as long as its slowest group.

    Attributes:
    - `index`: position in the step; the i-th micro-batch has index i.
    - `time`: the modeled time in seconds (finite, non-negative), at least
      every group's time.

    The verifier checks that the groups' rank ranges lie inside
    [0, world), do not overlap, and together cover every rank of the step
    (so the group degrees sum to the world size), that no sequence is given
    to two groups, and the time bound above.

    ```mlir
    plan.microbatch 1 time 1.25 {
      plan.sp_group degree 4 ranks [0, 3] seqs [0, 5] time 1.25 mem 2000000000
      plan.sp_group degree 4 ranks [4, 7] seqs [1, 2] time 1.0 mem 1500000000
    }
    ```
  }];
  let arguments = (ins Plan_Int64Attr:$index, Plan_F64Attr:$time);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    $index `time` custom<Decimal>($time) attr-dict-with-keyword $bodyRegion
  }];
  let skipDefaultBuilders = 1;
  let builders = [
    // Creates the micro-batch with an empty body block, ready for groups.
    OpBuilder<(ins "int64_t":$index, "double":$time)>
  ];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.sp_group
//===----------------------------------------------------------------------===//

def Plan_SpGroupOp : Plan_Op<"sp_group", [HasParent<"MicrobatchOp">]> {
  let summary = "A sequence-parallel group and the sequences it processes";
  let description = [{
    A `plan.sp_group` is one Ulysses-style sequence-parallel group of a
    micro-batch (FlexSP): `degree` consecutive ranks `[first, last]`
    (inclusive) that split each of their sequences along its length and
    exchange activations by all-to-all. Groups of one micro-batch may have
    different degrees.

    Attributes (written `degree`, `ranks [first, last]`, `seqs`, `time`,
    `mem`):
    - `degree`: the SP degree, at least 1 and equal to `last - first + 1`.
    - `first_rank`, `last_rank`: the ranks of the group, inclusive;
      `first_rank` >= 0. Rank ranges of one micro-batch lie in
      [0, world), are disjoint and cover every rank.
    - `seqs`: the ids (>= 0, no repeats) of the sequences the group
      processes; a sequence belongs to at most one group of the whole
      step. The list may be empty: the group's ranks then sit out the
      micro-batch.
    - `time`: the modeled time of the group's work in seconds (finite,
      non-negative).
    - `mem`: the modeled memory each rank of the group needs, in bytes
      (non-negative).

    Optional layout of the group's ranks (each at least 1, absent = 1):
    `tp` (Megatron tensor parallelism), `cp` (context parallelism, ring
    attention) and `pp` (pipeline stages, run with 1F1B); the Ulysses degree
    is what remains, degree / (tp * cp * pp), which must be a whole number.
    Ranks are laid out with tensor parallelism innermost, then context,
    then Ulysses, then stages: the local rank (r - first) is
    ((stage * ulysses + u) * cp + c) * tp + t. With `pp` > 1 the group's
    `time` is its slowest stage's forward and backward of the micro-batch.
    `vpp` (absent = 1) is the model chunks per stage of interleaved 1F1B
    (Megatron-LM's virtual pipeline size): layers split into pp * vpp
    virtual stages, virtual stage j on stage j mod pp; it needs pp >= 2.

    ```mlir
    plan.sp_group degree 4 ranks [0, 3] seqs [0, 5, 7] time 1.2 mem 3000000000
    plan.sp_group degree 16 ranks [0, 15] seqs [1] time 0.9 mem 2000000000 tp 8 cp 2
    ```
  }];
  let arguments = (ins Plan_Int64Attr:$degree, Plan_Int64Attr:$first_rank,
                       Plan_Int64Attr:$last_rank, DenseI64ArrayAttr:$seqs,
                       Plan_F64Attr:$time, Plan_Int64Attr:$mem,
                       OptionalAttr<Plan_Int64Attr>:$tp,
                       OptionalAttr<Plan_Int64Attr>:$cp,
                       OptionalAttr<Plan_Int64Attr>:$pp,
                       OptionalAttr<Plan_Int64Attr>:$vpp);
  let assemblyFormat = [{
    `degree` $degree `ranks` ` ` `[` $first_rank `,` $last_rank `]`
    `seqs` $seqs `time` custom<Decimal>($time) `mem` $mem
    (`tp` $tp^)? (`cp` $cp^)? (`pp` $pp^)? (`vpp` $vpp^)? attr-dict
  }];
  let extraClassDeclaration = [{
    /// Tensor-, context- and pipeline-parallel degrees (1 when absent) and
    /// the Ulysses degree that remains: degree / (tp * cp * pp).
    int64_t getTpDegree() { return getTp().value_or(1); }
    int64_t getCpDegree() { return getCp().value_or(1); }
    int64_t getPpDegree() { return getPp().value_or(1); }
    int64_t getVppDegree() { return getVpp().value_or(1); }
    int64_t getUlyssesDegree() {
      return getDegree() / (getTpDegree() * getCpDegree() * getPpDegree());
    }
  }];
  let hasVerifier = 1;
}

include "dialects/Plan/IR/PlanPlacementOps.td"
include "dialects/Plan/IR/PlanPipelineOps.td"
include "dialects/Plan/IR/PlanServeOps.td"

#endif // PLEXUS_PLAN_OPS_TD
