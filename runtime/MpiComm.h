//===- MpiComm.h - The runtime's communication over MPI ---------*- C++ -*-===//
//
// One process per rank; world rank = MPI_COMM_WORLD rank. Each distinct
// group (its ranks in their ring order) gets one MPI communicator, created
// the first time this rank uses the group (MPI_Comm_create_group, collective
// over the group's members only) and kept until finalize(); the group's
// j-th rank is rank j of that communicator. Point-to-point messages travel
// on a private duplicate of MPI_COMM_WORLD, so their tags never meet MPI's
// own traffic.
//
// Every MPI call is checked: the communicators return errors instead of
// aborting (MPI_ERRORS_RETURN), and a failed call comes back as an error
// value naming the op, the rank, the group and MPI's own message.
//
// Reductions are summed by this library in group order (the blocks travel
// with MPI_Alltoall(v) and come back with MPI_Allgather(v), a ring's
// volume), not by MPI_Allreduce, whose order is the library's choice: results
// are reproducible and equal to the loopback's bit for bit.
//
// Open MPI's mpi.h is not included here, so that users of the interface need
// only its library at link time.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_MPICOMM_H
#define PLEXUS_RUNTIME_MPICOMM_H

#include "runtime/Comm.h"

#include <memory>

namespace plexus::runtime {

class MpiComm final : public Comm {
public:
  /// Initialises MPI unless it already is (then finalize() leaves it to
  /// whoever initialised it) and returns this process's Comm.
  static Result<std::unique_ptr<MpiComm>> create(int *argc, char ***argv);
  ~MpiComm() override;
  MpiComm(const MpiComm &) = delete;
  MpiComm &operator=(const MpiComm &) = delete;

  int rank() const override;
  int size() const override;

  /// Groups of two or more ranks this rank holds a communicator for.
  int64_t communicatorCount() const;
  /// The largest tag a message may carry (MPI_TAG_UB, at least 32767).
  int tagUpperBound() const;

  /// Frees the communicators and, if create() initialised MPI, finalises
  /// it. Every later call fails. The destructor does the same, silently.
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
  explicit MpiComm(std::unique_ptr<State> state);
  std::unique_ptr<State> state;
};

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_MPICOMM_H
