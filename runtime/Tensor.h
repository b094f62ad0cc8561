//===- Tensor.h - Dense row-major tensors of the runtime --------*- C++ -*-===//
//
// A tensor owns a contiguous row-major buffer and its shape. The runtime
// trains in fp32 (Tensor); the same code is instantiated for double
// (TensorD) so that tests can check gradients against finite differences
// without fp32 rounding in the way.
//
// Initialisation is counter-based: element i of a tensor is a pure function
// of (seed, stream, i), built from integer hashing and one exact scaling,
// so every rank, every layer range and every platform draws the same
// weights for the same (seed, stream), whatever else it initialises.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_TENSOR_H
#define PLEXUS_RUNTIME_TENSOR_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::runtime {

template <typename T> class BasicTensor {
public:
  BasicTensor() = default;
  /// A zero-filled tensor. A negative dimension counts as 0.
  explicit BasicTensor(std::vector<int64_t> shape);

  const std::vector<int64_t> &shape() const { return dims; }
  int64_t rank() const { return static_cast<int64_t>(dims.size()); }
  /// Dimension `i`; 0 when the tensor has fewer dimensions.
  int64_t dim(int64_t i) const;
  int64_t numel() const { return static_cast<int64_t>(values.size()); }
  bool empty() const { return values.empty(); }
  /// Rows (the first dimension) and the elements of one row.
  int64_t rows() const { return dims.empty() ? 0 : dims[0]; }
  int64_t rowSize() const;

  T *data() { return values.data(); }
  const T *data() const { return values.data(); }
  T *row(int64_t r) { return values.data() + r * rowSize(); }
  const T *row(int64_t r) const { return values.data() + r * rowSize(); }
  T &operator[](int64_t i) { return values[static_cast<size_t>(i)]; }
  const T &operator[](int64_t i) const {
    return values[static_cast<size_t>(i)];
  }

  void fill(T v);
  /// Reallocates to `shape`, zero-filled.
  void resize(std::vector<int64_t> shape);
  /// Changes the shape, keeping the elements; fails when the element
  /// counts differ.
  Status reshape(std::vector<int64_t> shape);
  /// Drops the buffer and the shape.
  void clear();

  /// Element-wise copy into another element type.
  template <typename U> BasicTensor<U> convert() const {
    BasicTensor<U> out(dims);
    for (int64_t i = 0; i < numel(); ++i)
      out[i] = static_cast<U>(values[static_cast<size_t>(i)]);
    return out;
  }

  bool sameShape(const BasicTensor &o) const { return dims == o.dims; }
  /// Bitwise equality of shape and elements.
  bool identical(const BasicTensor &o) const;

private:
  std::vector<int64_t> dims;
  std::vector<T> values;
};

using Tensor = BasicTensor<float>;
using TensorD = BasicTensor<double>;

/// "[3, 4]".
std::string shapeString(const std::vector<int64_t> &shape);

/// A 64-bit key for the tensor `stream` of `seed` (e.g. one weight of one
/// layer): equal inputs give equal keys on every platform.
uint64_t streamKey(uint64_t seed, uint64_t stream);

/// The i-th draw of `key`, uniform on [0, 1) with 24 random bits: exactly
/// representable in fp32.
float uniformAt(uint64_t key, uint64_t i);

/// Fills `t` with values uniform on [-bound, bound): element i is
/// (2 uniformAt(key, i) - 1) * bound computed in fp32, then converted, so
/// an fp32 and a double tensor filled with the same key hold equal values.
template <typename T>
void fillUniform(BasicTensor<T> &t, uint64_t key, float bound);

/// Largest |a - b| / max(|b|, floor) over the elements (b is the
/// reference); infinity when the shapes differ.
template <typename T>
double maxRelativeError(const BasicTensor<T> &a, const BasicTensor<T> &b,
                        double floor = 1e-6);

/// max |a - b| / max |b|: the error relative to the reference's largest
/// element (0 when both are all zeros); infinity when the shapes differ.
/// Gradients are compared this way, as elements near 0 carry no relative
/// precision of their own.
template <typename T>
double normRelativeError(const BasicTensor<T> &a, const BasicTensor<T> &b);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_TENSOR_H
