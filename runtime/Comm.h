//===- Comm.h - The runtime's communication interface -----------*- C++ -*-===//
//
// What a rank needs to talk to the others, in the vocabulary of the `rt`
// dialect: the four collectives over a group given as its ranks in ring
// order (the j-th rank of the group is the one that owns block j), and
// tagged point-to-point messages. Two implementations: MpiComm
// (runtime/MpiComm.h, one process per rank) and LoopbackWorld
// (runtime/LoopbackComm.h, every rank a thread of one process, for tests).
//
// Reductions are deterministic and the same in every implementation: each
// element is summed in group order, ((x_0 + x_1) + x_2) + ..., where x_j
// is the buffer of the group's j-th rank. A run therefore gives bit-for-bit
// the same numbers under MPI as under the loopback, on every re-run.
//
// Blocking semantics: a call returns when this rank's part is done. The
// asynchronous collectives and rt.wait of the dialect can run as blocking
// calls here (issue = run, wait = nothing); overlapping them is a backend
// matter for later.
//
// Every call checks its arguments first (the group is non-empty, its ranks
// are distinct and in the world, and it includes this rank; counts are
// non-negative) and returns an error naming the op and the rank instead of
// reaching the transport with bad input.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_COMM_H
#define PLEXUS_RUNTIME_COMM_H

#include "runtime/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::runtime {

/// Element types the communication layer moves and sums.
enum class DType { F32, F64 };

template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> {
  static constexpr DType value = DType::F32;
};
template <> struct DTypeOf<double> {
  static constexpr DType value = DType::F64;
};

/// Bytes per element: 4, 8.
int64_t bytesOf(DType dtype);

/// A communicator's members in ring order.
using Group = std::vector<int>;

/// "[0, 2, 1]".
std::string groupString(const Group &group);

/// acc[i] += x[i] for `count` elements of `dtype`: the one reduction step
/// every implementation uses.
void addInto(DType dtype, void *acc, const void *x, int64_t count);

class Comm {
public:
  virtual ~Comm() = default;

  /// This rank and the number of ranks in the world.
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// `in` holds n blocks of `count` elements (n = group size); block j
  /// goes to group[j]. `out` receives n blocks; block i came from
  /// group[i].
  Status allToAll(const Group &group, const void *in, void *out, int64_t count,
                  DType dtype);
  /// Sums `count` elements over the group in place: every member ends
  /// with the same sum, added in group order.
  Status allReduce(const Group &group, void *data, int64_t count, DType dtype);
  /// `out` receives the n buffers of `count` elements, in group order.
  Status allGather(const Group &group, const void *in, void *out, int64_t count,
                   DType dtype);
  /// `in` holds n blocks of `count` elements; group[j] receives in `out`
  /// the sum (in group order) of every member's block j.
  Status reduceScatter(const Group &group, const void *in, void *out,
                       int64_t count, DType dtype);
  /// Sends `count` elements to `peer` (not this rank) with `tag` (>= 0).
  /// The k-th send of a (sender, receiver, tag) matches the k-th recv.
  Status send(int peer, const void *data, int64_t count, DType dtype, int tag);
  /// Receives exactly `count` elements from `peer` with `tag`; a message
  /// of another size is an error.
  Status recv(int peer, void *data, int64_t count, DType dtype, int tag);

  template <typename T>
  Status allToAll(const Group &g, const T *in, T *out, int64_t count) {
    return allToAll(g, static_cast<const void *>(in), static_cast<void *>(out),
                    count, DTypeOf<T>::value);
  }
  template <typename T>
  Status allReduce(const Group &g, T *data, int64_t count) {
    return allReduce(g, static_cast<void *>(data), count, DTypeOf<T>::value);
  }
  template <typename T>
  Status allGather(const Group &g, const T *in, T *out, int64_t count) {
    return allGather(g, static_cast<const void *>(in), static_cast<void *>(out),
                     count, DTypeOf<T>::value);
  }
  template <typename T>
  Status reduceScatter(const Group &g, const T *in, T *out, int64_t count) {
    return reduceScatter(g, static_cast<const void *>(in),
                         static_cast<void *>(out), count, DTypeOf<T>::value);
  }
  template <typename T>
  Status send(int peer, const T *data, int64_t count, int tag) {
    return send(peer, static_cast<const void *>(data), count, DTypeOf<T>::value,
                tag);
  }
  template <typename T> Status recv(int peer, T *data, int64_t count, int tag) {
    return recv(peer, static_cast<void *>(data), count, DTypeOf<T>::value, tag);
  }

  /// This rank's index in `group`, or -1.
  int indexIn(const Group &group) const;

protected:
  // The implementations, called with checked arguments: `index` is this
  // rank's position in the group (n >= 1 members).
  virtual Status doAllToAll(const Group &group, int index, const void *in,
                            void *out, int64_t count, DType dtype) = 0;
  virtual Status doAllReduce(const Group &group, int index, void *data,
                             int64_t count, DType dtype) = 0;
  virtual Status doAllGather(const Group &group, int index, const void *in,
                             void *out, int64_t count, DType dtype) = 0;
  virtual Status doReduceScatter(const Group &group, int index, const void *in,
                                 void *out, int64_t count, DType dtype) = 0;
  virtual Status doSend(int peer, const void *data, int64_t count, DType dtype,
                        int tag) = 0;
  virtual Status doRecv(int peer, void *data, int64_t count, DType dtype,
                        int tag) = 0;

  /// "all_reduce on rank 3 over [0, 1, 2, 3]", the start of a message.
  std::string where(const char *op, const Group &group) const;
  /// "send on rank 3 to 4 (tag 2)".
  std::string where(const char *op, int peer, int tag) const;

private:
  /// The group's checks; on success `index` is this rank's position.
  Status checkGroup(const char *op, const Group &group, int64_t count,
                    bool hasData, int &index) const;
  Status checkPeer(const char *op, int peer, int64_t count, int tag,
                   bool hasData) const;
};

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_COMM_H
