//===- NcclComm.h - The runtime's communication over NCCL -------*- C++ -*-===//
//
// The Comm interface (runtime/Comm.h) on GPUs: one process per rank, world
// rank = MPI_COMM_WORLD rank, one GPU per process.
//
// Buffers: every pointer passed to the collectives and to send/recv is a
// DEVICE pointer (cudaMalloc or managed memory) on this rank's device. The
// interface takes untyped pointers, so the CPU backend's signatures carry
// over unchanged; host Tensors must be mirrored to the device by the caller.
// A call enqueues its NCCL work on this comm's stream and waits for the
// stream before it returns, so the blocking semantics of Comm.h hold.
//
// Communicators: each distinct ordered rank list gets one ncclComm_t,
// created the first time this rank uses it: the list's first rank makes the
// ncclUniqueId, MPI broadcasts it over the list's members only, and the
// j-th listed rank joins as NCCL rank j (the ring order placement chose).
// As with MpiComm, members must meet a group's first use in the same order.
//
// Reductions: NCCL sums (ncclSum) in an order of its own choosing (ring or
// tree, by size and topology), NOT the group order Comm.h describes for the
// CPU backends. CUDA results are therefore close to, but not bit-identical
// with, MpiComm's and the loopback's, and may differ between NCCL versions
// or topologies.
//
// Point-to-point: NCCL has no tags. A message between two ranks travels on
// the pair's communicator ([sender, receiver] in increasing rank order), and
// messages of a pair are matched in the order they are sent, whatever their
// tags. To catch a mismatch instead of hanging or corrupting, each send
// first posts a small MPI header (tag, count, dtype); the receiver checks it
// against what it expects and fails with both sides' values when they
// differ. The program must therefore receive a pair's messages in the order
// they were sent.
//
// Errors: every CUDA, NCCL and MPI return code is checked; a failure comes
// back as an error naming the op, the rank, the group (or peer and tag) and
// the library's message. Nothing aborts.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_CUDA_NCCLCOMM_H
#define PLEXUS_RUNTIME_CUDA_NCCLCOMM_H

#include "runtime/Comm.h"

#include <memory>

namespace plexus::runtime::cuda {

class NcclComm final : public Comm {
public:
  /// Initialises MPI unless it already is, checks that a GPU is visible
  /// ("no CUDA device ..." otherwise), selects device `device`, or, when
  /// negative, the node-local rank modulo the device count, and makes this
  /// comm's stream.
  static Result<std::unique_ptr<NcclComm>> create(int *argc, char ***argv,
                                                  int device = -1);
  ~NcclComm() override;
  NcclComm(const NcclComm &) = delete;
  NcclComm &operator=(const NcclComm &) = delete;

  int rank() const override;
  int size() const override;

  /// The CUDA device this rank uses.
  int device() const;
  /// The stream the comm's work runs on (a cudaStream_t).
  void *stream() const;
  /// NCCL communicators this rank holds (groups and pairs of two or more).
  int64_t communicatorCount() const;

  /// Destroys the NCCL communicators and the stream and, if create()
  /// initialised MPI, finalises it. Every later call fails. The destructor
  /// does the same, silently.
  Status finalize();

protected:
  Status doAllToAll(const Group &group, int index, const void *in, void *out,
                    int64_t count, DType dtype) override;
  Status doAllReduce(const Group &group, int index, void *data, int64_t count,
                     DType dtype) override;
  Status doAllGather(const Group &group, int index, const void *in, void *out,
                     int64_t count, DType dtype) override;
  Status doReduceScatter(const Group &group, int index, const void *in,
                         void *out, int64_t count, DType dtype) override;
  Status doSend(int peer, const void *data, int64_t count, DType dtype,
                int tag) override;
  Status doRecv(int peer, void *data, int64_t count, DType dtype,
                int tag) override;

private:
  struct State;
  explicit NcclComm(std::unique_ptr<State> state);
  static Status setUp(State *s, int device);
  std::unique_ptr<State> state;
};

} // namespace plexus::runtime::cuda

#endif // PLEXUS_RUNTIME_CUDA_NCCLCOMM_H
