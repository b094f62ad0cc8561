//===- PlanPolish.h - Local search on FlexSP plans --------------*- C++ -*-===//
//
// The last step of FlexSP's adaptive planner (AdaptiveSp.h): a plan of a
// whole global batch, held with real sequence lengths, is improved by a
// deterministic local search under the profiled cost model (iteration = sum
// over micro-batches of beta1 + the slowest group's sum of t1). Also the
// micro-batch partition that deals sequences by work (the alternative to
// the blaster's contiguous cut). Plain C++, deterministic, errors as values.
//
// The search, repeated until nothing improves (or a step limit): for every
// micro-batch, take its slowest group and find the best of
//  - moving one of its sequences to any other group of any micro-batch,
//  - swapping one of its sequences with one of any other group,
//  - splitting it into two groups of half the degree (sequences dealt
//    longest first to the group that finishes earlier),
//  - merging it with the micro-batch's least loaded group of the same
//    degree into one group of twice the degree,
// where memory allows (capacity * degree tokens per group) and no group is
// left empty by a move; make it when it lowers the iteration time by more
// than a relative 1e-12, or, leaving it equal, when it frees GPU time
// (sum of degree x work; this crosses plateaus where several groups share
// the slowest time). When no such change is left, micro-batches are
// dropped, the shortest first, when moving each of their sequences
// (longest first) to the group of another micro-batch where it adds least
// makes the plan faster (it saves a beta1); the groups are polished again
// after each. Candidates are scanned in a fixed order and the first best
// kept, so the result depends only on the input.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_PLANPOLISH_H
#define PLEXUS_PASSES_ADAPTIVESP_PLANPOLISH_H

#include "passes/AdaptiveSP/SequenceBlaster.h"
#include "passes/Cost/ProfiledCostModel.h"

#include <cstdint>
#include <vector>

namespace plexus::adaptivesp {

/// t1(s, d) for every sequence of a batch and every candidate degree.
struct SequenceTimeTable {
  std::vector<int64_t> degrees;        // ascending
  std::vector<std::vector<double>> ms; // [sequence][degree index]
  std::vector<int64_t> lengths;
  double groupMs = 0;           // beta1
  double microBatchFloorMs = 0; // ProfiledModel::microBatchFloorMs
  int64_t capacityPerGpu = 0;
  int64_t gpus = 0; // N

  /// Index of `degree` in `degrees`, or degrees.size().
  size_t indexOf(int64_t degree) const;
  /// t1 of sequence `id` at `degree` (a candidate).
  double at(int64_t id, int64_t degree) const {
    return ms[id][indexOf(degree)];
  }
};

/// Errors: a degree the bandwidth table lacks, non-positive sizes.
Result<SequenceTimeTable> makeSequenceTimeTable(
    const cost::ProfiledModel &model, const cost::AllToAllBandwidthTable &bw,
    const std::vector<int64_t> &lengths, const std::vector<int64_t> &degrees,
    int64_t gpus, int64_t capacityPerGpu);

/// One SP group of a plan under search.
struct SearchGroup {
  int64_t degree = 0;
  std::vector<int64_t> ids;
  int64_t tokens = 0;
  double workMs = 0; // sum of t1; the group takes beta1 + workMs
};

using SearchMicroBatch = std::vector<SearchGroup>;
using SearchPlan = std::vector<SearchMicroBatch>;

/// beta1 + the slowest group's work; 0 when every group is empty.
double searchMicroBatchMs(const SequenceTimeTable &t,
                          const SearchMicroBatch &mb);
/// Sum over micro-batches of searchMicroBatchMs.
double searchPlanMs(const SequenceTimeTable &t, const SearchPlan &plan);

/// Recomputes every group's tokens and workMs from its ids.
void refreshSearchPlan(const SequenceTimeTable &t, SearchPlan &plan);

/// The local search of the file comment; returns the number of changes
/// made. Never makes the plan slower; the plan stays feasible. With
/// `freeGpuTies` false, only changes that make it faster are made (the
/// planner runs both and keeps the faster result: neither wins always).
int64_t polishPlan(const SequenceTimeTable &t, SearchPlan &plan,
                   int64_t maxSteps = 20000, bool freeGpuTies = true);

/// Iterated local search from `plan` (already polished): `rounds` times, a
/// copy of the current plan is kicked by one to four random changes (move
/// a sequence to another group of any micro-batch, or to a new group of
/// the smallest degree that holds it on a micro-batch's unused GPUs (plans
/// whose degrees sum to less than N; the planner's give idle GPUs empty
/// groups, which the move reaches); swap
/// two sequences of different groups; split a group into two of half the
/// degree; merge two groups of a micro-batch of equal degree; memory and the
/// candidate degrees always kept, no group emptied) and polished (polishPlan,
/// at most 2,000 steps). The kicked plan becomes the current one when it is
/// faster, or, slower by x ms, with probability exp(-x / (0.002 x the start
/// plan's time)) (simulated annealing's rule, so the search leaves a local
/// optimum). Returns the fastest plan seen (the start when nothing beats
/// it). Deterministic: the draws come from a std::mt19937_64 seeded with
/// `seed`, turned into integers and doubles by fixed arithmetic.
SearchPlan iteratedPolish(const SequenceTimeTable &t, const SearchPlan &plan,
                          int64_t rounds, uint64_t seed);

/// Deals the batch into `microBatches` micro-batches by work: sequences by
/// descending least GPU time w(s) = min_d d t1(s, d) (ties by id), each to
/// the micro-batch furthest below its work target among those with room
/// for its tokens (at most `clusterTokens`; ties to the earlier). Targets
/// are equal shares of the total work, or, with `longestSetsTarget`,
/// micro-batch 0 gets max(equal share, N t1 of the longest sequence at its
/// least-GPU-time degree among those where t1 <= tauMs (all when tauMs <=
/// 0; the planner passes the lower bound's tau*, IterationBound.h), and the
/// others share the rest: the micro-batch that must wait for the longest
/// sequence anyway is filled to that time. Ids per micro-batch
/// by descending length, ties by id. Errors: no room for some sequence, or
/// fewer sequences than micro-batches.
Result<std::vector<std::vector<int64_t>>>
dealByWork(const SequenceTimeTable &t, int64_t microBatches,
           int64_t clusterTokens, bool longestSetsTarget = false,
           double tauMs = 0);

/// Deals the batch level by level: with w(s) the least GPU time of s among
/// degrees where t1 <= tauMs (all degrees when there is none) and t(s) its
/// time there, each new micro-batch gets the work target max(N x the
/// largest t(s) left, the work left / the fewest micro-batches its tokens
/// need), and takes, by descending w (ties by id), every sequence left
/// that keeps it within the target and `clusterTokens` (the first always).
/// So the micro-batch that waits for a long sequence anyway is filled to
/// that time, and what is left is balanced over as few micro-batches as
/// memory allows. The count follows from the deal. Errors: a sequence that
/// fits no degree or exceeds clusterTokens.
Result<std::vector<std::vector<int64_t>>>
dealByLevels(const SequenceTimeTable &t, int64_t clusterTokens, double tauMs);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_PLANPOLISH_H
