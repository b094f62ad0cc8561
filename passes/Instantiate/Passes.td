//===- Passes.td - Instantiation passes --------------------*- tablegen -*-===//
#ifndef PLEXUS_PASSES_INSTANTIATE_PASSES_TD
#define PLEXUS_PASSES_INSTANTIATE_PASSES_TD

include "mlir/Pass/PassBase.td"

def InstantiatePass : Pass<"plx-instantiate", "::mlir::ModuleOp"> {
  let summary = "Create each job's plan skeleton: its ranks and communicators";
  let description = [{
    For every `plx.train` and `plx.serve`, adds a `plan.job @<name>_job` on
    the job's fabric with as many ranks as the job has chips, and the
    communicators its static layout implies (passes/Instantiate/JobGroups.h):
    tensor rings (TP x CP), Ulysses SP all-to-alls, data-parallel rings and
    pipeline chains for training; expert-parallel all-to-alls and pipeline
    chains for serving. When the strategy leaves SP to the planner
    (`adaptive`, `best_homogeneous`) the skeleton uses the largest
    node-local power-of-two degree; a dynamic pipeline starts as one stage.
    A serve job whose `pp` or `ep` the planner chooses (0) gets no
    communicators: its layout is known only once planned (`plan.serve_layout`).
    `plx-place` then places the jobs, disjointly on a shared fabric.

    Before:
    ```mlir
    plx.train @a model @m data @d fabric @f chips 8 batch 8 steps 1 seed 0 strategy <sp_degree = 4>
    ```
    After (added):
    ```mlir
    plan.job @a_job fabric @f ranks 8 {
      plan.comm_group @sp0 all_to_all ranks [0, 1, 2, 3]
      plan.comm_group @sp1 all_to_all ranks [4, 5, 6, 7]
      plan.comm_group @dp0 ring ranks [0, 4]
      ...
    }
    ```
  }];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

#endif // PLEXUS_PASSES_INSTANTIATE_PASSES_TD
