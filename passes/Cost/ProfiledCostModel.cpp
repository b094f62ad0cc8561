//===- ProfiledCostModel.cpp - FlexSP's profiled per-sequence cost --------===//
//
// Coefficients are the FlexSP code's own (Hetu-Galvatron, branch flexsp,
// galvatron/flexsp_solver/solver.py `optimizer_param_dict`), at the precision
// the code carries; reference flexsp_dpp.md section 1.4 prints them rounded.
//
//===----------------------------------------------------------------------===//

#include "passes/Cost/ProfiledCostModel.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace plexus::cost {

namespace {

ProfiledModel makeModel(std::string name, double a1, double a2, double b1,
                        int64_t layers, int64_t hidden, double act,
                        double act16, double p4, double p192, double p384) {
  ProfiledModel m;
  m.name = std::move(name);
  m.alpha1 = a1;
  m.alpha2 = a2;
  m.beta1 = b1;
  m.layers = layers;
  m.hidden = hidden;
  m.actMBPerToken = act;
  m.actMBPerTokenOn16 = act16;
  m.paramsGi4K = p4;
  m.paramsGi192K = p192;
  m.paramsGi384K = p384;
  return m;
}

} // namespace

const std::vector<ProfiledModel> &flexspModels() {
  static const std::vector<ProfiledModel> models = {
      makeModel("gpt-7b", 5.128e-6, 183.9576e-3, 629.3563, 32, 4096,
                4.480441895, 2.668764648, 6.51, 7.1174468994140625,
                7.8498687744140625),
      makeModel("gpt-13b", 9.2852e-6, 306.0189e-3, 1132.5632, 40, 5120,
                4.220439453, 0, 12.3568, 13.11605453491211, 14.03158187866211),
      makeModel("gpt-30b", 15.4262e-6, 803.5742e-3, 2789.3644, 60, 6656,
                3.417381836, 0, 30.538, 31.52513885498047, 32.71532440185547),
  };
  return models;
}

std::optional<ProfiledModel> findProfiledModel(std::string_view name) {
  for (const ProfiledModel &m : flexspModels())
    if (m.name == name)
      return m;
  return std::nullopt;
}

AllToAllBandwidthTable flexspA100Bandwidth() {
  return AllToAllBandwidthTable{{{2, 119.54},
                                 {4, 104.07},
                                 {8, 96.5},
                                 {16, 10.33},
                                 {32, 5.94},
                                 {64, 4.87}}};
}

Result<double> allToAllBandwidth(const AllToAllBandwidthTable &table,
                                   int64_t degree) {
  if (degree == 1)
    return Result<double>::ok(std::numeric_limits<double>::infinity());
  for (const auto &[d, gbs] : table.gbPerSecond)
    if (d == degree) {
      if (!(gbs > 0))
        return Result<double>::fail("all-to-all bandwidth at SP degree " +
                                      std::to_string(degree) +
                                      " is not positive");
      return Result<double>::ok(gbs);
    }
  return Result<double>::fail("no profiled all-to-all bandwidth for SP "
                                "degree " +
                                std::to_string(degree));
}

Result<double> paramsGiAtContext(const ProfiledModel &m, double contextK) {
  if (contextK == 4)
    return Result<double>::ok(m.paramsGi4K);
  if (contextK == 192)
    return Result<double>::ok(m.paramsGi192K);
  if (contextK == 384)
    return Result<double>::ok(m.paramsGi384K);
  if (contextK > 192 && contextK < 384)
    return Result<double>::ok(m.paramsGi192K +
                                (m.paramsGi384K - m.paramsGi192K) / 192.0 *
                                    (contextK - 192));
  return Result<double>::fail(
      "the profile of " + m.name +
      " gives parameter counts at 4K, 192K and 384K and interpolates only "
      "between 192K and 384K; context " +
      std::to_string(contextK) + "K is outside that");
}

double activationMBPerToken(const ProfiledModel &m, int64_t gpus) {
  if (gpus == 16 && m.actMBPerTokenOn16 > 0)
    return m.actMBPerTokenOn16;
  return m.actMBPerToken;
}

Result<double> zeroRatio(int64_t zero, int64_t gpus) {
  if (gpus <= 0)
    return Result<double>::fail("the GPU count must be positive, not " +
                                  std::to_string(gpus));
  double n = static_cast<double>(gpus);
  switch (zero) {
  case 0:
    return Result<double>::ok(1.0);
  case 1:
    return Result<double>::ok(6.0 / 8.0 / n + 2.0 / 8.0);
  case 2:
    return Result<double>::ok(7.0 / 8.0 / n + 1.0 / 8.0);
  case 3:
    return Result<double>::ok(1.0 / n);
  default:
    return Result<double>::fail("ZeRO stage must be 0..3, not " +
                                  std::to_string(zero));
  }
}

Result<double> modelStateMB(double paramsGi, int64_t zero, int64_t gpus) {
  Result<double> r = zeroRatio(zero, gpus);
  if (!r)
    return r;
  if (!(paramsGi > 0))
    return Result<double>::fail("the parameter count must be positive");
  return Result<double>::ok(paramsGi * 16.0 * *r * 1024.0);
}

Result<int64_t> tokenCapacityPerGpu(const ProfiledModel &m, double paramsGi,
                                      double memoryGB, int64_t gpus,
                                      int64_t zero) {
  Result<double> states = modelStateMB(paramsGi, zero, gpus);
  if (!states)
    return Result<int64_t>::fail(states.error);
  double act = activationMBPerToken(m, gpus);
  if (!(act > 0))
    return Result<int64_t>::fail("activation MB per token of " + m.name +
                                   " is not positive");
  double freeMB = memoryGB * 1024.0 - *states;
  if (!(freeMB >= act))
    return Result<int64_t>::fail(
        "model states of " + m.name + " take " + std::to_string(*states) +
        " MB per GPU, leaving no room for one token in " +
        std::to_string(memoryGB) + " GB");
  return Result<int64_t>::ok(static_cast<int64_t>(std::floor(freeMB / act)));
}

Result<int64_t> minSpDegree(int64_t tokens, int64_t capacityPerGpu) {
  if (tokens <= 0 || capacityPerGpu <= 0)
    return Result<int64_t>::fail(
        "sequence length and token capacity must be positive");
  int64_t gpus = (tokens + capacityPerGpu - 1) / capacityPerGpu;
  int64_t d = 1;
  while (d < gpus)
    d *= 2;
  return Result<int64_t>::ok(d);
}

double allToAllMB(const ProfiledModel &m, int64_t tokens, int64_t degree) {
  if (degree <= 1)
    return 0;
  double bytes = 4.0 * 2.0 * static_cast<double>(m.layers) *
                 static_cast<double>(m.hidden) * static_cast<double>(tokens) *
                 2.0;
  return bytes / 1024.0 / 1024.0 / static_cast<double>(degree);
}

Result<SequenceTime> sequenceTime(const ProfiledModel &m,
                                    const AllToAllBandwidthTable &bw,
                                    int64_t tokens, int64_t degree) {
  if (tokens < 0)
    return Result<SequenceTime>::fail("a sequence cannot have " +
                                        std::to_string(tokens) + " tokens");
  if (degree <= 0)
    return Result<SequenceTime>::fail("SP degree must be positive, not " +
                                        std::to_string(degree));
  Result<double> gbs = allToAllBandwidth(bw, degree);
  if (!gbs)
    return Result<SequenceTime>::fail(gbs.error);
  double s = static_cast<double>(tokens);
  SequenceTime t;
  t.computeMs = (m.alpha1 * s * s + m.alpha2 * s) / static_cast<double>(degree);
  t.allToAllMs = degree == 1 ? 0.0 : allToAllMB(m, tokens, degree) / *gbs;
  return Result<SequenceTime>::ok(t);
}

Result<double> groupTimeMs(const ProfiledModel &m,
                             const AllToAllBandwidthTable &bw,
                             const ProfiledGroup &group,
                             int64_t capacityPerGpu) {
  double sum = 0;
  int64_t tokens = 0;
  for (int64_t s : group.sequences) {
    Result<SequenceTime> t = sequenceTime(m, bw, s, group.degree);
    if (!t)
      return Result<double>::fail(t.error);
    sum += t->totalMs();
    tokens += s;
  }
  if (capacityPerGpu > 0 && tokens > capacityPerGpu * group.degree)
    return Result<double>::fail(
        "an SP group of degree " + std::to_string(group.degree) + " holds " +
        std::to_string(tokens) + " tokens, more than its " +
        std::to_string(capacityPerGpu * group.degree) + "-token capacity");
  return Result<double>::ok(sum + m.beta1);
}

Result<double> microBatchTimeMs(const ProfiledModel &m,
                                  const AllToAllBandwidthTable &bw,
                                  const std::vector<ProfiledGroup> &groups,
                                  int64_t capacityPerGpu) {
  if (groups.empty())
    return Result<double>::fail("a micro-batch needs at least one group");
  double worst = 0;
  for (const ProfiledGroup &g : groups) {
    Result<double> t = groupTimeMs(m, bw, g, capacityPerGpu);
    if (!t)
      return t;
    worst = std::max(worst, *t);
  }
  return Result<double>::ok(std::max(worst, m.microBatchFloorMs));
}

Result<double>
iterationTimeMs(const ProfiledModel &m, const AllToAllBandwidthTable &bw,
                const std::vector<std::vector<ProfiledGroup>> &microBatches,
                int64_t capacityPerGpu) {
  double sum = 0;
  for (const auto &mb : microBatches) {
    Result<double> t = microBatchTimeMs(m, bw, mb, capacityPerGpu);
    if (!t)
      return t;
    sum += *t;
  }
  return Result<double>::ok(sum);
}

double attentionCrossoverTokens(const ProfiledModel &m) {
  return m.alpha2 / m.alpha1;
}

} // namespace plexus::cost
