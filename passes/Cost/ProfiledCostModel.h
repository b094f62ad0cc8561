//===- ProfiledCostModel.h - FlexSP's profiled cost model -----*- C++ -*-===//
//
// The cost model of the FlexSP paper (Wang et al., ASPLOS'25) in the form its
// code uses it: profiled compute coefficients (alpha1 s^2 + alpha2 s per
// sequence, beta1 per group), a per-degree all-to-all bandwidth table,
// activation megabytes per token and the parameter count at a context limit.
// It exists so that the paper's published figures can be reproduced with the
// paper's own model (reference flexsp_dpp.md section 1.4 and section 4 items
// 1-4); the analytic model elsewhere in passes/Cost is the one Plexus plans
// with. Plain C++, deterministic, errors as values. Units follow the
// reference: milliseconds, MB = 2^20 bytes, GB/s, Gi parameters (2^30).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_COST_PROFILEDCOSTMODEL_H
#define PLEXUS_PASSES_COST_PROFILEDCOSTMODEL_H

#include "passes/Support/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plexus::cost {

using ::plexus::Result; // passes/Support/Result.h

/// Profiled coefficients of one model (FlexSP code `optimizer_param_dict`).
struct ProfiledModel {
  std::string name;
  double alpha1 = 0;        // ms per token^2 (attention), per GPU at SP=1
  double alpha2 = 0;        // ms per token (everything linear)
  double beta1 = 0;         // ms, charged once per SP group per micro-batch
  /// ms no micro-batch can go below (0 in the paper's profiles): a model
  /// derived from a spec sets it to the ZeRO-3 traffic of one pass over
  /// the layers, which bounds a micro-batch when that traffic, not the
  /// groups' compute, is the slower (passes/Train/FlexSpModel.h).
  double microBatchFloorMs = 0;
  int64_t layers = 0;       // L
  int64_t hidden = 0;       // h
  double actMBPerToken = 0; // activation MB per token, whole model
  /// The 7B profile uses a different activation figure on a 16-GPU cluster
  /// (2.668764648); 0 = no override.
  double actMBPerTokenOn16 = 0;
  double paramsGi4K = 0;   // parameter count (Gi) at a 4K context
  double paramsGi192K = 0; // ... at 192K
  double paramsGi384K = 0; // ... at 384K
};

/// The paper's gpt-7b, gpt-13b and gpt-30b, in that order.
const std::vector<ProfiledModel> &flexspModels();
std::optional<ProfiledModel> findProfiledModel(std::string_view name);

/// All-to-all bandwidth (GB/s) per SP degree. Degree 1 needs no all-to-all
/// and is never looked up.
struct AllToAllBandwidthTable {
  std::vector<std::pair<int64_t, double>> gbPerSecond; // (degree, GB/s)
};

/// The table FlexSP trains with: 8 nodes x 8 A100, "4k seq, 2 IB":
/// {2: 119.54, 4: 104.07, 8: 96.5, 16: 10.33, 32: 5.94, 64: 4.87}.
AllToAllBandwidthTable flexspA100Bandwidth();

/// GB/s at `degree`; +infinity at degree 1; an error for a degree the table
/// does not list.
Result<double> allToAllBandwidth(const AllToAllBandwidthTable &table,
                                   int64_t degree);

/// Parameter count (Gi) at a context limit given in K tokens (the code's
/// `seq_limit_k`): the tabulated values at 4, 192 and 384, linear
/// interpolation strictly between 192 and 384, an error elsewhere.
Result<double> paramsGiAtContext(const ProfiledModel &m, double contextK);

/// Activation MB per token on an `gpus`-GPU cluster.
double activationMBPerToken(const ProfiledModel &m, int64_t gpus);

/// Fraction of the 16 B/param model states each GPU holds under ZeRO `zero`
/// over `gpus` GPUs (mixed precision): 1, 6/8/N + 2/8, 7/8/N + 1/8, 1/N.
Result<double> zeroRatio(int64_t zero, int64_t gpus);

/// Model-state MB per GPU: paramsGi * 16 * zeroRatio * 1024.
Result<double> modelStateMB(double paramsGi, int64_t zero, int64_t gpus);

/// Tokens one GPU can hold in `memoryGB`:
/// floor((memoryGB * 1024 - modelStateMB) / activationMBPerToken).
/// An error when the model states alone do not fit.
Result<int64_t> tokenCapacityPerGpu(const ProfiledModel &m, double paramsGi,
                                      double memoryGB, int64_t gpus,
                                      int64_t zero = 3);

/// Smallest power-of-two SP degree whose GPUs can hold `tokens`:
/// 2^ceil(log2(ceil(tokens / capacity))).
Result<int64_t> minSpDegree(int64_t tokens, int64_t capacityPerGpu);

/// One sequence's time on one SP group, split as the code splits it.
struct SequenceTime {
  double computeMs = 0;  // (alpha1 s^2 + alpha2 s) / d
  double allToAllMs = 0; // 0 at d = 1
  double totalMs() const { return computeMs + allToAllMs; }
};

/// All-to-all megabytes one GPU moves for an s-token sequence at degree d:
/// 4 (Q, K, V, O) * 2 (fwd + bwd) * L * h * s * 2 bytes / 2^20 / d.
double allToAllMB(const ProfiledModel &m, int64_t tokens, int64_t degree);

/// t1(s, d) = (alpha1 s^2 + alpha2 s) / d + allToAllMB(s, d) / BW[d].
/// (MB / (GB/s) reads directly as ms, the code's convention.)
Result<SequenceTime> sequenceTime(const ProfiledModel &m,
                                    const AllToAllBandwidthTable &bw,
                                    int64_t tokens, int64_t degree);

/// One SP group of a micro-batch: its degree and the sequences it runs.
struct ProfiledGroup {
  int64_t degree = 1;
  std::vector<int64_t> sequences; // token counts
};

/// Sum of t1 over the group's sequences plus beta1. When capacityPerGpu > 0
/// a group holding more than capacity * degree tokens is an error.
Result<double> groupTimeMs(const ProfiledModel &m,
                             const AllToAllBandwidthTable &bw,
                             const ProfiledGroup &group,
                             int64_t capacityPerGpu = 0);

/// A micro-batch takes its slowest group.
Result<double> microBatchTimeMs(const ProfiledModel &m,
                                  const AllToAllBandwidthTable &bw,
                                  const std::vector<ProfiledGroup> &groups,
                                  int64_t capacityPerGpu = 0);

/// An iteration is the sum of its micro-batches.
Result<double>
iterationTimeMs(const ProfiledModel &m, const AllToAllBandwidthTable &bw,
                const std::vector<std::vector<ProfiledGroup>> &microBatches,
                int64_t capacityPerGpu = 0);

/// Sequence length above which attention (alpha1 s^2) exceeds the linear
/// part (alpha2 s): s* = alpha2 / alpha1.
double attentionCrossoverTokens(const ProfiledModel &m);

} // namespace plexus::cost

#endif // PLEXUS_PASSES_COST_PROFILEDCOSTMODEL_H
