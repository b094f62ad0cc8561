//===- ServingSystems.h - PipeSwift, its baselines, the planner -*- C++ -*-===//
//
// The serving systems the PipeSwift paper compares (reference
// pipeswift_railx.md sections 1.7 and 1.8), each a configuration of the one
// replay simulator, and the planner that chooses a layout and the wave
// interval I for a workload.
//
// Systems on a budget of `chips` chips (64 in the paper; 2P2D uses twice):
//  - PipeSwift: instances of PP2 x EP8 with DP-attention, the uneven layer
//    split (LayerSplit.h), MTP, prefill waves every I rounds cut by the
//    rank-aware greedy with K bounded by the square-root rule
//    (Partitioning.h), KV-balanced decode repartitioning.
//  - Wide EP (SGLang EP16): one stage of EP16 across two nodes with
//    DP-attention and MTP, prefill-first (I = 1), each prefill batch capped
//    at 16,384 new tokens (SGLang's default max_prefill_tokens); with
//    prefill-delay, SGLang's delayer modelled as a wave clock that starts
//    when a turn starts waiting, a cap of 30 delayed rounds (the delayer's
//    max passes in SGLang's sources) and an early start once every DP rank
//    (ep turns) has one waiting.
//  - vLLM-like PP2: the same PP2 x EP8 layout as PipeSwift, DP-attention
//    included (the reference's table: "same two-stage layout as
//    PipeSwift"; vLLM runs MoE experts expert-parallel under data-parallel
//    attention), with the even layer split, no MTP, prefill-first with one
//    prefill micro-batch capped at 8,192 tokens (vLLM's default batched
//    tokens), and requests pinned to the micro-batch (virtual engine) they
//    joined: no repartitioning and no flush between decode rounds. A
//    prefill still drains the pipeline first, as every wave does here
//    (vLLM mixes prefill chunks into one virtual engine's batch instead;
//    not modelled). dpAttention = false gives tensor-parallel attention (a
//    TP8 x PP2 launch), which our cost model favours on long contexts: the
//    bench shows it as a sensitivity.
//  - PD disaggregation (SGLang 2P2D): per unit an EP16 prefill instance
//    and an EP16 decode instance, both with DP-attention, MTP on the decode
//    side, on 2 x chips chips. The prefill side keeps prompt prefixes only;
//    the whole context's KV (all layers, bf16) is re-sent every turn through
//    the request's DP rank's NIC (one lane per rank, 1 ms of handshake per
//    transfer); transfers that end more than 300 s after their prefill fail
//    the run (SGLANG_DISAGGREGATION_WAITING_TIMEOUT's default). A turn's
//    prefill waits for the decode side's KV pre-allocation (its prompt plus
//    512 tokens, 512 kept per request held: SGLang's decode PreallocQueue).
// Memory: every system runs at the paper's memory utilisation 0.8, each in
// its runtime's reading (ServingLayout.h): the SGLang systems and PipeSwift
// (whose runtime is built from the same parts, DeepEP and DP-attention, and
// is compared with SGLang's paths) bound weights and the KV pool by it
// (MemoryBudget::StaticPool); vLLM bounds everything, activations included
// (MemoryBudget::Executor). The systems set this themselves, whatever the
// model's options say. With DP-attention the instance's scheduler pins
// tasks to the ep ranks (SchedulerPolicy::attentionRanks), unless the cost
// options assume the runtime spreads requests over the ranks.
// These are our renditions: the paper names the systems and versions but not
// their settings beyond those stated.
//
// The planner: I = `auto` is chosen per workload by replaying the workload
// at I in {1, 2, 4, ..., 512}, then at floor(b / sqrt 2) and ceil(b sqrt 2)
// around the best b (the geometric midpoints, rounded outwards); the least
// overall JCT wins, ties to the smaller I. The paper fixes I = 32 for every
// cell and names per-workload choice as future work. A layout left open is
// chosen by replaying every feasible (pp, ep, DP-attention) at I = 32 (on
// the first screenTasks tasks, default twice the concurrency) and sweeping I
// on the best few.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_SERVINGSYSTEMS_H
#define PLEXUS_PASSES_SERVING_SERVINGSYSTEMS_H

#include "passes/Serving/AgentWorkloads.h"
#include "passes/Serving/LayerSplit.h"
#include "passes/Serving/ReplaySimulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::serving {

/// The model and hardware a plan is for.
struct ServingModel {
  cost::TransformerShape shape;
  ServingHardware hardware;
  ServingCostOptions cost;
};

/// The reference's model (section 1.7): a GLM-4.7-like MoE with GLM-4.5's
/// figures (92 layers, 3 dense, hidden 5120, 96 heads of 128, 8 KV heads,
/// 160 experts top-8 and 1 shared of width 1536, one MTP layer, vocabulary
/// 151,552, FP8 weights), as examples/pipeswift-glm47.plx writes it.
cost::TransformerShape glm47LikeShape();

/// A decode micro-batch typical of `workload` on `instances` instances of
/// `stages` stages: every task of an instance decoding, spread over the
/// stages' micro-batches, each at the output-weighted mean of
/// prompt + output / 2 (the KV length halfway through a turn's decode).
/// Its maxKv is the busiest of `attentionRanks` DP-attention ranks' KV
/// (ceil(requests / ranks) requests), or one request's without ranks.
DecodeBatch representativeDecodeBatch(const AgentWorkload &workload,
                                      int64_t instances, int64_t stages,
                                      int64_t mtpDrafts,
                                      int64_t attentionRanks = 0);

/// An instance pool of `layout` on `chips` chips (chips / layout.chips()
/// instances): its cost model, its KV pages, and `policy` completed with
/// the role, stages, drafts, pages and prefill weight. With `balanceLayers`
/// and no stageLayers, the uneven split for `workload` is planned first.
/// Errors: a layout that does not divide the chips, does not fit, or is
/// invalid.
Result<InstancePool> buildInstancePool(const ServingModel &model,
                                       const AgentWorkload &workload,
                                       ServingLayout layout,
                                       SchedulerPolicy policy, int64_t chips,
                                       InstanceRole role, bool balanceLayers);

/// A colocated PipeSwift-style system of `layout` (DP-attention, MTP and
/// the split as the layout says; an empty split is balanced) scheduling
/// with wave interval `waveInterval`, micro-batches cut as Partitioning.h
/// says, of at most 32,768 new tokens, and KV-balanced repartitioning;
/// under DP-attention turns are placed on ranks by `routing`.
Result<ServingSystem>
pipeSwiftLikeSystem(const ServingModel &model, const AgentWorkload &workload,
                    int64_t chips, ServingLayout layout, int64_t waveInterval,
                    DpRouting routing = DpRouting::PinnedByTaskCount);

/// The systems above. `waveInterval` is PipeSwift's I (32 in the paper);
/// the degrees default to the paper's. vllmPp2System's `dpAttention`
/// chooses between the paper's layout (true) and TP attention.
Result<ServingSystem> pipeSwiftSystem(const ServingModel &model,
                                      const AgentWorkload &workload,
                                      int64_t chips, int64_t waveInterval = 32,
                                      int64_t mtpDrafts = 3, int64_t pp = 2,
                                      int64_t ep = 8);
Result<ServingSystem> wideEpSystem(const ServingModel &model,
                                   const AgentWorkload &workload, int64_t chips,
                                   bool prefillDelay, int64_t mtpDrafts = 3,
                                   int64_t ep = 16);
Result<ServingSystem> vllmPp2System(const ServingModel &model,
                                    const AgentWorkload &workload,
                                    int64_t chips, int64_t pp = 2,
                                    int64_t ep = 8, bool dpAttention = true);
Result<ServingSystem>
pdDisaggregatedSystem(const ServingModel &model, const AgentWorkload &workload,
                      int64_t chipsPerSide, int64_t mtpDrafts = 3,
                      double timeoutSeconds = 300, int64_t ep = 16);

/// A copy of a colocated system with its wave interval set to `interval`.
ServingSystem withWaveInterval(ServingSystem system, int64_t interval);

/// The overall JCT of each interval tried, in the order tried.
struct WaveIntervalSweep {
  std::vector<int64_t> intervals;
  std::vector<double> overallJct;
  int64_t best = 0;
  double bestJct = 0;
};

/// The default intervals: 1, 2, 4, ..., 512.
std::vector<int64_t> defaultWaveIntervals();

/// Chooses I for `workload` on a colocated `system` as described above
/// (`refine` adds the midpoints). Errors: a replay error, or no interval
/// whose replay completed.
Result<WaveIntervalSweep> chooseWaveInterval(
    const AgentWorkload &workload, const ServingSystem &system,
    const std::vector<int64_t> &candidates = defaultWaveIntervals(),
    bool refine = true);

/// One layout the planner considered.
struct LayoutCandidate {
  ServingLayout layout;
  int64_t instances = 0;
  int64_t kvTokens = 0;   // per instance
  std::string infeasible; // why it cannot run; empty when it can
  double screenedJct = 0; // overall JCT at I = 32 on the screening tasks
};

/// Every (pp, ep, DP-attention) with pp <= maxPp, ep dividing the experts
/// (1 for a dense model), pp * ep dividing `chips`, in the order pp, ep,
/// then TP attention before DP-attention; with their memory.
std::vector<LayoutCandidate> enumerateLayouts(const ServingModel &model,
                                              int64_t chips, int64_t mtpDrafts,
                                              int64_t maxPp = 4);

/// What the spec fixes; 0 (or -1 for dpAttention) leaves it to the planner.
struct ServingPlanRequest {
  int64_t chips = 0;
  int64_t pp = 0;
  int64_t ep = 0;
  int dpAttention = -1;
  /// How DP-attention places turns on ranks (layouts with DP-attention).
  DpRouting routing = DpRouting::PinnedByTaskCount;
  int64_t mtpDrafts = 0;
  int64_t waveInterval = 0; // 0 = auto
  int64_t screenTasks = 0;  // 0 = twice the concurrency
  int64_t layoutsToSweep = 3;
};

struct ServingPlan {
  ServingSystem system; // the chosen layout and I
  ServingLayout layout; // with its layer split
  int64_t waveInterval = 0;
  ReplayResult predicted;               // the whole workload
  WaveIntervalSweep sweep;              // empty when I was fixed
  std::vector<LayoutCandidate> layouts; // every candidate considered
};

/// Plans the PipeSwift-style system for `workload`. Errors: no feasible
/// layout, or a replay error.
Result<ServingPlan> planServing(const AgentWorkload &workload,
                                const ServingModel &model,
                                const ServingPlanRequest &request);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_SERVINGSYSTEMS_H
