//===- Passes.td - Passes over rt programs -----------------*- tablegen -*-===//
#ifndef PLEXUS_PASSES_SIMULATE_PASSES_TD
#define PLEXUS_PASSES_SIMULATE_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyRtPass : Pass<"plx-verify-rt", "::mlir::ModuleOp"> {
  let summary = "Check the plan contract of the per-rank rt programs";
  let description = [{
    The programs of a module (one `rt.program` per rank) must together be
    runnable: ranks are distinct and number 0..N-1, every peer and group
    member names a program, every send has its matching recv (same pair,
    tag and bytes, in order), the members of a collective agree on it, and
    no set of ranks waits on each other forever. The pass runs the programs
    through the event simulator with zero communication time and reports the
    first violation on the program it concerns, saying what each rank waits
    on.

    A split sequence's slices go forward in order and backward in reverse.
    Checked first, on each rank's program in program order, for every
    sequence and layer range `[layer_begin, layer_end)` of the
    `rt.compute` ops that carry `slices`: `fwd` ops see the sequence's
    slice indices strictly increase, `bwd` ops strictly decrease, and
    `recompute` ops strictly decrease; and when the rank runs that
    sequence's forward over that layer range, the backward of slice k comes
    after the forward of slice k. The first violation is reported on the
    offending `rt.compute`, with a note on the op it conflicts with:

    ```mlir
    rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [2]
    // error: runs the forward of slice 1 of sequence 4 (layers [0, 8))
    // after slice 2; a sequence's slices go forward in order
    rt.compute fwd layers [0, 8) stage 0 seqs [4] time 1.0 slices [1]
    ```
  }];
}

def SimulatePass : Pass<"plx-simulate", "::mlir::ModuleOp"> {
  let summary = "Predict the step time of the rt programs";
  let description = [{
    Runs the per-rank programs through the discrete-event simulator; compute
    takes its `time`. Communication takes:
    - with `job=NAME`: the fabric library's collective models
      (passes/Fabric/CollectiveModel.h) on the chips that `plx-place` gave
      the ranks of `plan.job @NAME`, on that job's `plx.fabric` (so the same
      programs can be compared on RailX and on a fat-tree), at
      `comm-efficiency` of line rate and, with `contention`, slowed by
      concurrent transfers on the same nodes
      (passes/Simulate/FabricCommTime.h);
    - otherwise an alpha-beta time on links of `link-bandwidth` bytes/s and
      `latency` seconds: ring all-reduce 2(p-1)/p S/B + 2(p-1)a;
      all-gather, reduce-scatter and all-to-all (p-1)/p S/B + (p-1)a, where
      S is the full buffer (p times the op's bytes for all-gather);
      send/recv a + S/B.
    Asynchronous collectives run on each rank's communication stream and
    `rt.wait` waits for them (passes/Simulate/EventSimulator.h).
    Attaches the results to the module: `plx.sim.step_time` (s),
    `plx.sim.bubble_fraction`, `plx.sim.flops` (the sum of the compute ops'
    `flops`) and, when a peak is known (the placed job's chip, or
    `peak-flops`), `plx.sim.mfu` = flops / (step time x ranks x peak); and
    per program `plx.sim.compute_time`, `plx.sim.comm_time` (blocking
    communication and waits), `plx.sim.overlapped_comm_time`,
    `plx.sim.idle_time` and `plx.sim.peak_mem` (bytes: `resident` plus the
    running sum of the compute ops' `mem`). With `trace=FILE` it writes a
    Chrome trace (one track per rank, one more per communication stream).
  }];
  let options = [
    Option<"linkBandwidth", "link-bandwidth", "double", "50e9",
           "bytes/s of a link between two ranks">,
    Option<"latency", "latency", "double", "5e-6",
           "seconds of latency per message or ring step">,
    Option<"tracePath", "trace", "std::string", "\"\"",
           "write a Chrome trace (Perfetto) to this file">,
    Option<"jobName", "job", "std::string", "\"\"",
           "time communication on the placed chips of this plan.job">,
    Option<"peakFlops", "peak-flops", "double", "0",
           "peak FLOP/s of one rank for MFU (default: the job's chip)">,
    Option<"commEfficiency", "comm-efficiency", "double", "0.78",
           "with job=: achieved fraction of the modeled link bandwidth">,
    Option<"contention", "contention", "bool", "true",
           "with job=: concurrent transfers across nodes share links">,
  ];
}

#endif // PLEXUS_PASSES_SIMULATE_PASSES_TD
