//===- Partitioning.h - Prefill micro-batches and decode splits -*- C++ -*-===//
//
// PipeSwift's co-designed partitioner (reference pipeswift_railx.md section
// 1.5): a prefill wave of total weight W (the sum of w(c, x) over its
// requests, StageCost.h) is cut into at most K micro-batches, K from a
// square-root rule, filled heaviest-first into the currently lightest
// micro-batch (LPT), the count being the one of least modelled wave time
// (below); the decoding requests are cut into P micro-batches, one per
// stage, by the same greedy over their KV lengths.
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
// Under DP-attention (ServingLayout.h) a request's attention runs only on
// the rank that holds its KV, while the rest of a layer (the MoE and its
// all-to-all) is shared by every chip of the stage; so a micro-batch lasts
// as long as its shared work plus the attention of its busiest rank, and
// two long-context requests of one rank cost twice as much in one
// micro-batch as two of different ranks. The wave cut then works on items
// of (shared, attention, rank): the greedy puts each item, heaviest first,
// where the micro-batch's cost (shared + busiest rank's attention) after
// adding it is least, which is plain LPT when every item has the same rank.
// (The scheduler prices an item's attention at what its rank alone takes:
// the weight's beta spreads attention over the group, so beta q x ranks.)
// The square-root rule assumes the work divides evenly into K pieces, which
// fails when one request, or one rank's requests, dominates: splitting a
// wave of eight long turns on eight ranks into eight micro-batches
// serialises attention that one micro-batch runs in parallel. So the cut
// evaluates the greedy for every K from the least the token limit allows up
// to the square-root rule's K (the optimum when the work does divide) and
// keeps the K of least modelled wave time
//   T = sum_b t_b + (P - 1) max_b t_b,  t_b = C_b / P + gamma,
// (a flow shop of P equal stages, which is T(K) above for equal buckets),
// ties to the smaller K (a K whose greedy leaves a micro-batch empty is
// skipped: it is a smaller cut). Decode repartitioning likewise keeps every
// rank balanced: an item (heaviest KV first) goes to the micro-batch where its
// own rank's KV is least (ties: the least total KV, then the lower
// micro-batch).
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

/// A request of a prefill wave for the rank-aware cut: work every chip of a
/// stage shares (alpha x), work only its attention rank does
/// (beta ((c + x)^2 - c^2)), the rank (0 when ranks are not modelled: one
/// rank then stands for all, and the cut is plain LPT) and its new tokens.
struct WaveItem {
  double shared = 0;
  double attention = 0;
  int64_t rank = 0;
  int64_t tokens = 0;
};

/// The greedy above into `buckets` micro-batches (>= 1), with the token
/// limit handled as in lptAssign. Returns the bucket of each item.
std::vector<int64_t> rankAwareAssign(const std::vector<WaveItem> &items,
                                     int64_t buckets,
                                     int64_t maxTokensPerBucket = 0);

/// Each bucket's cost: its shared work plus its busiest rank's attention.
std::vector<double> rankAwareCosts(const std::vector<WaveItem> &items,
                                   const std::vector<int64_t> &assignment,
                                   int64_t buckets);

/// T above for micro-batches of summed-over-stages costs `costs` through
/// `stages` equal stages with `gamma` per micro-batch and stage.
double pipelineSeconds(const std::vector<double> &costs, int64_t stages,
                       double gamma);

/// A wave's micro-batch count, its assignment and its modelled time.
struct WaveCut {
  int64_t microBatches = 0;
  std::vector<int64_t> assignment;
  double seconds = 0;
};

/// The cut above: K in [ceil(tokens / limit), prefillMicroBatchCount(...)]
/// (at least 1, at most the items) of least pipelineSeconds. An empty wave
/// gives K = 0.
WaveCut cutWave(const std::vector<WaveItem> &items, int64_t stages,
                double gamma, int64_t maxTokensPerMicroBatch);

/// Decode repartitioning with ranks: `ranks[i]` is request i's rank (all 0
/// for plain LPT by KV length).
std::vector<int64_t>
partitionByKvLengthAndRank(const std::vector<int64_t> &kvLengths,
                           const std::vector<int64_t> &ranks, int64_t stages);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_PARTITIONING_H
