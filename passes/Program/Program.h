//===- Program.h - Per-rank programs as plain data ---------------*- C++ -*-===//
//
// What one rank does in a training step, as plain C++ (no MLIR): the ops of
// the `rt` dialect (rt.compute, rt.send, rt.recv, the four collectives,
// rt.wait) with their fields. The vocabulary between the stages that make
// and read programs: the lowering (passes/Lower) writes them, the
// discrete-event simulator (passes/Simulate) runs them, and the one rt
// conversion (passes/Program/RtPrograms.h) turns them into rt IR and back.
// A communication handed to a duration model (CommRequest, CommTime,
// CommTimeFn) is part of it, so that planners can time work the way the
// simulator will without depending on it.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_PROGRAM_PROGRAM_H
#define PLEXUS_PASSES_PROGRAM_PROGRAM_H

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace plexus::prog {

/// What an op does.
enum class OpKind { Compute, Send, Recv, Collective, Wait };

/// The pass a compute op runs (rt.compute's `kind`).
enum class ComputeKind { Fwd, Bwd, Recompute };

/// The kind of a communication handed to the duration callback.
enum class CommKind {
  PointToPoint,
  AllToAll,
  AllReduce,
  AllGather,
  ReduceScatter
};

/// What a collective's communicator is for (rt's `#rt<comm_kind>`): a
/// Ulysses group (Sp), a tensor-parallel group (Tp), a context-parallel
/// ring (Cp), the ranks that shard parameters at rest (Zero, ZeRO-3) or a
/// data-parallel group (Dp). The lowering sets it; code generation reads
/// it; the simulator does not need it.
enum class GroupKind { Sp, Tp, Cp, Zero, Dp };

/// Printable names: "fwd", "send", "all_reduce", "zero", ...
const char *toString(OpKind k);
const char *toString(ComputeKind k);
const char *toString(CommKind k);
const char *toString(GroupKind k);

/// A communicator's members in ring order. Immutable and shared: every op
/// over the same communicator can hold the same list (the lowering interns
/// them), so a step stores each group's members once, not once per op and
/// member. Reads like a const std::vector<int64_t>.
class Members {
public:
  Members() = default;
  Members(std::vector<int64_t> ranks) // NOLINT: implicit on purpose
      : list(std::make_shared<const std::vector<int64_t>>(std::move(ranks))) {}
  Members(std::initializer_list<int64_t> ranks)
      : Members(std::vector<int64_t>(ranks)) {}

  const std::vector<int64_t> &vec() const { return list ? *list : none(); }
  operator const std::vector<int64_t> &() const { // NOLINT: implicit
    return vec();
  }
  size_t size() const { return vec().size(); }
  bool empty() const { return vec().empty(); }
  std::vector<int64_t>::const_iterator begin() const { return vec().begin(); }
  std::vector<int64_t>::const_iterator end() const { return vec().end(); }
  int64_t operator[](size_t i) const { return vec()[i]; }
  int64_t front() const { return vec().front(); }
  int64_t back() const { return vec().back(); }
  /// Identity of the shared list: equal for copies of one Members (caches
  /// key on it); null for an empty default.
  const void *id() const { return list.get(); }
  bool operator==(const Members &o) const {
    return list == o.list || vec() == o.vec();
  }
  bool operator!=(const Members &o) const { return !(*this == o); }
  friend bool operator==(const Members &a, const std::vector<int64_t> &b) {
    return a.vec() == b;
  }
  friend bool operator==(const std::vector<int64_t> &a, const Members &b) {
    return a == b.vec();
  }
  friend bool operator!=(const Members &a, const std::vector<int64_t> &b) {
    return !(a == b);
  }
  friend bool operator!=(const std::vector<int64_t> &a, const Members &b) {
    return !(a == b);
  }

private:
  static const std::vector<int64_t> &none() {
    static const std::vector<int64_t> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<int64_t>> list;
};

/// One op of a rank's program. Only the fields of its kind are meaningful;
/// build ops with the factory functions.
struct Op {
  OpKind kind = OpKind::Compute;
  // Compute.
  std::string label;
  ComputeKind computeKind = ComputeKind::Fwd;
  double seconds = 0;
  int64_t memoryDeltaBytes = 0; ///< applied when the op starts
  // What a compute op covers (rt.compute's fields; the simulator only
  // carries them): layers [layerBegin, layerEnd) of pipeline stage `stage`
  // over sequences `seqs` (slice `slices[i]` of seqs[i] when `slices` is
  // not empty), performing `flops` floating-point operations on this rank.
  int64_t layerBegin = 0, layerEnd = 1, stage = 0;
  std::vector<int64_t> seqs;
  std::vector<int64_t> slices;
  double flops = 0;
  // Compute: the Ulysses group its attention runs in (rt.compute's
  // `ulysses`); none when ulyssesRanks is empty. Carried, not simulated:
  // the group's rt.all_to_all ops account for its traffic.
  std::string ulysses;
  Members ulyssesRanks;
  // Send / Recv.
  int64_t peer = -1;
  int64_t tag = 0;
  // Send / Recv: with `carries`, the message holds the forward's hidden
  // states (computeKind Fwd) or the backward's gradient (Bwd) of `seqs`,
  // slice `slices[i]` of seqs[i] (rt's `carries`). Collective: with
  // `carriesLayers`, the buffer holds the parameters or gradients of
  // layers [layerBegin, layerEnd) (rt's `layers`). Neither is simulated.
  bool carries = false;
  bool carriesLayers = false;
  // Send / Recv / Collective: bytes of the message or of each rank's buffer.
  int64_t bytes = 0;
  // Collective.
  CommKind commKind = CommKind::AllReduce;
  GroupKind groupKind = GroupKind::Dp; ///< what the communicator is for
  std::string group;          ///< communicator id, the same on every member
  Members ranks; ///< members in ring order
  bool async = false;         ///< runs on the rank's communication stream
  // Wait: how many asynchronous collectives may still be unfinished.
  int64_t pending = 0;

  static Op compute(std::string label, ComputeKind kind, double seconds,
                    int64_t memoryDeltaBytes = 0);
  static Op send(int64_t peer, int64_t bytes, int64_t tag = 0);
  static Op recv(int64_t peer, int64_t bytes, int64_t tag = 0);
  static Op collective(CommKind kind, GroupKind groupKind, std::string group,
                       Members ranks, int64_t bytes,
                       bool async = false);
  static Op wait(int64_t pending = 0);

  /// Marks a send or recv as carrying `kind`'s tensor of these slices.
  void carry(ComputeKind kind, std::vector<int64_t> seqIds,
             std::vector<int64_t> sliceIds) {
    carries = true;
    computeKind = kind;
    seqs = std::move(seqIds);
    slices = std::move(sliceIds);
  }
  /// Marks a collective as carrying layers [begin, end).
  void carryLayers(int64_t begin, int64_t end) {
    carriesLayers = true;
    layerBegin = begin;
    layerEnd = end;
  }
};

/// Every field equal (member lists by value).
bool operator==(const Op &a, const Op &b);
inline bool operator!=(const Op &a, const Op &b) { return !(a == b); }

/// Everything one rank does in a step. Rank r's program is programs[r];
/// peers and group members are indices into that vector.
struct Program {
  std::vector<Op> ops;
  int64_t initialMemoryBytes = 0; ///< resident before the first op
};

/// Same initial memory and equal ops in order.
bool operator==(const Program &a, const Program &b);
inline bool operator!=(const Program &a, const Program &b) {
  return !(a == b);
}

/// A hash consistent with ==, for grouping equal programs: equal programs
/// whose member lists are shared (the same Members) hash alike. Equal
/// programs built with separate copies of a list may hash apart.
uint64_t hashProgram(const Program &program);

/// Sum of the `flops` of every compute op of every program.
double totalComputeFlops(const std::vector<Program> &programs);

/// One communication whose duration the callback decides.
struct CommRequest {
  CommKind kind = CommKind::PointToPoint;
  /// Point to point: {sender, receiver}. Collective: the group's members.
  std::vector<int64_t> ranks;
  /// A collective from a program: the op's shared member list (the same as
  /// `ranks`), so that a duration model can key a cache on its identity;
  /// empty otherwise.
  Members members;
  std::string group; ///< empty for point to point
  int64_t bytes = 0;
  int64_t tag = 0;         ///< point to point only
  double startSeconds = 0; ///< when the transfer begins
};

/// A callback's answer: a duration, or why there is none.
struct CommTime {
  double seconds = 0;
  std::string error; ///< empty on success
  CommTime() = default;
  CommTime(double s) : seconds(s) {} // NOLINT: implicit on purpose
  static CommTime failure(std::string why) {
    CommTime t;
    t.error = std::move(why);
    return t;
  }
};

/// Duration of a transfer or collective. Called in non-decreasing order of
/// startSeconds (ties broken by rank), so a stateful contention model sees
/// communications in time order.
using CommTimeFn = std::function<CommTime(const CommRequest &)>;

} // namespace plexus::prog

#endif // PLEXUS_PASSES_PROGRAM_PROGRAM_H
