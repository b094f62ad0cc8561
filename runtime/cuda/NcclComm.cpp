//===- NcclComm.cpp - The runtime's communication over NCCL ---------------===//
//
// Each op: check the state, find or make the group's ncclComm_t, enqueue the
// NCCL calls on the comm's stream, wait for the stream. MPI carries only the
// ncclUniqueId of a new communicator and the headers of point-to-point
// messages, never the data.
//
//===----------------------------------------------------------------------===//
#include "runtime/cuda/NcclComm.h"

#include "runtime/MpiSupport.h"
#include "runtime/cuda/CudaDevice.h"
#include "runtime/cuda/CudaStatus.h"

#include <cstring>
#include <map>

namespace plexus::runtime::cuda {

namespace {

/// Tag of the MPI_Comm_create_group calls on the private parent
/// communicator, which carries nothing else.
constexpr int kCreateTag = 11;
/// MPI tag of point-to-point headers on the private p2p communicator.
constexpr int kHeaderTag = 12;

ncclDataType_t ncclType(DType dtype) {
  return dtype == DType::F32 ? ncclFloat32 : ncclFloat64;
}

const char *dtypeName(DType dtype) {
  return dtype == DType::F32 ? "f32" : "f64";
}

/// What the first rank of a new group broadcasts: its id, or that making
/// one failed (so the others fail too instead of waiting).
struct IdMessage {
  int ok = 0;
  ncclUniqueId id;
};

/// Keeps the first error of a sequence of clean-up steps.
struct FirstError {
  Status first;
  void keep(Status st) {
    if (first.ok() && !st.ok())
      first = std::move(st);
  }
};

} // namespace

struct NcclComm::State {
  int rank = -1, size = 0, device = -1;
  bool ownsInit = false, finalized = false;
  MPI_Comm parent = MPI_COMM_NULL; ///< for MPI_Comm_create_group
  MPI_Comm p2p = MPI_COMM_NULL;    ///< for point-to-point headers
  cudaStream_t stream = nullptr;
  std::map<Group, ncclComm_t> comms;

  /// The NCCL communicator of `group` (n >= 2, containing this rank at
  /// `index`), created on first use.
  /// What every collective does first: after finalize() an error; on a
  /// group of one rank the local copy of `bytes` from `in` to `out` (none
  /// when `in` is null: an all-reduce of one rank is its input); with
  /// nothing to move, nothing. `done` says whether the call ends there;
  /// otherwise `comm` is the group's communicator.
  Status begin(const Group &group, int index, const std::string &at,
               const void *in, void *out, int64_t count, int64_t bytes,
               bool &done, ncclComm_t &comm) {
    done = true;
    if (finalized)
      return Status::error(at + ": called after finalize()");
    if (group.size() == 1)
      return in ? copy(out, in, static_cast<size_t>(bytes), at)
                : Status::success();
    if (count == 0)
      return Status::success();
    done = false;
    return communicatorFor(group, index, at, comm);
  }

  Status communicatorFor(const Group &group, int index, const std::string &at,
                         ncclComm_t &out) {
    auto it = comms.find(group);
    if (it != comms.end()) {
      out = it->second;
      return Status::success();
    }
    IdMessage message;
    std::memset(&message.id, 0, sizeof(message.id));
    Status made;
    if (index == 0) {
      made = checkNccl(ncclGetUniqueId(&message.id),
                       at + ": ncclGetUniqueId failed");
      message.ok = made.ok() ? 1 : 0;
    }
    // An MPI communicator of the members only, to broadcast the id.
    MPI_Comm bcast = MPI_COMM_NULL;
    PLXRT_TRY(createMemberComm(parent, group, kCreateTag, at, bcast));
    Status st = checkMpi(MPI_Bcast(&message, static_cast<int>(sizeof(message)),
                                   MPI_BYTE, 0, bcast),
                         at, "MPI_Bcast");
    FirstError result;
    result.keep(std::move(st));
    result.keep(checkMpi(MPI_Comm_free(&bcast), at, "MPI_Comm_free"));
    PLXRT_TRY(made);
    PLXRT_TRY(result.first);
    if (!message.ok)
      return Status::error(at + ": rank " + std::to_string(group[0]) +
                           " could not make the group's ncclUniqueId");
    ncclComm_t comm = nullptr;
    PLXRT_TRY(checkNccl(ncclCommInitRank(&comm, static_cast<int>(group.size()),
                                         message.id, index),
                        at + ": ncclCommInitRank failed"));
    comms.emplace(group, comm);
    out = comm;
    return Status::success();
  }

  /// Waits for the stream: the op's work is done, or its error is known.
  Status wait(const std::string &at) {
    return checkCuda(cudaStreamSynchronize(stream),
                     at + ": cudaStreamSynchronize failed");
  }

  /// Copies `bytes` on the device (a group of one) and waits.
  Status copy(void *out, const void *in, size_t bytes, const std::string &at) {
    if (bytes == 0 || out == in)
      return Status::success();
    PLXRT_TRY(checkCuda(
        cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream),
        at + ": cudaMemcpyAsync failed"));
    return wait(at);
  }
};

NcclComm::NcclComm(std::unique_ptr<State> s) : state(std::move(s)) {}

NcclComm::~NcclComm() {
  if (state && !state->finalized)
    (void)finalize();
}

/// create()'s steps after MPI_Init: the world, the device, the stream and
/// the private MPI communicators.
Status NcclComm::setUp(State *s, int device) {
  const std::string at = "NCCL start-up";
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN),
                     at, "MPI_Comm_set_errhandler"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_rank(MPI_COMM_WORLD, &s->rank), at, "MPI_Comm_rank"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_size(MPI_COMM_WORLD, &s->size), at, "MPI_Comm_size"));
  const std::string here = onRank(at, s->rank);

  Result<int> count = cudaDeviceCount();
  if (!count)
    return count.status().withContext(here);
  if (*count == 0)
    return requireCudaDevice().withContext(here);
  if (device < 0) {
    // The node-local rank picks the device, one GPU per process.
    MPI_Comm local = MPI_COMM_NULL;
    int localRank = 0;
    PLXRT_TRY(checkMpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED,
                                           s->rank, MPI_INFO_NULL, &local),
                       here, "MPI_Comm_split_type"));
    Status st =
        checkMpi(MPI_Comm_rank(local, &localRank), here, "MPI_Comm_rank");
    FirstError result;
    result.keep(std::move(st));
    result.keep(checkMpi(MPI_Comm_free(&local), here, "MPI_Comm_free"));
    PLXRT_TRY(result.first);
    device = localRank % *count;
  } else if (device >= *count) {
    return Status::error(here + ": device " + std::to_string(device) +
                         " requested, but only " + std::to_string(*count) +
                         " are visible");
  }
  s->device = device;
  PLXRT_TRY(checkCuda(cudaSetDevice(device), here + ": cudaSetDevice(" +
                                                 std::to_string(device) +
                                                 ") failed"));
  PLXRT_TRY(
      checkCuda(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking),
                here + ": cudaStreamCreateWithFlags failed"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_dup(MPI_COMM_WORLD, &s->parent), here, "MPI_Comm_dup"));
  PLXRT_TRY(
      checkMpi(MPI_Comm_dup(MPI_COMM_WORLD, &s->p2p), here, "MPI_Comm_dup"));
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(s->parent, MPI_ERRORS_RETURN),
                     here, "MPI_Comm_set_errhandler"));
  PLXRT_TRY(checkMpi(MPI_Comm_set_errhandler(s->p2p, MPI_ERRORS_RETURN), here,
                     "MPI_Comm_set_errhandler"));
  return Status::success();
}

Result<std::unique_ptr<NcclComm>> NcclComm::create(int *argc, char ***argv,
                                                   int device) {
  const std::string at = "NCCL start-up";
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
  Status st = setUp(s.get(), device);
  if (!st.ok()) {
    // Nothing can use this process's MPI after a failed start; leave it
    // finalised if this call initialised it, so that mpirun sees a clean
    // exit with the error printed by the caller.
    if (s->stream)
      (void)cudaStreamDestroy(s->stream);
    if (s->p2p != MPI_COMM_NULL)
      (void)MPI_Comm_free(&s->p2p);
    if (s->parent != MPI_COMM_NULL)
      (void)MPI_Comm_free(&s->parent);
    if (s->ownsInit)
      (void)MPI_Finalize();
    return st;
  }
  return std::unique_ptr<NcclComm>(new NcclComm(std::move(s)));
}

int NcclComm::rank() const { return state->rank; }
int NcclComm::size() const { return state->size; }
int NcclComm::device() const { return state->device; }
void *NcclComm::stream() const { return state->stream; }

int64_t NcclComm::communicatorCount() const {
  return static_cast<int64_t>(state->comms.size());
}

Status NcclComm::finalize() {
  const std::string at = onRank("NCCL shutdown", state->rank);
  if (state->finalized)
    return Status::error(at + ": already finalised");
  state->finalized = true;
  FirstError result;
  for (auto &[group, comm] : state->comms)
    result.keep(checkNccl(ncclCommDestroy(comm), at + ": ncclCommDestroy of " +
                                                     groupString(group) +
                                                     " failed"));
  state->comms.clear();
  if (state->stream) {
    result.keep(checkCuda(cudaStreamDestroy(state->stream),
                          at + ": cudaStreamDestroy failed"));
    state->stream = nullptr;
  }
  if (state->p2p != MPI_COMM_NULL)
    result.keep(checkMpi(MPI_Comm_free(&state->p2p), at, "MPI_Comm_free"));
  if (state->parent != MPI_COMM_NULL)
    result.keep(checkMpi(MPI_Comm_free(&state->parent), at, "MPI_Comm_free"));
  if (state->ownsInit)
    result.keep(checkMpi(MPI_Finalize(), at, "MPI_Finalize"));
  return result.first;
}

namespace {
Status afterFinalize(const std::string &at) {
  return Status::error(at + ": called after finalize()");
}

const char *byteAt(const void *p, int64_t elements, DType dtype) {
  return static_cast<const char *>(p) + elements * bytesOf(dtype);
}
char *byteAt(void *p, int64_t elements, DType dtype) {
  return static_cast<char *>(p) + elements * bytesOf(dtype);
}
} // namespace

Status NcclComm::doAllToAll(const Group &group, int index, const void *in,
                            void *out, int64_t count, DType dtype) {
  const std::string at = where("all_to_all", group);
  const int n = static_cast<int>(group.size());
  bool done = true;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(state->begin(group, index, at, in, out, count,
                         count * bytesOf(dtype), done, comm));
  if (done)
    return Status::success();
  const size_t c = static_cast<size_t>(count);
  PLXRT_TRY(checkNccl(ncclGroupStart(), at + ": ncclGroupStart failed"));
  // Every call between start and end is checked, but end always runs so
  // that NCCL's group state is closed even after a failure.
  FirstError result;
  for (int j = 0; j < n && result.first.ok(); ++j) {
    result.keep(checkNccl(ncclSend(byteAt(in, j * count, dtype), c,
                                   ncclType(dtype), j, comm, state->stream),
                          at + ": ncclSend to " + std::to_string(group[j]) +
                              " failed"));
    if (result.first.ok())
      result.keep(checkNccl(ncclRecv(byteAt(out, j * count, dtype), c,
                                     ncclType(dtype), j, comm, state->stream),
                            at + ": ncclRecv from " + std::to_string(group[j]) +
                                " failed"));
  }
  result.keep(checkNccl(ncclGroupEnd(), at + ": ncclGroupEnd failed"));
  PLXRT_TRY(result.first);
  return state->wait(at);
}

Status NcclComm::doAllReduce(const Group &group, int index, void *data,
                             int64_t count, DType dtype) {
  const std::string at = where("all_reduce", group);
  bool done = true;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(
      state->begin(group, index, at, nullptr, data, count, 0, done, comm));
  if (done)
    return Status::success();
  PLXRT_TRY(
      checkNccl(ncclAllReduce(data, data, static_cast<size_t>(count),
                              ncclType(dtype), ncclSum, comm, state->stream),
                at + ": ncclAllReduce failed"));
  return state->wait(at);
}

Status NcclComm::doAllGather(const Group &group, int index, const void *in,
                             void *out, int64_t count, DType dtype) {
  const std::string at = where("all_gather", group);
  bool done = true;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(state->begin(group, index, at, in, out, count,
                         count * bytesOf(dtype), done, comm));
  if (done)
    return Status::success();
  PLXRT_TRY(checkNccl(ncclAllGather(in, out, static_cast<size_t>(count),
                                    ncclType(dtype), comm, state->stream),
                      at + ": ncclAllGather failed"));
  return state->wait(at);
}

Status NcclComm::doReduceScatter(const Group &group, int index, const void *in,
                                 void *out, int64_t count, DType dtype) {
  const std::string at = where("reduce_scatter", group);
  bool done = true;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(state->begin(group, index, at, in, out, count,
                         count * bytesOf(dtype), done, comm));
  if (done)
    return Status::success();
  PLXRT_TRY(checkNccl(ncclReduceScatter(in, out, static_cast<size_t>(count),
                                        ncclType(dtype), ncclSum, comm,
                                        state->stream),
                      at + ": ncclReduceScatter failed"));
  return state->wait(at);
}

namespace {
/// The key of a pair's communicator: its two ranks in increasing order, so
/// the lower rank is NCCL rank 0 of it.
Group pairOf(int self, int peer) {
  return self < peer ? Group{self, peer} : Group{peer, self};
}
} // namespace

Status NcclComm::doSend(int peer, const void *data, int64_t count, DType dtype,
                        int tag) {
  const std::string at = where("send", peer, tag);
  if (state->finalized)
    return afterFinalize(at);
  // The header first: the receiver checks it before it waits for the data.
  int64_t header[3] = {tag, count, static_cast<int64_t>(dtype)};
  PLXRT_TRY(
      checkMpi(MPI_Send(header, 3, MPI_INT64_T, peer, kHeaderTag, state->p2p),
               at, "MPI_Send of the header"));
  if (count == 0)
    return Status::success();
  const Group pair = pairOf(state->rank, peer);
  const int self = state->rank < peer ? 0 : 1;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(state->communicatorFor(pair, self, at, comm));
  PLXRT_TRY(checkNccl(ncclSend(data, static_cast<size_t>(count),
                               ncclType(dtype), 1 - self, comm, state->stream),
                      at + ": ncclSend failed"));
  return state->wait(at);
}

Status NcclComm::doRecv(int peer, void *data, int64_t count, DType dtype,
                        int tag) {
  const std::string at = where("recv", peer, tag);
  if (state->finalized)
    return afterFinalize(at);
  int64_t header[3] = {0, 0, 0};
  MPI_Status status;
  PLXRT_TRY(checkMpi(
      MPI_Recv(header, 3, MPI_INT64_T, peer, kHeaderTag, state->p2p, &status),
      at, "MPI_Recv of the header"));
  const DType sent =
      header[2] == static_cast<int64_t>(DType::F32) ? DType::F32 : DType::F64;
  if (header[0] != tag || header[1] != count || sent != dtype)
    return Status::error(
        at + ": expected " + std::to_string(count) + " elements of " +
        dtypeName(dtype) + ", but the next message from " +
        std::to_string(peer) + " has tag " + std::to_string(header[0]) +
        " and " + std::to_string(header[1]) + " elements of " +
        dtypeName(sent) +
        " (NCCL matches a pair's messages in send order, not by tag)");
  if (count == 0)
    return Status::success();
  const Group pair = pairOf(state->rank, peer);
  const int self = state->rank < peer ? 0 : 1;
  ncclComm_t comm = nullptr;
  PLXRT_TRY(state->communicatorFor(pair, self, at, comm));
  PLXRT_TRY(checkNccl(ncclRecv(data, static_cast<size_t>(count),
                               ncclType(dtype), 1 - self, comm, state->stream),
                      at + ": ncclRecv failed"));
  return state->wait(at);
}

} // namespace plexus::runtime::cuda
