//===- Optimizer.h - Parameter updates of the runtime -----------*- C++ -*-===//
//
// AdamW and plain SGD in fp32 (or double), element by element, so the update
// of a parameter depends only on its own gradient and state: a rank that
// holds a shard of the parameters (ZeRO) updates it exactly as a rank
// holding all of them would.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_OPTIMIZER_H
#define PLEXUS_RUNTIME_OPTIMIZER_H

#include "runtime/Model.h"
#include "runtime/Status.h"
#include "runtime/Tensor.h"

#include <vector>

namespace plexus::runtime {

struct AdamConfig {
  double learningRate = 1e-3;
  double beta1 = 0.9, beta2 = 0.999;
  double epsilon = 1e-8;
  double weightDecay = 0; ///< decoupled (AdamW): p -= lr * wd * p
};

/// Adam with bias correction and decoupled weight decay. Step t (from 1):
///   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2,
///   p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps) + lr wd p.
template <typename T> class Adam {
public:
  explicit Adam(AdamConfig config = {}) : config(config) {}

  /// One step over parallel lists of parameters and gradients (equal
  /// shapes). The first step fixes the list; later steps must pass tensors
  /// of the same shapes in the same order.
  Status step(const std::vector<BasicTensor<T> *> &params,
              const std::vector<const BasicTensor<T> *> &grads);
  /// The same over every tensor of a stage's weights.
  Status step(ModelWeights<T> &params, const ModelWeights<T> &grads);

  int64_t steps() const { return count; }

private:
  AdamConfig config;
  int64_t count = 0;
  std::vector<BasicTensor<T>> m, v;
};

/// p -= learningRate * g over parallel lists (equal shapes).
template <typename T>
Status sgdStep(const std::vector<BasicTensor<T> *> &params,
               const std::vector<const BasicTensor<T> *> &grads,
               double learningRate);
template <typename T>
Status sgdStep(ModelWeights<T> &params, const ModelWeights<T> &grads,
               double learningRate);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_OPTIMIZER_H
