//===- PlanDialect.td - The plan (decisions) dialect -------*- tablegen -*-===//
//
// The dialect definition and the shared ODS pieces of the plan ops.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PLAN_DIALECT_TD
#define PLEXUS_PLAN_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Plan_Dialect : Dialect {
  let name = "plan";
  let cppNamespace = "::plexus::plan";
  let summary =
      "The decisions of the planner, with the modeled costs behind them";
  let description = [{
    The `plan` dialect records what the middle end decided for a job and why:
    every op carries the modeled time (seconds) and memory (bytes) that the
    cost model assigned to it, so that tests and reports read the reasons
    from the IR instead of recomputing them.

    A training step is a `plan.step` holding its micro-batches in execution
    order; each `plan.microbatch` holds the sequence-parallel groups
    (`plan.sp_group`) that split the ranks of the job between them and the
    sequences each group processes. The verifiers check that such a plan is
    well formed on its own: every rank serves exactly one group of each
    micro-batch, every sequence is processed once per step, and the recorded
    costs are consistent from group to micro-batch to step.

    A step planned by dynamic pipeline parallelism holds 1F1B pipelines
    (`plan.pipeline`) instead, run one after another; each lists its chunks
    (`plan.chunk`, slices of the step's sequences) in forward order and the
    layers each stage recomputes (`plan.remat`). There the verifiers check
    that every token of every sequence is in exactly one chunk and that a
    sequence cut into slices runs forward in order and backward in reverse.
  }];
}

class Plan_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plan_Dialect, mnemonic, traits>;

// A signed 64-bit integer attribute whose accessor returns int64_t (the
// upstream I64Attr returns uint64_t, which hides negative values).
def Plan_Int64Attr
    : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                   "64-bit signless integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

// A 64-bit float attribute whose accessor returns double.
def Plan_F64Attr : FloatAttrBase<F64, "64-bit float attribute"> {
  let returnType = "double";
  let convertFromStorage = "$_self.getValueAsDouble()";
}

#endif // PLEXUS_PLAN_DIALECT_TD
