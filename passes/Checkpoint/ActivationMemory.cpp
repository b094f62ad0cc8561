//===- ActivationMemory.cpp - Per-chunk activation memory of DPP ----------===//
//
// Eqs. 5-10 of the reference in the linear form I_p - F l. See
// ActivationMemory.h.
//
//===----------------------------------------------------------------------===//
#include "passes/Checkpoint/ActivationMemory.h"

namespace plexus::ckpt {

namespace {

constexpr double kBytesPerMB = 1024.0 * 1024.0;

double gpus(const ActivationModel &m) {
  return static_cast<double>(m.spDegree * m.stages);
}

bool lastStage(const ActivationModel &m, int64_t stage) {
  return stage == m.stages - 1;
}

/// MB per token per layer of one GPU for `elements` elements per token.
double elementsMB(const ActivationModel &m, int64_t elements) {
  return static_cast<double>(m.bytesPerElement * elements) /
         static_cast<double>(m.spDegree) / kBytesPerMB;
}

} // namespace

std::string activationModelProblem(const ActivationModel &m) {
  if (m.layers < 1 || m.stages < 1 || m.spDegree < 1)
    return "layers, stages and the SP degree must be at least 1";
  if (m.layers % m.stages != 0)
    return std::to_string(m.layers) + " layers do not split evenly over " +
           std::to_string(m.stages) + " stages";
  if (m.hidden < 1 || m.kvDim < 0 || m.bytesPerElement < 1)
    return "hidden size and bytes per element must be positive and the KV "
           "dimension non-negative";
  if (!(m.tokenMB > 0) || !(m.logitsMB >= 0))
    return "activation MB per token must be positive and logits MB per "
           "token non-negative";
  return "";
}

int64_t layersPerStage(const ActivationModel &m) {
  return m.stages > 0 ? m.layers / m.stages : 0;
}

double baseActivationMB(const ActivationModel &m, int64_t stage,
                        const ChunkFootprint &chunk) {
  const double tokens = static_cast<double>(chunk.tokens);
  double perToken = m.tokenMB / gpus(m);
  if (lastStage(m, stage))
    perToken += m.logitsMB / static_cast<double>(m.spDegree);
  const double dkv = 2.0 * elementsMB(m, m.kvDim) *
                     static_cast<double>(layersPerStage(m)) *
                     static_cast<double>(chunk.kvTokens);
  return perToken * tokens + dkv;
}

double savedMBPerCheckpointedLayer(const ActivationModel &m,
                                   const ChunkFootprint &chunk) {
  const double tokens = static_cast<double>(chunk.tokens);
  const double layerShare = m.tokenMB / static_cast<double>(m.layers) /
                            static_cast<double>(m.spDegree);
  return (layerShare - elementsMB(m, m.hidden)) * tokens -
         2.0 * elementsMB(m, m.kvDim) * static_cast<double>(chunk.kvTokens);
}

double activationMB(const ActivationModel &m, int64_t stage,
                    const ChunkFootprint &chunk, int64_t checkpointedLayers) {
  return baseActivationMB(m, stage, chunk) -
         savedMBPerCheckpointedLayer(m, chunk) *
             static_cast<double>(checkpointedLayers);
}

double fullyCheckpointedMB(const ActivationModel &m, int64_t stage,
                           const ChunkFootprint &chunk) {
  const double layers = static_cast<double>(layersPerStage(m));
  const double tokens = static_cast<double>(chunk.tokens);
  const double kvTokens = static_cast<double>(chunk.kvTokens);
  const double inputs = elementsMB(m, m.hidden) * layers * tokens;
  const double kv = 2.0 * elementsMB(m, m.kvDim) * layers * kvTokens;
  const double dkv = kv; // dK, dV: the same elements as K, V
  const double logits =
      lastStage(m, stage)
          ? m.logitsMB / static_cast<double>(m.spDegree) * tokens
          : 0.0;
  return inputs + kv + dkv + logits;
}

} // namespace plexus::ckpt
