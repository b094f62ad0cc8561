//===- SequenceBlaster.h - FlexSP's micro-batch chunking --------*- C++ -*-===//
//
// The "sequence blaster" of FlexSP's adaptive SP planner (reference
// flexsp_dpp.md section 1.5): sort a global batch by descending length and
// cut it into M contiguous runs (micro-batches) so that the largest run's
// token sum is as small as possible, for a few candidate counts M starting
// at the least count the cluster's memory allows. Plain C++, deterministic,
// errors as values.
//
// Choices where the reference is silent:
//  - Equal lengths sort by ascending sequence id (a stable sort).
//  - Many partitions reach the same min-max token sum; we return the one
//    whose later micro-batches (the shorter sequences) take as many
//    sequences as the optimum allows, so the micro-batch holding the longest
//    sequences stays as light as possible.
//  - A micro-batch may hold exactly the cluster's token capacity: M grows
//    past ceil(tokens / capacity) only while some run holds more than the
//    capacity (the reference's code stops at "fewer than"; equality fits in
//    memory, so we accept it).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_ADAPTIVESP_SEQUENCEBLASTER_H
#define PLEXUS_PASSES_ADAPTIVESP_SEQUENCEBLASTER_H

#include "passes/Cost/ProfiledCostModel.h"
#include "passes/Support/Result.h"

#include <cstdint>
#include <vector>

namespace plexus::adaptivesp {

using ::plexus::Result; // passes/Support/Result.h

/// Sequence ids (indices into `lengths`) by descending length; equal lengths
/// keep ascending id order.
std::vector<int64_t>
sortByDescendingLength(const std::vector<int64_t> &lengths);

/// A cut of a token sequence into contiguous, non-empty runs.
struct ContiguousPartition {
  std::vector<size_t> ends; // exclusive end index of each run, ascending
  int64_t maxTokens = 0;    // the largest run's token sum
};

/// Min-max contiguous partition of `tokens` (in the given order) into
/// exactly `parts` non-empty runs, by the O(K^2 M) dynamic programme of the
/// reference (Eq. 24); ties as described in the file comment. Errors:
/// parts < 1, parts > tokens.size(), or a negative token count.
Result<ContiguousPartition> partitionMinMax(const std::vector<int64_t> &tokens,
                                            int64_t parts);

/// A global batch cut into micro-batches.
struct BlastedBatch {
  /// Sequence ids per micro-batch, each in descending-length order; the
  /// first micro-batch holds the longest sequences.
  std::vector<std::vector<int64_t>> microBatches;
  std::vector<int64_t> tokens; // per micro-batch
  int64_t maxTokens = 0;
};

/// Sorts by descending length and cuts into `microBatches` runs with
/// partitionMinMax. Errors as partitionMinMax, or a non-positive length.
Result<BlastedBatch> blastSequences(const std::vector<int64_t> &lengths,
                                    int64_t microBatches);

/// M_min: ceil(total tokens / clusterTokens), raised until the blasted
/// micro-batches each hold at most clusterTokens. 0 for an empty batch.
/// Errors: clusterTokens <= 0, a non-positive length, or a single sequence
/// longer than clusterTokens (no M can fit it).
Result<int64_t> minMicroBatchCount(const std::vector<int64_t> &lengths,
                                   int64_t clusterTokens);

/// The candidate counts M_min, M_min + 1, ..., M_min + trials - 1, cut at
/// the number of sequences (a micro-batch is never empty).
std::vector<int64_t> microBatchCandidates(int64_t minCount, int64_t trials,
                                          int64_t sequences);

} // namespace plexus::adaptivesp

#endif // PLEXUS_PASSES_ADAPTIVESP_SEQUENCEBLASTER_H
