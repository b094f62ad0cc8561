//===- LoopbackComm.h - Every rank a thread of one process ------*- C++ -*-===//
//
// A world of n ranks inside one process, for tests: run() starts one thread
// per rank, each with its own Comm, and the collectives meet in shared
// memory. The semantics are MPI's as the runtime uses them: the k-th
// collective a rank issues on a group matches the k-th of every other
// member; the k-th send of (sender, receiver, tag) matches the k-th recv.
// Sends are buffered. Reductions add in group order, exactly as MpiComm
// does, so results are bit-identical between the two.
//
// Misuse does not hang: members that disagree on a collective's op, count or
// type get an error; a rank waiting for a peer that has returned (or
// failed) gets an error; a message nobody received is reported by run().
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RUNTIME_LOOPBACKCOMM_H
#define PLEXUS_RUNTIME_LOOPBACKCOMM_H

#include "runtime/Comm.h"

#include <functional>
#include <memory>
#include <vector>

namespace plexus::runtime {

class LoopbackWorld {
public:
  /// A world of `size` ranks (at least 1).
  explicit LoopbackWorld(int size);
  ~LoopbackWorld();
  LoopbackWorld(const LoopbackWorld &) = delete;
  LoopbackWorld &operator=(const LoopbackWorld &) = delete;

  int size() const;

  /// Runs body(comm of rank r) on one thread per rank and waits for all.
  /// Returns success when every rank succeeded and every message was
  /// received; otherwise the error of the lowest rank that failed on its
  /// own (a rank that only saw a peer fail comes after), prefixed with
  /// "rank R". The world can run again afterwards.
  Status run(const std::function<Status(Comm &)> &body);

private:
  struct Shared;
  class RankComm;
  std::unique_ptr<Shared> shared;
  std::vector<std::unique_ptr<RankComm>> comms;
};

} // namespace plexus::runtime

#endif // PLEXUS_RUNTIME_LOOPBACKCOMM_H
