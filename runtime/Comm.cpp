//===- Comm.cpp - The runtime's communication interface -------------------===//
//
// Argument checks shared by every implementation, and the reduction step.
//
//===----------------------------------------------------------------------===//
#include "runtime/Comm.h"

#include <set>

namespace plexus::runtime {

int64_t bytesOf(DType dtype) { return dtype == DType::F32 ? 4 : 8; }

std::string groupString(const Group &group) {
  std::string s = "[";
  for (size_t i = 0; i < group.size(); ++i)
    s += (i ? ", " : "") + std::to_string(group[i]);
  return s + "]";
}

void addInto(DType dtype, void *acc, const void *x, int64_t count) {
  if (dtype == DType::F32) {
    float *a = static_cast<float *>(acc);
    const float *b = static_cast<const float *>(x);
    for (int64_t i = 0; i < count; ++i)
      a[i] += b[i];
  } else {
    double *a = static_cast<double *>(acc);
    const double *b = static_cast<const double *>(x);
    for (int64_t i = 0; i < count; ++i)
      a[i] += b[i];
  }
}

int Comm::indexIn(const Group &group) const {
  for (size_t i = 0; i < group.size(); ++i)
    if (group[i] == rank())
      return static_cast<int>(i);
  return -1;
}

std::string Comm::where(const char *op, const Group &group) const {
  return std::string(op) + " on rank " + std::to_string(rank()) + " over " +
         groupString(group);
}

std::string Comm::where(const char *op, int peer, int tag) const {
  return std::string(op) + " on rank " + std::to_string(rank()) +
         (std::string(op) == "send" ? " to " : " from ") +
         std::to_string(peer) + " (tag " + std::to_string(tag) + ")";
}

Status Comm::checkGroup(const char *op, const Group &group, int64_t count,
                        bool hasData, int &index) const {
  std::string at = where(op, group);
  if (group.empty())
    return Status::error(at + ": the group is empty");
  std::set<int> seen;
  for (int r : group) {
    if (r < 0 || r >= size())
      return Status::error(at + ": rank " + std::to_string(r) +
                           " is outside the world of " +
                           std::to_string(size()));
    if (!seen.insert(r).second)
      return Status::error(at + ": rank " + std::to_string(r) +
                           " appears twice");
  }
  index = indexIn(group);
  if (index < 0)
    return Status::error(at + ": this rank is not in the group");
  if (count < 0)
    return Status::error(at + ": negative count " + std::to_string(count));
  if (count > 0 && !hasData)
    return Status::error(at + ": null buffer");
  return Status::success();
}

Status Comm::checkPeer(const char *op, int peer, int64_t count, int tag,
                       bool hasData) const {
  std::string at = where(op, peer, tag);
  if (peer < 0 || peer >= size())
    return Status::error(at + ": peer outside the world of " +
                         std::to_string(size()));
  if (peer == rank())
    return Status::error(at + ": a rank cannot message itself");
  if (tag < 0)
    return Status::error(at + ": negative tag");
  if (count < 0)
    return Status::error(at + ": negative count " + std::to_string(count));
  if (count > 0 && !hasData)
    return Status::error(at + ": null buffer");
  return Status::success();
}

Status Comm::allToAll(const Group &group, const void *in, void *out,
                      int64_t count, DType dtype) {
  int index = -1;
  PLXRT_TRY(checkGroup("all_to_all", group, count, in && out, index));
  return doAllToAll(group, index, in, out, count, dtype);
}

Status Comm::allReduce(const Group &group, void *data, int64_t count,
                       DType dtype) {
  int index = -1;
  PLXRT_TRY(checkGroup("all_reduce", group, count, data != nullptr, index));
  return doAllReduce(group, index, data, count, dtype);
}

Status Comm::allGather(const Group &group, const void *in, void *out,
                       int64_t count, DType dtype) {
  int index = -1;
  PLXRT_TRY(checkGroup("all_gather", group, count, in && out, index));
  return doAllGather(group, index, in, out, count, dtype);
}

Status Comm::reduceScatter(const Group &group, const void *in, void *out,
                           int64_t count, DType dtype) {
  int index = -1;
  PLXRT_TRY(checkGroup("reduce_scatter", group, count, in && out, index));
  return doReduceScatter(group, index, in, out, count, dtype);
}

Status Comm::send(int peer, const void *data, int64_t count, DType dtype,
                  int tag) {
  PLXRT_TRY(checkPeer("send", peer, count, tag, data != nullptr));
  return doSend(peer, data, count, dtype, tag);
}

Status Comm::recv(int peer, void *data, int64_t count, DType dtype, int tag) {
  PLXRT_TRY(checkPeer("recv", peer, count, tag, data != nullptr));
  return doRecv(peer, data, count, dtype, tag);
}

} // namespace plexus::runtime
