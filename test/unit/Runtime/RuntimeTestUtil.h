//===- RuntimeTestUtil.h - Helpers shared by the runtime tests --*- C++ -*-===//
//
// Random tensors from fixed seeds, small model shapes, central finite
// differences, and the split of a batch into a Ulysses rank's local rows.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
#define PLEXUS_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H

#include "runtime/Model.h"
#include "runtime/Tensor.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

namespace plexus::runtime::testutil {

/// Uniform on [-bound, bound), from (seed, stream).
template <typename T>
BasicTensor<T> randomTensor(std::vector<int64_t> shape, uint64_t stream,
                            float bound = 1.0f, uint64_t seed = 12345) {
  BasicTensor<T> t(std::move(shape));
  fillUniform(t, streamKey(seed, stream), bound);
  return t;
}

/// A model small enough to check by finite differences: 4 query heads
/// sharing 2 K/V heads of width 4, hidden 16, ffn 24, vocab 11, weights
/// large enough (std 0.5) that every nonlinearity matters.
inline ModelConfig smallConfig(MlpKind mlp = MlpKind::SwiGLU,
                               int64_t layers = 2) {
  ModelConfig c;
  c.layers = layers;
  c.hidden = 16;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 4;
  c.ffn = 24;
  c.vocab = 11;
  c.mlp = mlp;
  c.initStd = 0.5f;
  return c;
}

/// Central difference of f at element i of x (restored afterwards).
inline double centralDifference(TensorD &x, int64_t i,
                                const std::function<double()> &f,
                                double eps = 1e-6) {
  const double saved = x[i];
  x[i] = saved + eps;
  const double up = f();
  x[i] = saved - eps;
  const double down = f();
  x[i] = saved;
  return (up - down) / (2 * eps);
}

/// Largest |analytic - numeric| over every element of x, relative to the
/// largest |numeric| (the finite-difference gradient of f wrt x).
inline double gradientError(TensorD &x, const TensorD &analytic,
                            const std::function<double()> &f) {
  TensorD numeric(x.shape());
  for (int64_t i = 0; i < x.numel(); ++i)
    numeric[i] = centralDifference(x, i, f);
  return normRelativeError(analytic, numeric);
}

/// sum(a * b) in double.
template <typename T>
double dotAll(const BasicTensor<T> &a, const BasicTensor<T> &b) {
  double s = 0;
  for (int64_t i = 0; i < a.numel(); ++i)
    s += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return s;
}

/// Rows `rows` of t, in that order.
template <typename T>
BasicTensor<T> takeRows(const BasicTensor<T> &t,
                        const std::vector<int64_t> &rows) {
  std::vector<int64_t> shape = t.shape();
  shape[0] = static_cast<int64_t>(rows.size());
  BasicTensor<T> out(shape);
  for (size_t r = 0; r < rows.size(); ++r)
    std::memcpy(out.row(static_cast<int64_t>(r)), t.row(rows[r]),
                sizeof(T) * static_cast<size_t>(t.rowSize()));
  return out;
}

/// Rows [begin, end).
template <typename T>
BasicTensor<T> rowRange(const BasicTensor<T> &t, int64_t begin, int64_t end) {
  std::vector<int64_t> rows;
  for (int64_t r = begin; r < end; ++r)
    rows.push_back(r);
  return takeRows(t, rows);
}

template <typename T>
std::vector<T> pick(const std::vector<T> &v, const std::vector<int64_t> &idx) {
  std::vector<T> out;
  for (int64_t i : idx)
    out.push_back(v[static_cast<size_t>(i)]);
  return out;
}

/// A model for the fp32 equivalences (model, executor): 4 query heads, 2
/// K/V heads of 8.
inline ModelConfig fp32Config(int64_t layers = 2) {
  ModelConfig c;
  c.layers = layers;
  c.hidden = 32;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 8;
  c.ffn = 48;
  c.vocab = 40;
  c.initStd = 0.2f;
  return c;
}

} // namespace plexus::runtime::testutil

#endif // PLEXUS_TEST_UNIT_RUNTIME_RUNTIMETESTUTIL_H
