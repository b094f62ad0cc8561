//===- Ulysses.cpp - Token and head layouts of Ulysses SP -----------------===//
#include "runtime/Ulysses.h"

#include <cstring>

namespace plexus::runtime {

Status checkUlysses(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                    int &index) {
  if (!sp.comm)
    return Status::error("Ulysses group " + groupString(sp.ranks) +
                         " has no comm");
  index = sp.comm->indexIn(sp.ranks);
  if (index < 0)
    return Status::error("rank " + std::to_string(sp.comm->rank()) +
                         " is not in its Ulysses group " +
                         groupString(sp.ranks));
  const int64_t n = static_cast<int64_t>(sp.ranks.size());
  for (size_t s = 0; s < slices.size(); ++s)
    if (slices[s].tokens % n != 0)
      return Status::error("slice " + std::to_string(s) + " has " +
                           std::to_string(slices[s].tokens) +
                           " tokens, which do not split over Ulysses degree " +
                           std::to_string(n));
  return Status::success();
}

std::vector<int64_t> localRows(const std::vector<Slice> &slices, int64_t degree,
                               int64_t index) {
  std::vector<int64_t> rows;
  int64_t offset = 0;
  for (const Slice &s : slices) {
    const int64_t part = s.tokens / degree;
    for (int64_t q = 0; q < part; ++q)
      rows.push_back(offset + index * part + q);
    offset += s.tokens;
  }
  return rows;
}

std::vector<int64_t> localPositions(const std::vector<Slice> &slices,
                                    int64_t degree, int64_t index) {
  std::vector<int64_t> positions;
  for (const Slice &s : slices) {
    const int64_t part = s.tokens / degree;
    for (int64_t q = 0; q < part; ++q)
      positions.push_back(s.context + index * part + q);
  }
  return positions;
}

namespace {

int64_t totalTokens(const std::vector<Slice> &slices) {
  int64_t t = 0;
  for (const Slice &s : slices)
    t += s.tokens;
  return t;
}

/// Shared start of both exchanges: argument checks and the rows of each
/// member's local tokens.
Status prepare(const UlyssesGroup &sp, const std::vector<Slice> &slices,
               size_t inCount, size_t outCount, const char *what, int &index,
               std::vector<std::vector<int64_t>> &rowsOf) {
  PLXRT_TRY(checkUlysses(sp, slices, index));
  if (inCount != outCount || inCount == 0)
    return Status::error(std::string(what) + ": " + std::to_string(inCount) +
                         " inputs for " + std::to_string(outCount) +
                         " outputs");
  const int64_t n = static_cast<int64_t>(sp.ranks.size());
  rowsOf.clear();
  for (int64_t i = 0; i < n; ++i)
    rowsOf.push_back(localRows(slices, n, i));
  return Status::success();
}

} // namespace

template <typename T>
Status tokensToHeads(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                     const std::vector<const BasicTensor<T> *> &in,
                     const std::vector<BasicTensor<T> *> &out) {
  int index = -1;
  std::vector<std::vector<int64_t>> rowsOf;
  PLXRT_TRY(prepare(sp, slices, in.size(), out.size(), "tokens to heads", index,
                    rowsOf));
  const int64_t n = static_cast<int64_t>(sp.ranks.size());
  const int64_t local = static_cast<int64_t>(rowsOf[0].size());
  std::vector<int64_t> seg(in.size());
  int64_t block = 0;
  for (size_t m = 0; m < in.size(); ++m) {
    const BasicTensor<T> &t = *in[m];
    if (t.rank() != 3 || t.dim(0) != local || t.dim(1) % n != 0)
      return Status::error("tokens to heads: tensor " + std::to_string(m) +
                           " is " + shapeString(t.shape()) + ", expected [" +
                           std::to_string(local) + ", heads divisible by " +
                           std::to_string(n) + ", head_dim]");
    seg[m] = t.dim(1) / n * t.dim(2);
    block += local * seg[m];
    out[m]->resize({totalTokens(slices), t.dim(1) / n, t.dim(2)});
  }
  std::vector<T> sendBuf(static_cast<size_t>(n * block)),
      recvBuf(static_cast<size_t>(n * block));
  for (int64_t j = 0; j < n; ++j) {
    T *dst = sendBuf.data() + j * block;
    for (size_t m = 0; m < in.size(); ++m)
      for (int64_t r = 0; r < local; ++r, dst += seg[m])
        std::memcpy(dst, in[m]->row(r) + j * seg[m],
                    sizeof(T) * static_cast<size_t>(seg[m]));
  }
  PLXRT_TRY(sp.comm->allToAll(sp.ranks, sendBuf.data(), recvBuf.data(), block)
                .withContext("Ulysses tokens to heads"));
  for (int64_t i = 0; i < n; ++i) {
    const T *src = recvBuf.data() + i * block;
    for (size_t m = 0; m < in.size(); ++m)
      for (int64_t r = 0; r < local; ++r, src += seg[m])
        std::memcpy(
            out[m]->row(rowsOf[static_cast<size_t>(i)][static_cast<size_t>(r)]),
            src, sizeof(T) * static_cast<size_t>(seg[m]));
  }
  return Status::success();
}

template <typename T>
Status headsToTokens(const UlyssesGroup &sp, const std::vector<Slice> &slices,
                     const std::vector<const BasicTensor<T> *> &in,
                     const std::vector<BasicTensor<T> *> &out) {
  int index = -1;
  std::vector<std::vector<int64_t>> rowsOf;
  PLXRT_TRY(prepare(sp, slices, in.size(), out.size(), "heads to tokens", index,
                    rowsOf));
  const int64_t n = static_cast<int64_t>(sp.ranks.size());
  const int64_t local = static_cast<int64_t>(rowsOf[0].size());
  const int64_t tokens = totalTokens(slices);
  std::vector<int64_t> seg(in.size());
  int64_t block = 0;
  for (size_t m = 0; m < in.size(); ++m) {
    const BasicTensor<T> &t = *in[m];
    if (t.rank() != 3 || t.dim(0) != tokens)
      return Status::error("heads to tokens: tensor " + std::to_string(m) +
                           " is " + shapeString(t.shape()) + ", expected [" +
                           std::to_string(tokens) + ", heads, head_dim]");
    seg[m] = t.rowSize();
    block += local * seg[m];
    out[m]->resize({local, t.dim(1) * n, t.dim(2)});
  }
  std::vector<T> sendBuf(static_cast<size_t>(n * block)),
      recvBuf(static_cast<size_t>(n * block));
  for (int64_t i = 0; i < n; ++i) {
    T *dst = sendBuf.data() + i * block;
    for (size_t m = 0; m < in.size(); ++m)
      for (int64_t r = 0; r < local; ++r, dst += seg[m])
        std::memcpy(
            dst,
            in[m]->row(rowsOf[static_cast<size_t>(i)][static_cast<size_t>(r)]),
            sizeof(T) * static_cast<size_t>(seg[m]));
  }
  PLXRT_TRY(sp.comm->allToAll(sp.ranks, sendBuf.data(), recvBuf.data(), block)
                .withContext("Ulysses heads to tokens"));
  for (int64_t j = 0; j < n; ++j) {
    const T *src = recvBuf.data() + j * block;
    for (size_t m = 0; m < in.size(); ++m)
      for (int64_t r = 0; r < local; ++r, src += seg[m])
        std::memcpy(out[m]->row(r) + j * seg[m], src,
                    sizeof(T) * static_cast<size_t>(seg[m]));
  }
  return Status::success();
}

template Status tokensToHeads(const UlyssesGroup &, const std::vector<Slice> &,
                              const std::vector<const BasicTensor<float> *> &,
                              const std::vector<BasicTensor<float> *> &);
template Status tokensToHeads(const UlyssesGroup &, const std::vector<Slice> &,
                              const std::vector<const BasicTensor<double> *> &,
                              const std::vector<BasicTensor<double> *> &);
template Status headsToTokens(const UlyssesGroup &, const std::vector<Slice> &,
                              const std::vector<const BasicTensor<float> *> &,
                              const std::vector<BasicTensor<float> *> &);
template Status headsToTokens(const UlyssesGroup &, const std::vector<Slice> &,
                              const std::vector<const BasicTensor<double> *> &,
                              const std::vector<BasicTensor<double> *> &);

} // namespace plexus::runtime
