//===- Ulysses.h - Token and head layouts of Ulysses SP ---------*- C++ -*-===//
//
// DeepSpeed-Ulysses sequence parallelism over a group of n ranks: every
// slice of the batch is cut into n equal parts, and the group's j-th rank
// holds part j of every slice (its "local" tokens, slice after slice). The
// token-local work of a layer (norms, projections, MLP) runs on the local
// tokens; the attention core needs every token of a slice, so one
// all-to-all turns the local tokens of all heads into all tokens of head
// group j (heads [j H/n, (j+1) H/n)), and another turns the core's output
// back. This file holds that layout and the two exchanges; the layer
// (runtime/Model.h) calls them around its attention core when it is given a
// group.
//
// Several tensors travel in one all-to-all: the block for rank j holds,
// tensor after tensor, the head group j of every local token.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_ULYSSES_H
#define PLEXUS_RUNTIME_ULYSSES_H

#include "runtime/Comm.h"
#include "runtime/Tensor.h"
#include "runtime/cpu/Kernels.h"

#include <vector>

namespace plexus::runtime {

/// A Ulysses group: the comm to use and the group's ranks in ring order.
/// This rank's position in `ranks` decides its token part and head group.
struct UlyssesGroup {
  Comm *comm = nullptr;
  Group ranks;
};

/// Checks that `sp` has a comm, that this rank is in it, and that every
/// slice's tokens split into `sp.ranks.size()` equal parts; sets `index`.
Status checkUlysses(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                    int &index);

/// The rows of the whole batch (slices laid end to end) that part `index`
/// of `degree` holds, in local order.
std::vector<int64_t> localRows(const std::vector<Slice> &slices, int64_t degree,
                               int64_t index);

/// The positions of those tokens: context + row within the slice.
std::vector<int64_t> localPositions(const std::vector<Slice> &slices,
                                    int64_t degree, int64_t index);

/// Local tokens [localTokens, H_m, d] of every tensor m to all tokens of
/// this rank's head group, [tokens, H_m / n, d], in one all-to-all. Every
/// H_m must be divisible by n. `out` tensors are resized.
template <typename T>
Status tokensToHeads(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                     const std::vector<const BasicTensor<T> *> &in,
                     const std::vector<BasicTensor<T> *> &out);

/// The inverse: all tokens of this rank's head group [tokens, G_m, d] to
/// the local tokens of every head, [localTokens, n G_m, d].
template <typename T>
Status headsToTokens(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                     const std::vector<const BasicTensor<T> *> &in,
                     const std::vector<BasicTensor<T> *> &out);

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_ULYSSES_H
