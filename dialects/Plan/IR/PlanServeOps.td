//===- PlanServeOps.td - Serving layouts and policies ------*- tablegen -*-===//
//
// What the serve planner decided for a plx.serve job: the layout of its
// instances (plan.serve_layout) and the scheduling policy run on it, with
// the job completion times the replay predicts (plan.serve_policy). The
// plain C++ form is serving::ServingPlan (passes/Serving/ServingSystems.h).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PLAN_SERVE_OPS_TD
#define PLEXUS_PLAN_SERVE_OPS_TD

//===----------------------------------------------------------------------===//
// plan.serve_layout
//===----------------------------------------------------------------------===//

def Plan_ServeLayoutOp : Plan_Op<"serve_layout", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The instances a serve job runs on and how each is cut";
  let description = [{
    A `plan.serve_layout` says how the chips of a `plx.serve` job are
    split into serving instances. Every instance is a pipeline of `pp`
    stages; each stage spreads the experts of its layers over `ep` chips
    (expert parallelism), so an instance holds `pp * ep` chips. The
    instances serve the job's tasks side by side and share nothing.

    Attributes (written `job`, `chips`, `instances`, `pp`, `ep`,
    `dp_attention`, `layers`, `mtp`):
    - `job`: the `plx.serve` the layout is for.
    - `chips`: the chips the job was given (at least 1).
    - `instances`: the number of instances (at least 1); together they
      use `instances * pp * ep` chips, at most `chips`.
    - `pp`: the pipeline stages of an instance (at least 1).
    - `ep`: the expert-parallel degree of a stage (at least 1).
    - `dp_attention` (optional): attention runs data-parallel, each chip
      of a stage with its own requests, instead of tensor-parallel over
      the stage's chips.
    - `stage_layers` (written `layers`): the decoder layers of each stage,
      first to last; one count (at least 1) per stage. The split need not
      be even: the last stage also runs the head, sampling and the MTP
      layers, so it often holds fewer.
    - `mtp_drafts` (written `mtp`): the tokens drafted per decode step by
      multi-token prediction (non-negative; 0 turns MTP off).

    The verifier checks the bounds above, that `layers` holds `pp`
    counts, and that `job` names a `plx.serve` of the enclosing symbol
    table.

    ```mlir
    plan.serve_layout @pipeswift_layout job @pipeswift chips 64 instances 4 pp 2 ep 8 dp_attention layers [48, 44] mtp 3
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$job,
                       Plan_Int64Attr:$chips, Plan_Int64Attr:$instances,
                       Plan_Int64Attr:$pp, Plan_Int64Attr:$ep,
                       UnitAttr:$dp_attention,
                       DenseI64ArrayAttr:$stage_layers,
                       Plan_Int64Attr:$mtp_drafts);
  let assemblyFormat = [{
    $sym_name `job` $job `chips` $chips `instances` $instances `pp` $pp
    `ep` $ep (`dp_attention` $dp_attention^)? `layers` $stage_layers
    `mtp` $mtp_drafts attr-dict
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// plan.serve_policy
//===----------------------------------------------------------------------===//

def Plan_ServePolicyOp : Plan_Op<"serve_policy", [Symbol,
    DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "The scheduling policy of a serve layout and the JCT it gives";
  let description = [{
    A `plan.serve_policy` is how the instances of a `plan.serve_layout`
    schedule their work: every `interval` decode rounds the running decode
    pauses for one wave of prefills (of the turns that arrived meanwhile),
    cut into micro-batches across the pipeline stages. It also records
    what replaying the job's workload on the layout under this policy
    predicts, in seconds.

    Attributes (written `layout`, `interval`, `chosen`, `jct`,
    `turn_mean`, `turn_p50`, `turn_p90`, `turn_p99`):
    - `layout`: the `plan.serve_layout` the policy runs on.
    - `wave_interval` (written `interval`): decode rounds between prefill
      waves (at least 1; 1 is prefill-first).
    - `interval_chosen` (written `chosen`, optional): the planner chose the
      interval for the workload; absent when the spec or an option fixed
      it.
    - `jct`: the job completion time, from the start of the replay to the
      end of the last turn.
    - `turn_mean`, `turn_p50`, `turn_p90`, `turn_p99`: the mean and the
      percentiles of the turns' completion times (each from the turn's
      arrival to its end).

    The verifier checks that the interval is at least 1, that the times
    are finite and non-negative, that the percentiles are ordered
    (p50 <= p90 <= p99), and that `layout` names a `plan.serve_layout` of
    the enclosing symbol table.

    ```mlir
    plan.serve_policy @pipeswift_policy layout @pipeswift_layout interval 363 chosen jct 4521.1 turn_mean 35.2 turn_p50 24.9 turn_p90 68.7 turn_p99 144.2
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, FlatSymbolRefAttr:$layout,
                       Plan_Int64Attr:$wave_interval,
                       UnitAttr:$interval_chosen, Plan_F64Attr:$jct,
                       Plan_F64Attr:$turn_mean, Plan_F64Attr:$turn_p50,
                       Plan_F64Attr:$turn_p90, Plan_F64Attr:$turn_p99);
  let assemblyFormat = [{
    $sym_name `layout` $layout `interval` $wave_interval
    (`chosen` $interval_chosen^)? `jct` custom<Decimal>($jct)
    `turn_mean` custom<Decimal>($turn_mean)
    `turn_p50` custom<Decimal>($turn_p50)
    `turn_p90` custom<Decimal>($turn_p90)
    `turn_p99` custom<Decimal>($turn_p99) attr-dict
  }];
  let hasVerifier = 1;
}

#endif // PLEXUS_PLAN_SERVE_OPS_TD
