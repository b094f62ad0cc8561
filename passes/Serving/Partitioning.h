//===- Partitioning.h - Prefill micro-batches and decode splits -*- C++ -*-===//
//
// PipeSwift's co-designed partitioner (reference pipeswift_railx.md section
// 1.5): a prefill wave of total weight W (the sum of w(c, x) over its
// requests, StageCost.h) is cut into K micro-batches by a square-root rule
// and filled heaviest-first into the currently lightest micro-batch (LPT);
// the decoding requests are cut into P micro-batches, one per stage, by the
// same greedy over their KV lengths.
//
// The square-root rule is our reconstruction (reference section 1.5, [D]):
// a K-micro-batch wave through P stages takes
//   T(K) = (K + P - 1) (W / (K P) + gamma),
// whose real minimiser is K* = sqrt((P - 1) W / (P gamma)). T is convex in
// K, so the best integer is floor(K*) or ceil(K*); we evaluate both (ties to
// the smaller K) rather than round K*, which can miss by one. Then K is
// clamped to [1, requests] and raised to ceil(tokens / token limit). LPT
// breaks weight ties by the lower item index and bucket ties by the lower
// bucket index, so the result is a function of the inputs alone (the SPMD
// property); with a token limit it puts an item in the lightest bucket with
// room, or the lightest of all when none has room.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_PARTITIONING_H
#define PLEXUS_PASSES_SERVING_PARTITIONING_H

#include <cstdint>
#include <vector>

namespace plexus::serving {

/// T(K) above: the modelled time of a wave of work W in K micro-batches
/// through P stages with a fixed cost gamma per micro-batch and stage.
double waveSeconds(double work, int64_t stages, double gamma,
                   int64_t microBatches);

/// The real minimiser sqrt((P - 1) W / (P gamma)) of T (0 for one stage or
/// no work; +inf when gamma is 0 and there is work on several stages).
double sqrtRuleOptimum(double work, int64_t stages, double gamma);

/// The integer K >= 1 minimising T: floor or ceil of the optimum, the better
/// by T (the smaller on a tie), capped at `maxMicroBatches` (>= 1).
int64_t sqrtRuleMicroBatches(double work, int64_t stages, double gamma,
                             int64_t maxMicroBatches);

/// K for a wave of `requests` requests and `tokens` new tokens: the
/// square-root rule capped at the requests, then raised to
/// ceil(tokens / maxTokensPerMicroBatch) (no cap when 0), and at most
/// `requests` again. 0 requests give 0.
int64_t prefillMicroBatchCount(double work, int64_t stages, double gamma,
                               int64_t requests, int64_t tokens,
                               int64_t maxTokensPerMicroBatch);

/// Greedy LPT: items by descending weight (ties: lower index first), each
/// into the bucket with the least load so far (ties: lower bucket). With
/// `tokens` and a positive `maxTokensPerBucket`, only buckets that stay
/// within the limit are candidates while any does. Returns the bucket of
/// each item; buckets >= 1.
std::vector<int64_t> lptAssign(const std::vector<double> &weights,
                               int64_t buckets,
                               const std::vector<int64_t> &tokens = {},
                               int64_t maxTokensPerBucket = 0);

/// The load of each bucket under an assignment.
std::vector<double> bucketLoads(const std::vector<double> &weights,
                                const std::vector<int64_t> &assignment,
                                int64_t buckets);

/// Decode repartitioning: the requests' KV lengths into `stages` buckets by
/// LPT (equal KV sums mean roughly equal stage times, decode being
/// memory-bound).
std::vector<int64_t> partitionByKvLength(const std::vector<int64_t> &kvLengths,
                                         int64_t stages);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_PARTITIONING_H
