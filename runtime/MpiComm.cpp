//===- MpiComm.cpp - The runtime's communication over MPI -----------------===//
//
// An all-reduce is a reduce-scatter followed by an all-gather, like a ring:
// the buffer is cut into n nearly equal blocks (the first count mod n one
// element longer), MPI_Alltoallv brings every member's copy of block j to
// the group's j-th rank, which adds them in group order, and
// MPI_Allgatherv hands the sums back. Each rank sends and receives
// 2 (n - 1) / n of the buffer, what a ring all-reduce moves.
//
//===----------------------------------------------------------------------===//
#include "runtime/MpiComm.h"
#include "runtime/MpiSupport.h"

#include <mpi.h>

#include <climits>
#include <cstring>
#include <map>

namespace plexus::runtime {

namespace {

/// Tag of the MPI_Comm_create_group calls on the private parent
/// communicator (nothing else travels there).
constexpr int kCreateTag = 7;

MPI_Datatype mpiType(DType dtype) {
  return dtype == DType::F32 ? MPI_FLOAT : MPI_DOUBLE;
}

Status toInt(int64_t value, const std::string &at, int &out) {
  if (value > INT_MAX)
    return Status::error(at + ": " + std::to_string(value) +
                         " elements exceed MPI's int counts");
  out = static_cast<int>(value);
  return Status::success();
}

} // namespace

Status checkMpi(int rc, const std::string &at, const char *call) {
  if (rc == MPI_SUCCESS)
    return Status::success();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  std::string message = "MPI error code " + std::to_string(rc);
  if (MPI_Error_string(rc, text, &len) == MPI_SUCCESS)
    message = std::string(text, static_cast<size_t>(len)) + " (code " +
              std::to_string(rc) + ")";
  return Status::error(at + ": " + call + " failed: " + message);
}

Status createMemberComm(MPI_Comm parent, const std::vector<int> &group, int tag,
                        const std::string &at, MPI_Comm &out) {
  MPI_Group world = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  PLXRT_TRY(checkMpi(MPI_Comm_group(parent, &world), at, "MPI_Comm_group"));
  Status st = checkMpi(MPI_Group_incl(world, static_cast<int>(group.size()),
                                      group.data(), &members),
                       at, "MPI_Group_incl");
  MPI_Comm comm = MPI_COMM_NULL;
  if (st.ok())
    st = checkMpi(MPI_Comm_create_group(parent, members, tag, &comm), at,
                  "MPI_Comm_create_group");
  if (members != MPI_GROUP_NULL)
    MPI_Group_free(&members);
  MPI_Group_free(&world);
  PLXRT_TRY(st);
  st = checkMpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), at,
                "MPI_Comm_set_errhandler");
  if (!st.ok()) {
    MPI_Comm_free(&comm);
    return st;
  }
  out = comm;
  return Status::success();
}

struct MpiComm::State {
  int rank = -1, size = 0;
  bool ownsInit = false, finalized = false;
  int tagUpperBound = 32767; ///< MPI guarantees at least this
  MPI_Comm p2p = MPI_COMM_NULL;
  MPI_Comm parent = MPI_COMM_NULL;
  std::map<Group, MPI_Comm> comms;

  /// The communicator of `group` (n >= 2), created on first use.
  Status communicatorFor(const Group &group, const std::string &at,
                         MPI_Comm &out) {
    auto it = comms.find(group);
    if (it != comms.end()) {
      out = it->second;
      return Status::success();
    }
    MPI_Comm comm = MPI_COMM_NULL;
    PLXRT_TRY(createMemberComm(parent, group, kCreateTag, at, comm));
    comms.emplace(group, comm);
    out = comm;
    return Status::success();
  }
};

MpiComm::MpiComm(std::unique_ptr<State> s) : state(std::move(s)) {}

MpiComm::~MpiComm() {
  if (state && !state->finalized)
    (void)finalize();
}

Result<std::unique_ptr<MpiComm>> MpiComm::create(int *argc, char ***argv) {
  const std::string at = "MPI start-up";
  auto s = std::make_unique<State>();
  int initialized = 0, finalized = 0;
  PLXRT_TRY(checkMpi(MPI_Initialized(&initialized), at, "MPI_Initialized"));
  PLXRT_TRY(checkMpi(MPI_Finalized(&finalized), at, "MPI_Finalized"));
  if (finalized)
    return Status::error(at + ": MPI is already finalised");
  if (!initialized) {
    PLXRT_TRY(checkMpi(MPI_Init(argc, argv), at, "MPI_Init"));
    s->ownsInit = true;
  }
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                     at, "MPI_Comm_set_errhandler"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &s->rank), at, "MPI_Comm_rank"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &s->size), at, "MPI_Comm_size"));
  const std::string here = at + " on rank " + std::to_string(s->rank);
  PLXRT_TRY(
      checkMpi(MPI_Comm_dup(MPI_COMM_WORLD, &s->p2p), here, "MPI_Comm_dup"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_dup(MPI_COMM_WORLD, &s->parent), here, "MPI_Comm_dup"));
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(s->p2p, MPI_ERRORS_RETURN), here,
                     "MPI_Comm_set_errhandler"));
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(s->parent, MPI_ERRORS_RETURN),
                     here, "MPI_Comm_set_errhandler"));
  void *ub = nullptr;
  int found = 0;
  PLXRT_TRY(checkMpi(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &found),
                     here, "MPI_Comm_get_attr"));
  if (found && ub)
    s->tagUpperBound = *static_cast<int *>(ub);
  return std::unique_ptr<MpiComm>(new MpiComm(std::move(s)));
}

int MpiComm::rank() const { return state->rank; }
int MpiComm::size() const { return state->size; }

int64_t MpiComm::communicatorCount() const {
  return static_cast<int64_t>(state->comms.size());
}

int MpiComm::tagUpperBound() const { return state->tagUpperBound; }

Status MpiComm::finalize() {
  const std::string at = "MPI shutdown on rank " + std::to_string(state->rank);
  if (state->finalized)
    return Status::error(at + ": already finalised");
  state->finalized = true;
  Status first;
  auto keep = [&](Status st) {
    if (first.ok() && !st.ok())
      first = std::move(st);
  };
  for (auto &[group, comm] : state->comms)
    keep(checkMpi(MPI_Comm_free(&comm), at, "MPI_Comm_free"));
  state->comms.clear();
  keep(checkMpi(MPI_Comm_free(&state->p2p), at, "MPI_Comm_free"));
  keep(checkMpi(MPI_Comm_free(&state->parent), at, "MPI_Comm_free"));
  if (state->ownsInit)
    keep(checkMpi(MPI_Finalize(), at, "MPI_Finalize"));
  return first;
}

namespace {
Status afterFinalize(const std::string &at) {
  return Status::error(at + ": called after finalize()");
}
} // namespace

namespace {
/// What all-to-all and all-gather share: `count` elements per block, one
/// block per member. A group of one copies its block; otherwise `exchange`
/// runs the MPI call on the group's communicator.
template <typename CommState, typename Exchange>
Status equalBlocks(CommState &state, const Group &group, const std::string &at,
                   const void *in, void *out, int64_t count, DType dtype,
                   const char *call, Exchange exchange) {
  if (state.finalized)
    return afterFinalize(at);
  const int64_t n = static_cast<int64_t>(group.size());
  if (n == 1) {
    if (count)
      std::memcpy(out, in, static_cast<size_t>(count * bytesOf(dtype)));
    return Status::success();
  }
  int c = 0, total = 0;
  PLXRT_TRY(toInt(count, at, c));
  PLXRT_TRY(toInt(count * n, at, total)); // the whole buffer must fit an int
  MPI_Comm comm = MPI_COMM_NULL;
  PLXRT_TRY(state.communicatorFor(group, at, comm));
  return checkMpi(exchange(c, comm), at, call);
}
} // namespace

Status MpiComm::doAllToAll(const Group &group, int, const void *in, void *out,
                           int64_t count, DType dtype) {
  return equalBlocks(*state, group, where("all_to_all", group), in, out, count,
                     dtype, "MPI_Alltoall", [&](int c, MPI_Comm comm) {
                       return MPI_Alltoall(in, c, mpiType(dtype), out, c,
                                           mpiType(dtype), comm);
                     });
}

Status MpiComm::doAllGather(const Group &group, int, const void *in, void *out,
                            int64_t count, DType dtype) {
  return equalBlocks(*state, group, where("all_gather", group), in, out, count,
                     dtype, "MPI_Allgather", [&](int c, MPI_Comm comm) {
                       return MPI_Allgather(in, c, mpiType(dtype), out, c,
                                            mpiType(dtype), comm);
                     });
}

Status MpiComm::doReduceScatter(const Group &group, int, const void *in,
                                void *out, int64_t count, DType dtype) {
  const std::string at = where("reduce_scatter", group);
  if (state->finalized)
    return afterFinalize(at);
  const int64_t n = static_cast<int64_t>(group.size());
  const size_t block = static_cast<size_t>(count * bytesOf(dtype));
  if (n == 1) {
    if (block)
      std::memcpy(out, in, block);
    return Status::success();
  }
  int c = 0, total = 0;
  PLXRT_TRY(toInt(count, at, c));
  PLXRT_TRY(toInt(count * n, at, total));
  MPI_Comm comm = MPI_COMM_NULL;
  PLXRT_TRY(state->communicatorFor(group, at, comm));
  std::vector<char> blocks(block * static_cast<size_t>(n));
  PLXRT_TRY(checkMpi(MPI_Alltoall(in, c, mpiType(dtype), blocks.data(), c,
                                  mpiType(dtype), comm),
                     at, "MPI_Alltoall"));
  if (!block)
    return Status::success();
  std::memcpy(out, blocks.data(), block);
  for (int64_t i = 1; i < n; ++i)
    addInto(dtype, out, blocks.data() + static_cast<size_t>(i) * block, count);
  return Status::success();
}

Status MpiComm::doAllReduce(const Group &group, int index, void *data,
                            int64_t count, DType dtype) {
  const std::string at = where("all_reduce", group);
  if (state->finalized)
    return afterFinalize(at);
  const int n = static_cast<int>(group.size());
  if (n == 1)
    return Status::success();
  int c = 0;
  PLXRT_TRY(toInt(count, at, c));
  MPI_Comm comm = MPI_COMM_NULL;
  PLXRT_TRY(state->communicatorFor(group, at, comm));
  // Block j: [offs[j], offs[j] + sizes[j]), the first c % n one longer.
  std::vector<int> sizes(static_cast<size_t>(n)), offs(static_cast<size_t>(n));
  for (int j = 0, off = 0; j < n; ++j) {
    sizes[static_cast<size_t>(j)] = c / n + (j < c % n ? 1 : 0);
    offs[static_cast<size_t>(j)] = off;
    off += sizes[static_cast<size_t>(j)];
  }
  const int mine = sizes[static_cast<size_t>(index)];
  std::vector<int> recvSizes(static_cast<size_t>(n), mine),
      recvOffs(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    recvOffs[static_cast<size_t>(i)] = i * mine;
  const size_t es = static_cast<size_t>(bytesOf(dtype));
  std::vector<char> blocks(static_cast<size_t>(mine) * es *
                           static_cast<size_t>(n));
  PLXRT_TRY(
      checkMpi(MPI_Alltoallv(data, sizes.data(), offs.data(), mpiType(dtype),
                             blocks.data(), recvSizes.data(), recvOffs.data(),
                             mpiType(dtype), comm),
               at, "MPI_Alltoallv"));
  std::vector<char> sum(static_cast<size_t>(mine) * es);
  if (mine) {
    std::memcpy(sum.data(), blocks.data(), sum.size());
    for (int i = 1; i < n; ++i)
      addInto(dtype, sum.data(),
              blocks.data() + static_cast<size_t>(i) * sum.size(), mine);
  }
  return checkMpi(MPI_Allgatherv(sum.data(), mine, mpiType(dtype), data,
                                 sizes.data(), offs.data(), mpiType(dtype),
                                 comm),
                  at, "MPI_Allgatherv");
}

Status MpiComm::doSend(int peer, const void *data, int64_t count, DType dtype,
                       int tag) {
  const std::string at = where("send", peer, tag);
  if (state->finalized)
    return afterFinalize(at);
  if (tag > state->tagUpperBound)
    return Status::error(at + ": tag above MPI_TAG_UB (" +
                         std::to_string(state->tagUpperBound) + ")");
  int c = 0;
  PLXRT_TRY(toInt(count, at, c));
  return checkMpi(MPI_Send(data, c, mpiType(dtype), peer, tag, state->p2p), at,
                  "MPI_Send");
}

Status MpiComm::doRecv(int peer, void *data, int64_t count, DType dtype,
                       int tag) {
  const std::string at = where("recv", peer, tag);
  if (state->finalized)
    return afterFinalize(at);
  if (tag > state->tagUpperBound)
    return Status::error(at + ": tag above MPI_TAG_UB (" +
                         std::to_string(state->tagUpperBound) + ")");
  int c = 0;
  PLXRT_TRY(toInt(count, at, c));
  MPI_Status status;
  PLXRT_TRY(checkMpi(
      MPI_Recv(data, c, mpiType(dtype), peer, tag, state->p2p, &status), at,
      "MPI_Recv"));
  int got = 0;
  PLXRT_TRY(checkMpi(MPI_Get_count(&status, mpiType(dtype), &got), at,
                     "MPI_Get_count"));
  if (got != c)
    return Status::error(at + ": expected " + std::to_string(c) +
                         " elements, got " + std::to_string(got));
  return Status::success();
}

} // namespace plexus::runtime
