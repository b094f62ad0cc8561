//===- Tensor.cpp - Dense row-major tensors of the runtime ----------------===//
//
// The counter-based generator is SplitMix64's output function applied to
// key + golden-ratio increments: cheap, stateless, and of good enough
// quality for weight initialisation and synthetic data.
//
//===----------------------------------------------------------------------===//
#include "runtime/Tensor.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace plexus::runtime {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int64_t elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= std::max<int64_t>(d, 0);
  return n;
}

std::vector<int64_t> clampShape(std::vector<int64_t> shape) {
  for (int64_t &d : shape)
    d = std::max<int64_t>(d, 0);
  return shape;
}

} // namespace

template <typename T>
BasicTensor<T>::BasicTensor(std::vector<int64_t> shape)
    : dims(clampShape(std::move(shape))),
      values(static_cast<size_t>(elementCount(dims)), T(0)) {}

template <typename T> int64_t BasicTensor<T>::dim(int64_t i) const {
  return i >= 0 && i < rank() ? dims[static_cast<size_t>(i)] : 0;
}

template <typename T> int64_t BasicTensor<T>::rowSize() const {
  if (dims.empty())
    return 0;
  int64_t n = 1;
  for (size_t i = 1; i < dims.size(); ++i)
    n *= dims[i];
  return n;
}

template <typename T> void BasicTensor<T>::fill(T v) {
  std::fill(values.begin(), values.end(), v);
}

template <typename T> void BasicTensor<T>::resize(std::vector<int64_t> shape) {
  dims = clampShape(std::move(shape));
  values.assign(static_cast<size_t>(elementCount(dims)), T(0));
}

template <typename T>
Status BasicTensor<T>::reshape(std::vector<int64_t> shape) {
  shape = clampShape(std::move(shape));
  if (elementCount(shape) != numel())
    return Status::error("cannot reshape " + shapeString(dims) + " to " +
                         shapeString(shape));
  dims = std::move(shape);
  return Status::success();
}

template <typename T> void BasicTensor<T>::clear() {
  dims.clear();
  values.clear();
  values.shrink_to_fit();
}

template <typename T>
bool BasicTensor<T>::identical(const BasicTensor &o) const {
  return dims == o.dims &&
         (values.empty() || std::memcmp(values.data(), o.values.data(),
                                        values.size() * sizeof(T)) == 0);
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

uint64_t streamKey(uint64_t seed, uint64_t stream) {
  return mix64(mix64(seed + kGolden) ^
               (stream * kGolden + 0x2545f4914f6cdd1dULL));
}

float uniformAt(uint64_t key, uint64_t i) {
  uint64_t bits = mix64(key + (i + 1) * kGolden);
  return static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);
}

template <typename T>
void fillUniform(BasicTensor<T> &t, uint64_t key, float bound) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    float u = uniformAt(key, static_cast<uint64_t>(i));
    t[i] = static_cast<T>((2.0f * u - 1.0f) * bound);
  }
}

template <typename T>
double maxRelativeError(const BasicTensor<T> &a, const BasicTensor<T> &b,
                        double floor) {
  if (!a.sameShape(b))
    return std::numeric_limits<double>::infinity();
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double ref = static_cast<double>(b[i]);
    double diff = std::fabs(static_cast<double>(a[i]) - ref);
    double rel = diff / std::max(std::fabs(ref), floor);
    if (std::isnan(rel))
      return std::numeric_limits<double>::infinity();
    worst = std::max(worst, rel);
  }
  return worst;
}

template <typename T>
double normRelativeError(const BasicTensor<T> &a, const BasicTensor<T> &b) {
  if (!a.sameShape(b))
    return std::numeric_limits<double>::infinity();
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    double d = std::fabs(static_cast<double>(a[i]) - static_cast<double>(b[i]));
    if (std::isnan(d))
      return std::numeric_limits<double>::infinity();
    diff = std::max(diff, d);
    scale = std::max(scale, std::fabs(static_cast<double>(b[i])));
  }
  if (diff == 0)
    return 0;
  return scale == 0 ? std::numeric_limits<double>::infinity() : diff / scale;
}

template class BasicTensor<float>;
template class BasicTensor<double>;
template void fillUniform(BasicTensor<float> &, uint64_t, float);
template void fillUniform(BasicTensor<double> &, uint64_t, float);
template double maxRelativeError(const BasicTensor<float> &,
                                 const BasicTensor<float> &, double);
template double maxRelativeError(const BasicTensor<double> &,
                                 const BasicTensor<double> &, double);
template double normRelativeError(const BasicTensor<float> &,
                                  const BasicTensor<float> &);
template double normRelativeError(const BasicTensor<double> &,
                                  const BasicTensor<double> &);

} // namespace plexus::runtime
