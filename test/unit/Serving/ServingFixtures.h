//===- ServingFixtures.h - Shared models and tiny systems -------*- C++ -*-===//
#ifndef PLEXUS_TEST_UNIT_SERVING_SERVINGFIXTURES_H
#define PLEXUS_TEST_UNIT_SERVING_SERVINGFIXTURES_H

#include "dialects/Common/ChipCatalog.h"
#include "passes/Serving/ServingSystems.h"

#include <memory>
#include <vector>

namespace plexus::serving::testing {

/// GLM-4.7 as examples/pipeswift-glm47.plx describes it (GLM-4.5 figures).
inline cost::TransformerShape glm47() { return glm47LikeShape(); }

/// A small MoE with an MTP layer: 8 layers (1 dense), 8 experts.
inline cost::TransformerShape tinyMoe() {
  cost::TransformerShape s;
  s.layers = 8;
  s.denseLayers = 1;
  s.hidden = 1024;
  s.heads = 16;
  s.kvHeads = 4;
  s.ffn = 4096;
  s.experts = 8;
  s.topK = 2;
  s.sharedExperts = 1;
  s.moeFfn = 1024;
  s.mtpLayers = 1;
  s.vocab = 32000;
  s.dtype = cost::DType::BF16;
  return s;
}

inline ServingModel h800Model(const cost::TransformerShape &shape) {
  ServingModel m;
  m.shape = shape;
  m.hardware.chip = *cost::findChip("H800");
  m.hardware.chipsPerNode = 8;
  return m;
}

/// One turn.
inline AgentTurn turn(int64_t cached, int64_t fresh, int64_t output,
                      double tool = 0, std::vector<int32_t> accepted = {}) {
  AgentTurn t;
  t.cachedTokens = cached;
  t.newTokens = fresh;
  t.outputTokens = output;
  t.toolLatency = tool;
  t.mtpAccepted = std::move(accepted);
  return t;
}

inline AgentTask task(std::string id, std::vector<AgentTurn> turns) {
  AgentTask t;
  t.id = std::move(id);
  t.turns = std::move(turns);
  return t;
}

/// A colocated system of `instances` instances on the linear cost model
/// (the same coefficients on every stage).
inline ServingSystem linearSystem(int64_t stages,
                                  LinearStageCoefficients coefficients,
                                  SchedulerPolicy policy,
                                  int64_t instances = 1) {
  ServingSystem s;
  s.name = "linear";
  s.serving.instances = instances;
  s.serving.cost = std::make_shared<LinearStageCost>(
      std::vector<LinearStageCoefficients>(size_t(stages), coefficients));
  policy.stages = stages;
  policy.weight = s.serving.cost->prefillWeight();
  s.serving.policy = policy;
  return s;
}

} // namespace plexus::serving::testing

#endif // PLEXUS_TEST_UNIT_SERVING_SERVINGFIXTURES_H
