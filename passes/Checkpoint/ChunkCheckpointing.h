//===- ChunkCheckpointing.h - Stage-aware chunk checkpointing ---*- C++ -*-===//
//
// How many layers each pipeline stage checkpoints for each chunk of one 1F1B
// pipeline of DPP (reference flexsp_dpp.md section 2.5, Eqs. 15-20): the
// fewest recomputed layers such that every stage's in-flight chunks fit its
// memory. The reference's observation: a recompute on one stage delays the
// whole pipeline by the same amount, so the backwards that run in the same
// 1F1B time slot (one anti-diagonal of the (stage, chunk) grid) can all
// recompute that much for free. One integer per slot, n + d_p - 1 of them
// for n chunks on d_p stages, each at most L / d_p:
//   slot(p, k) = b(k) + d_p - 1 - p      (b(k): k's position among backwards)
//   minimise  sum_t C[t]                 (T_ckpt = F^ sum_t C[t], Eq. 17)
//   s.t.      sum_{k in W} (I_p[k] - F[k] x(p, k)) <= G - M_ms(p)
//             for every stage p and every set W of chunks it holds at once
//             0 <= C[t] <= L / d_p, integer
// solved with CBC (COIN-OR, C API) to a relative gap (2 % by default, the
// reference's setting). The baselines - no checkpointing, full
// checkpointing and one uniform layer count - come from the same entry
// point. Plain C++, deterministic, errors as values.
//
// Choices where the reference is silent:
//  - Stage order. Each stage's order of forwards and backwards is an input
//    (dpp builds 1F1B orders); the windows W are read off it: the chunks in
//    flight after every forward that a backward (or the end) follows. Only
//    windows that do not fit without checkpointing become rows.
//  - Early stages checkpoint at least as much of a chunk as later ones
//    (CheckpointOptions::monotoneAcrossStages, on by default). With the
//    reference's tying x(p, k) = C[slot(p, k)], a chunk's stages read
//    consecutive slots, so this would force C to be non-decreasing over the
//    whole pipeline and checkpoint the packed chunks behind a long split
//    sequence as hard as the sequence itself. Instead the slot is the
//    delay budget of its time slot and a chunk checkpoints, on stage p,
//    x(p, k) = min over p' <= p of C[slot(p', k)]: never more than its slot
//    allows (so the delay, hence Eq. 17, is unchanged) and never more than
//    on an earlier stage. In the ILP the x(p, k) are continuous columns
//    bounded by those slots (the largest feasible value is that minimum,
//    and more checkpointing only frees memory), so the integer variables
//    stay the n + d_p - 1 slots. Switched off, x(p, k) = C[slot(p, k)]
//    exactly (Eq. 16 as printed).
//  - The returned slots are tightened to the most any (stage, chunk) of
//    their time slot checkpoints; recomputeLayers is their sum.
//  - The solve. The LP relaxation gives a bound (rounded up: the objective
//    is integral) and a start: its solution rounded up, then each slot
//    lowered as far as memory allows, the most rounded-up first. The
//    better of that and the uniform baseline (the least layer count that
//    fits everywhere) is the incumbent; when it is within the gap of the
//    bound it is the answer, else CBC searches from it and the result is
//    never worse. CBC runs single-threaded with fixed seeds, without cut
//    generators, primal heuristics, preprocessing or strong branching
//    (CheckpointOptions::leanSearch): with its defaults one 91-chunk solve
//    took 2.8 s, and its heuristics and its "mini branch-and-bound" for
//    small models ignore the node limit, so solves ran into the time
//    limit. Gap and node limits end the search deterministically; the time
//    limit is a safety net and the result says when it was reached. CBC is
//    not thread-safe, so solves are serialised process-wide (a lock of this
//    library's own: solves of passes/AdaptiveSP must not run concurrently
//    with these).
//  - What the solve costs, and what we do about it. Measured on two cores
//    planning 512-sequence GitHub-like batches (13B, 4 stages, K = 1..16):
//    at 40 GB a plan took 9 s, at 24 GB 150-250 s, nearly all of it in
//    branch and bound that ran to the 2000-node limit and improved the
//    rounded start by one or two layers in a hundred (it never moved the
//    LP bound: without cuts the bound is the LP's). Hence:
//    CheckpointOptions::branchAndBound = false stops after the LP and
//    returns the incumbent with the LP bound - what the DPP planner uses
//    to cost its many candidate pipelines, solving only the chosen ones to
//    the gap. The LP goes to CLP's dual simplex directly (through CBC the
//    same solve took twice as long; it runs without a time limit, as an LP
//    always ends), in one piece (row by row, CBC re-grew its matrix each
//    time, as dear as the LP itself). The monotone columns are chained,
//    x(p, k) <= x(p - 1, k) and x(p, k) <= its slot, two rows each instead
//    of p + 1 (the same feasible slots). And the rounding re-checks only
//    the windows holding a (stage, chunk) whose layers a lowered slot
//    changes, not every window.
//  - A backward needs working memory: recomputing a checkpointed layer
//    brings its activations back for the time of its backward. With
//    CheckpointProblem::backwardWorkingMemory, each window is charged, on
//    top of its chunks, one layer's saving F[k] of the chunk whose
//    backward follows it (whether or not that chunk is checkpointed: the
//    gradients of a layer's activations take about as much), so that a
//    plan that fits here fits the lowering's op-by-op memory. Off by
//    default, as in the reference's Eq. 18.
//  - Checkpointing a layer must save memory (F[k] > 0 for every chunk); a
//    model where it does not is an error, not a silent zero.
//  - Uniform: the least per-layer count that fits every window, unless
//    CheckpointOptions::uniformLayers fixes it.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_CHECKPOINT_CHUNKCHECKPOINTING_H
#define PLEXUS_PASSES_CHECKPOINT_CHUNKCHECKPOINTING_H

#include "passes/Checkpoint/ActivationMemory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::ckpt {

/// One pipeline's checkpointing problem, with the memory model applied.
/// Chunks are numbered 0..n-1 in forward order.
struct CheckpointProblem {
  int64_t stages = 0;         // d_p
  int64_t layersPerStage = 0; // L / d_p
  /// Per stage, its operations in execution order: k is the forward of
  /// chunk k, -(k + 1) its backward (passes/StepModel/OneFOneB.h
  /// convention). Every stage runs the backwards in the same order.
  std::vector<std::vector<int64_t>> stageOrders;
  std::vector<std::vector<double>> baseMB; // [stage][chunk]: I_p[k]
  std::vector<double> savedMBPerLayer;     // [chunk]: F[k] > 0
  std::vector<double> budgetMB;            // [stage]: G - M_ms(p)
  double layerForwardMs = 0;               // F^: one layer's forward
  /// Charge each window one layer of the following backward's chunk.
  bool backwardWorkingMemory = false;
};

/// Builds the problem from chunk footprints: I and F from `model`, budgets
/// memoryMB - modelStatesMB[p]. Errors: a bad model, sizes that do not
/// match, or a problem checkpointProblemViolation rejects.
Result<CheckpointProblem> makeCheckpointProblem(
    const ActivationModel &model, const std::vector<ChunkFootprint> &chunks,
    const std::vector<std::vector<int64_t>> &stageOrders, double memoryMB,
    const std::vector<double> &modelStatesMB, double layerForwardMs);

/// Empty when the problem is well formed: at least one stage and chunk,
/// every stage runs each chunk's forward once before its backward once,
/// backwards in the same order on every stage, sizes match, F > 0,
/// layersPerStage >= 0, layerForwardMs >= 0. Else the first problem.
std::string checkpointProblemViolation(const CheckpointProblem &p);

/// b(k): each chunk's position among the backwards (read off stage 0).
std::vector<int64_t> backwardPositions(const CheckpointProblem &p);

/// The time slot of chunk k's backward on stage `stage`:
/// b(k) + stages - 1 - stage (Eq. 16 with 0-based stages), in
/// [0, n + stages - 2].
int64_t checkpointSlot(const CheckpointProblem &p, int64_t stage,
                       int64_t chunk);

/// The chunk sets a stage holds at its memory peaks: the chunks in flight
/// after each forward that is followed by a backward or ends the order;
/// each set ascending.
std::vector<std::vector<int64_t>>
inFlightWindows(const std::vector<int64_t> &stageOrder);

enum class CheckpointStrategy {
  Adaptive, // the ILP
  None,     // no layer checkpointed
  Full,     // every layer of every stage and chunk
  Uniform,  // one layer count everywhere
};

/// "adaptive", "none", "full", "uniform".
const char *strategyName(CheckpointStrategy s);

struct CheckpointOptions {
  /// Stop once (incumbent - bound) / incumbent <= this (the reference: 2 %).
  double relativeGap = 0.02;
  /// Branch-and-bound nodes per ILP; 0 = no limit. Deterministic.
  int64_t nodeLimit = 2000;
  /// Wall-clock limit per ILP; 0 = none. Reaching it makes the result
  /// depend on the machine (CheckpointPlan::timeLimitReached says so).
  double timeLimitSeconds = 10;
  /// Early stages checkpoint at least as much of a chunk as later ones.
  bool monotoneAcrossStages = true;
  /// Switch off CBC's cut generators, primal heuristics, preprocessing and
  /// strong branching (see the file comment); false runs CBC as
  /// configured by default (its mini branch-and-bound stays off).
  bool leanSearch = true;
  /// Uniform only: the layer count; -1 = the least that fits.
  int64_t uniformLayers = -1;
  /// Adaptive only. false: stop after the LP - the plan is the better of
  /// the rounded LP solution and the uniform one, lowerBoundLayers the LP
  /// bound, and CBC's branch and bound does not run (how the DPP planner
  /// costs its many candidate pipelines).
  bool branchAndBound = true;
};

/// One pipeline's checkpointing.
struct CheckpointPlan {
  CheckpointStrategy strategy = CheckpointStrategy::Adaptive;
  std::vector<int64_t> slots;               // C: n + stages - 1 values
  std::vector<std::vector<int64_t>> layers; // [stage][chunk]: ckpt(p, k)
  int64_t recomputeLayers = 0;              // sum of slots
  double recomputeMs = 0;                   // layerForwardMs * that (Eq. 17)
  std::vector<double> peakMB;               // [stage]: largest window's MB
  // The adaptive solve (zero or false otherwise):
  double lowerBoundLayers = 0; // proved: by CBC, or the LP's without B&B
  bool solvedByCbc = false;    // false: no window needed checkpointing
  bool provenOptimal = false;  // within CBC's gap
  bool fromWarmStart = false;  // CBC improved neither start (LP rounding,
                               // uniform) or did not run
  bool timeLimitReached = false;
  int64_t nodes = 0, columns = 0, rows = 0;
};

/// Plans the checkpointing with `strategy`. Errors: a malformed problem, or
/// a window that does not fit with the strategy's checkpointing (for
/// Adaptive and Uniform: not even with every layer checkpointed); the
/// message names the stage, the chunks and the MB needed and available.
Result<CheckpointPlan>
planCheckpointing(const CheckpointProblem &p,
                  CheckpointStrategy strategy = CheckpointStrategy::Adaptive,
                  const CheckpointOptions &options = {});

/// [stage]: the largest window's activation MB with `layers` checkpointed.
std::vector<double>
peakActivationMB(const CheckpointProblem &p,
                 const std::vector<std::vector<int64_t>> &layers);

/// Empty when `plan` is a valid plan of `p`: layers within [0, L / d_p],
/// never above their slot, slots sized n + stages - 1 and summing to
/// recomputeLayers, and every window within its stage's budget. Else the
/// first violation.
std::string checkpointPlanViolation(const CheckpointProblem &p,
                                    const CheckpointPlan &plan);

} // namespace plexus::ckpt

#endif // PLEXUS_PASSES_CHECKPOINT_CHUNKCHECKPOINTING_H
