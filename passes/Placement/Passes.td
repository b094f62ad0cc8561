//===- Passes.td - Placement passes ------------------------*- tablegen -*-===//
#ifndef PLEXUS_PASSES_PLACEMENT_PASSES_TD
#define PLEXUS_PASSES_PLACEMENT_PASSES_TD

include "mlir/Pass/PassBase.td"

def PlacePass : Pass<"plx-place", "::mlir::ModuleOp"> {
  let summary = "Place jobs' ranks on chips, order rings, emit OCS circuits";
  let description = [{
    For every `plx.fabric` of the module, builds the fabric (never one op
    per link) and places the `plan.job`s that run on it: each job's ranks
    get disjoint, healthy chips; all-to-all communicators sit within a node
    or a RailX row's one-hop reach; ring communicators follow a Hamiltonian
    cycle of the row's rails; pipeline stages take the fewest hops. Failed
    chips, links and OCS ports (`failed` on the fabric) are avoided. On a
    RailX fabric it also writes the circuit table as `plan.circuits`.
    The algorithm is `passes/Placement/Placement.h` (docs/placement.md).

    Before:
    ```mlir
    plan.job @train fabric @rx ranks 4 {
      plan.comm_group @dp ring ranks [0, 1, 2, 3]
    }
    ```
    After:
    ```mlir
    plan.job @train fabric @rx ranks 4 chips [(0, 0), (1, 0), (2, 0), (3, 0)] {
      plan.comm_group @dp ring ranks [0, 1, 2, 3] order [0, 1, 2, 3] hops 1
    }
    plan.circuits @rx_circuits { plan.circuit row 0 rail 0 cycle [...] ... }
    ```
    When no placement exists the pass fails with a diagnostic on the job
    that says why, with the numbers.
  }];
  let dependentDialects = ["::plexus::plan::PlanDialect"];
}

#endif // PLEXUS_PASSES_PLACEMENT_PASSES_TD
