//===- Optimizer.cpp - Parameter updates of the runtime -------------------===//
#include "runtime/Optimizer.h"

#include <cmath>

namespace plexus::runtime {

namespace {

template <typename T>
Status checkLists(const std::vector<BasicTensor<T> *> &params,
                  const std::vector<const BasicTensor<T> *> &grads,
                  const char *who) {
  if (params.size() != grads.size())
    return Status::error(std::string(who) + ": " +
                         std::to_string(params.size()) + " parameters but " +
                         std::to_string(grads.size()) + " gradients");
  for (size_t i = 0; i < params.size(); ++i) {
    if (!params[i] || !grads[i])
      return Status::error(std::string(who) + ": null tensor " +
                           std::to_string(i));
    if (!params[i]->sameShape(*grads[i]))
      return Status::error(
          std::string(who) + ": parameter " + std::to_string(i) + " is " +
          shapeString(params[i]->shape()) + " but its gradient is " +
          shapeString(grads[i]->shape()));
  }
  return Status::success();
}

template <typename T>
Status collect(ModelWeights<T> &params, const ModelWeights<T> &grads,
               std::vector<BasicTensor<T> *> &p,
               std::vector<const BasicTensor<T> *> &g) {
  params.forEach(
      [&](const std::string &, BasicTensor<T> &t) { p.push_back(&t); });
  grads.forEach(
      [&](const std::string &, const BasicTensor<T> &t) { g.push_back(&t); });
  if (p.size() != g.size())
    return Status::error("optimizer: the parameters and the gradients hold "
                         "different tensors");
  return Status::success();
}

} // namespace

template <typename T>
Status Adam<T>::step(const std::vector<BasicTensor<T> *> &params,
                     const std::vector<const BasicTensor<T> *> &grads) {
  PLXRT_TRY(checkLists(params, grads, "adam"));
  if (count == 0) {
    m.clear();
    v.clear();
    for (const BasicTensor<T> *p : params) {
      m.emplace_back(p->shape());
      v.emplace_back(p->shape());
    }
  } else if (m.size() != params.size()) {
    return Status::error("adam: " + std::to_string(params.size()) +
                         " parameters, but the state holds " +
                         std::to_string(m.size()));
  }
  for (size_t i = 0; i < params.size(); ++i)
    if (!m[i].sameShape(*params[i]))
      return Status::error("adam: parameter " + std::to_string(i) +
                           " changed shape to " +
                           shapeString(params[i]->shape()));
  ++count;
  const double t = static_cast<double>(count);
  const T b1 = static_cast<T>(config.beta1), b2 = static_cast<T>(config.beta2);
  const T lr = static_cast<T>(config.learningRate);
  const T eps = static_cast<T>(config.epsilon);
  const T decay = static_cast<T>(config.learningRate * config.weightDecay);
  const T c1 = static_cast<T>(1.0 / (1.0 - std::pow(config.beta1, t)));
  const T c2 = static_cast<T>(1.0 / (1.0 - std::pow(config.beta2, t)));
  for (size_t i = 0; i < params.size(); ++i) {
    T *p = params[i]->data();
    const T *g = grads[i]->data();
    T *mi = m[i].data(), *vi = v[i].data();
    for (int64_t j = 0; j < params[i]->numel(); ++j) {
      mi[j] = b1 * mi[j] + (T(1) - b1) * g[j];
      vi[j] = b2 * vi[j] + (T(1) - b2) * g[j] * g[j];
      const T update = (mi[j] * c1) / (std::sqrt(vi[j] * c2) + eps);
      p[j] -= lr * update + decay * p[j];
    }
  }
  return Status::success();
}

template <typename T>
Status Adam<T>::step(ModelWeights<T> &params, const ModelWeights<T> &grads) {
  std::vector<BasicTensor<T> *> p;
  std::vector<const BasicTensor<T> *> g;
  PLXRT_TRY(collect(params, grads, p, g));
  return step(p, g);
}

template <typename T>
Status sgdStep(const std::vector<BasicTensor<T> *> &params,
               const std::vector<const BasicTensor<T> *> &grads,
               double learningRate) {
  PLXRT_TRY(checkLists(params, grads, "sgd"));
  const T lr = static_cast<T>(learningRate);
  for (size_t i = 0; i < params.size(); ++i) {
    T *p = params[i]->data();
    const T *g = grads[i]->data();
    for (int64_t j = 0; j < params[i]->numel(); ++j)
      p[j] -= lr * g[j];
  }
  return Status::success();
}

template <typename T>
Status sgdStep(ModelWeights<T> &params, const ModelWeights<T> &grads,
               double learningRate) {
  std::vector<BasicTensor<T> *> p;
  std::vector<const BasicTensor<T> *> g;
  PLXRT_TRY(collect(params, grads, p, g));
  return sgdStep(p, g, learningRate);
}

template class Adam<float>;
template class Adam<double>;
template Status sgdStep(const std::vector<BasicTensor<float> *> &,
                        const std::vector<const BasicTensor<float> *> &,
                        double);
template Status sgdStep(const std::vector<BasicTensor<double> *> &,
                        const std::vector<const BasicTensor<double> *> &,
                        double);
template Status sgdStep(ModelWeights<float> &, const ModelWeights<float> &,
                        double);
template Status sgdStep(ModelWeights<double> &, const ModelWeights<double> &,
                        double);

} // namespace plexus::runtime
