//===- StepLowering.h - A planned step as per-rank programs -----*- C++ -*-===//
//
// Turns one planned training step (micro-batches of parallel groups, each
// with a layout of Ulysses SP, tensor, context and pipeline parallelism and
// the sequences it processes) into the program of every rank: compute ops
// with their FLOPs, time and memory, the collectives each layout needs, and
// the point-to-point messages of a 1F1B pipeline. Times come from the cost
// model (passes/Cost/TransformerCost.h); the programs mirror the rt dialect
// (passes/Program/Program.h), so the simulator runs them as they
// are and `plx-lower-to-rt` prints them as rt ops. The lowering never
// re-plans: a plan it cannot run is an error. Plain C++, deterministic,
// errors as values. Communication volumes and layouts: docs/lowering.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_LOWER_STEPLOWERING_H
#define PLEXUS_PASSES_LOWER_STEPLOWERING_H

#include "passes/Program/Program.h"
#include "passes/StepModel/StepPlan.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace plexus::lower {

struct LoweringOptions {
  /// Layers per compute op (and per ZeRO-3 gather): 1 is the finest grain.
  /// A stage's last op takes what is left.
  int64_t layersPerOp = 1;
};

/// A communicator's name: its kind and its ranks, ranges compressed
/// ("sp:0-7", "dp:0-56/8", "tp:3,9,12"). Equal rank sets of one kind get
/// the same name, so a runtime can create each communicator once.
std::string communicatorName(prog::GroupKind kind,
                             const std::vector<int64_t> &ranks);

struct LoweredStep {
  std::vector<prog::Program> programs; ///< programs[r] runs on rank r
  double totalFlops = 0;              ///< over every rank
  std::string error;                  ///< empty on success
  bool ok() const { return error.empty(); }
};

/// The ring orders placement chose (plan.comm_group's `order`), keyed by
/// the communicator's members in increasing order.
using RingOrders = std::map<std::vector<int64_t>, std::vector<int64_t>>;

/// Lists every communicator of `programs` whose members placement ordered
/// (a key of `orders`) in that order: collectives' ranks and compute ops'
/// Ulysses groups. Every op over one rank set names it the same way
/// afterwards, so the j-th listed rank is the same on every member (ZeRO
/// shard j, Ulysses part j), and a runtime builds its NCCL or MPI
/// communicator in the ring order placement chose.
void applyRingOrders(std::vector<prog::Program> &programs,
                     const RingOrders &orders);

/// Lowers `plan` to one program per rank. Checks that every micro-batch's
/// groups are disjoint and cover [0, world), that sequence ids have
/// lengths, that tensor and pipeline degrees are the same in every group of
/// the step (they decide which ranks share parameters), that a pipelined
/// step keeps the same groups in every micro-batch and uses ZeRO <= 2, and
/// that layers and heads split as the layout needs.
LoweredStep lowerStep(const step::StepPlan &plan, const step::TrainModel &model,
                      const LoweringOptions &options = {});

} // namespace plexus::lower

#endif // PLEXUS_PASSES_LOWER_STEPLOWERING_H
