//===- StageCost.h - Time of a micro-batch on a pipeline stage --*- C++ -*-===//
//
// The serving simulator's cost interface: how long one prefill or decode
// micro-batch occupies one pipeline stage, how long its hidden states take
// to reach the next stage, and the prefill weight
// w(c, x) = alpha x + beta ((c + x)^2 - c^2) the partitioner balances
// (reference pipeswift_railx.md sections 1.2 and 1.5). Two implementations:
//
// LinearStageCost, the reference's [D] form with hand-set coefficients per
// stage (unit tests compute replays by hand with it):
//   prefill = gamma + alpha X + beta Q, decode = d0 + d1 T + d2 S,
// where X is the micro-batch's new tokens, Q = sum (c+x)^2 - c^2, T the
// tokens verified (requests x (1 + drafts)) and S the sum of KV lengths.
//
// TransformerStageCost, a roofline model of a MoE transformer on a layout
// (ServingLayout.h). Per layer of a stage, on the chip with the most work:
//  - prefill compute: 2 X (attention + active MLP parameters) / ep at the
//    weights' dtype peak x gemmEfficiency, plus the attention core,
//    4 heads head_dim pairs with pairs = Q / 2, at the BF16 peak x
//    attentionEfficiency. Under DP-attention a request's attention runs on
//    one rank, so the core is max(Q / ep, maxQuadratic) / 2 pairs, the
//    busiest rank's work (PrefillBatch); under TP attention it is
//    Q / ep / 2 (dpAttentionSpreadsRequests drops the max, as if the
//    runtime split long requests over the ranks).
//  - decode: the larger of compute and HBM traffic (weights: attention, the
//    fixed MLP part, and the routed experts times the share that T tokens
//    activate, 1 - (1 - top_k / E)^T; KV: max(S / ep, maxKv) x KV per
//    token under DP-attention, maxKv being the busiest rank's (DecodeBatch),
//    S x the chip's KV heads under TP).
//  - EP all-to-all on every MoE layer, dispatch (FP8) and combine (BF16):
//    each chip sends its X / ep tokens to the distinct remote ranks holding
//    their experts, (ep - 1)(1 - (1 - 1/ep)^top_k) in expectation with
//    uniform routing, over NVLink; across n nodes, with interNodeDedup, once
//    per remote node, (n - 1)(1 - (1 - 1/n)^top_k), over the chip's NIC;
//    plus a latency per dispatch and per combine. TP attention adds a ring
//    all-reduce of the hidden states per layer.
//  - plus layerOverheadSeconds per layer; communication is added to
//    compute, less the commOverlap share of the smaller of the two.
//  - the last stage adds the LM head (vocabulary-parallel), sampling and,
//    with MTP, the draft steps: for decode, `drafts` passes of the MTP layer
//    and the LM head over one token per request (verify -> extend -> draft,
//    reference section 1.6); for prefill, the MTP layer over the new tokens
//    (the first drafts).
//  - a prefill micro-batch pays microBatchOverheadSeconds per stage (the
//    gamma of the partitioner).
//  - the hop to the next stage carries one hidden state per token
//    (activationBytesPerElement x hidden), spread over the ep chips, on
//    NVLink or the NICs as the placement says, plus a send latency; the
//    last stage's hop back to stage 0 carries the accepted lengths and
//    drafts (latency only).
// Its prefill weight sums the stages' per-token and per-Q terms (alpha,
// beta) and takes the largest per-micro-batch fixed cost of a stage as
// gamma; it ignores DP-attention's per-request imbalance, as the
// partitioner's weights do.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_STAGECOST_H
#define PLEXUS_PASSES_SERVING_STAGECOST_H

#include "passes/Serving/ServingLayout.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace plexus::serving {

/// A prefill micro-batch as the cost model sees it.
struct PrefillBatch {
  int64_t requests = 0;
  int64_t tokens = 0;   // X: new tokens computed
  double quadratic = 0; // Q: sum over requests of (c + x)^2 - c^2
  /// The attention work of the busiest DP-attention rank: the largest
  /// per-rank sum of (c + x)^2 - c^2 when the scheduler pins requests to
  /// ranks (WaveScheduler.h), else the largest single request's.
  double maxQuadratic = 0;
};

/// A decode micro-batch: one step of every request in it.
struct DecodeBatch {
  int64_t requests = 0;
  int64_t tokensPerRequest = 1; // 1 + MTP drafts (tokens verified)
  int64_t kvTokens = 0;         // S: sum of the requests' KV lengths
  /// The KV the busiest DP-attention rank reads: the largest per-rank sum
  /// when requests are pinned to ranks, else the longest request's.
  int64_t maxKv = 0;
  int64_t tokens() const { return requests * tokensPerRequest; }
};

/// The prefill weight w(c, x) = alpha x + beta ((c + x)^2 - c^2), summed
/// over the stages, and gamma, the fixed cost of a micro-batch on a stage.
struct PrefillWeight {
  double alpha = 0;
  double beta = 0;
  double gamma = 0;
  /// w(c, x): the incremental cost of extending a cached prefix of c tokens
  /// by x new ones. w(0, x) is a full prefill; w(c, 0) = 0.
  double operator()(int64_t cached, int64_t fresh) const;
};

/// Seconds of work a micro-batch puts on a stage.
class StageCostModel {
public:
  virtual ~StageCostModel() = default;
  virtual int64_t stages() const = 0;
  virtual double prefillSeconds(int64_t stage, const PrefillBatch &b) const = 0;
  virtual double decodeSeconds(int64_t stage, const DecodeBatch &b) const = 0;
  /// From the end of `stage` to the start of stage + 1 for `tokens` hidden
  /// states; for the last stage, the feedback to stage 0 (tokens ignored).
  virtual double hopSeconds(int64_t stage, int64_t tokens) const = 0;
  virtual PrefillWeight prefillWeight() const = 0;
};

/// The reference's linear form, one coefficient set per stage.
struct LinearStageCoefficients {
  double prefillFixed = 0;    // gamma, seconds per micro-batch
  double prefillPerToken = 0; // alpha, seconds per new token
  double prefillPerQuad = 0;  // beta, seconds per unit of (c+x)^2 - c^2
  double decodeFixed = 0;     // d0, seconds per step
  double decodePerToken = 0;  // d1, seconds per verified token
  double decodePerKv = 0;     // d2, seconds per KV token read
  double hopFixed = 0;        // seconds per hop to the next stage
  double hopPerToken = 0;     // seconds per hidden state sent
};

class LinearStageCost final : public StageCostModel {
public:
  explicit LinearStageCost(std::vector<LinearStageCoefficients> perStage)
      : c(std::move(perStage)) {}
  int64_t stages() const override { return int64_t(c.size()); }
  double prefillSeconds(int64_t stage, const PrefillBatch &b) const override;
  double decodeSeconds(int64_t stage, const DecodeBatch &b) const override;
  double hopSeconds(int64_t stage, int64_t tokens) const override;
  PrefillWeight prefillWeight() const override;

private:
  std::vector<LinearStageCoefficients> c;
};

/// The roofline model above. Build it with create().
class TransformerStageCost final : public StageCostModel {
public:
  /// Errors: an invalid layout (checkServingLayout), a chip without peaks,
  /// efficiencies outside (0, 1], commOverlap outside [0, 1].
  static Result<std::shared_ptr<const TransformerStageCost>>
  create(const cost::TransformerShape &shape, const ServingHardware &hw,
         const ServingLayout &layout, const ServingCostOptions &options);

  int64_t stages() const override { return layout.pp; }
  double prefillSeconds(int64_t stage, const PrefillBatch &b) const override;
  double decodeSeconds(int64_t stage, const DecodeBatch &b) const override;
  double hopSeconds(int64_t stage, int64_t tokens) const override;
  PrefillWeight prefillWeight() const override;

  /// Decode seconds of decoder layer `index` alone (no stage extras), for
  /// the layer split.
  double decodeLayerSeconds(int64_t index, const DecodeBatch &b) const;
  /// Decode seconds a stage spends besides its layers: the last stage's LM
  /// head, sampling and MTP drafts; 0 on other stages.
  double decodeStageExtraSeconds(int64_t stage, const DecodeBatch &b) const;
  /// Bytes one token sends between nodes on one MoE layer's all-to-all
  /// (dispatch + combine), 0 when the EP group sits in one node; and on a
  /// stage boundary (one hidden state), 0 when it stays in a node.
  double interNodeBytesPerTokenPerMoeLayer() const;
  double interNodeBytesPerTokenPerBoundary(int64_t stage) const;

  const ServingLayout &servingLayout() const { return layout; }

private:
  TransformerStageCost() = default;
  double layerPrefill(bool dense, const PrefillBatch &b) const;
  double layerDecode(bool dense, const DecodeBatch &b) const;
  double allToAllSeconds(double tokens) const;
  double allReduceSeconds(double tokens) const;
  double combine(double compute, double comm) const;

  cost::TransformerShape shape;
  ServingHardware hw;
  ServingLayout layout;
  ServingCostOptions options;
  std::vector<int64_t> dense, moe; // layer counts per stage by kind
  std::vector<int64_t> firstLayer; // first layer index per stage
  double gemmPeak = 0, attnPeak = 0, hbm = 0;
  LayerBytesPerChip denseBytes, moeBytes, mtpBytes;
  double attnParams = 0, denseActive = 0, moeActive = 0;
  double kvPerTokenLayer = 0; // per chip holding the token
  double remoteRanks = 0, remoteNodes = 0;
};

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_STAGECOST_H
