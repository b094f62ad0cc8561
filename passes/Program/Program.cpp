#include "passes/Program/Program.h"

#include <utility>

namespace plexus::prog {

const char *toString(OpKind k) {
  switch (k) {
  case OpKind::Compute:
    return "compute";
  case OpKind::Send:
    return "send";
  case OpKind::Recv:
    return "recv";
  case OpKind::Collective:
    return "collective";
  case OpKind::Wait:
    return "wait";
  }
  return "?";
}

const char *toString(ComputeKind k) {
  switch (k) {
  case ComputeKind::Fwd:
    return "fwd";
  case ComputeKind::Bwd:
    return "bwd";
  case ComputeKind::Recompute:
    return "recompute";
  }
  return "?";
}

const char *toString(CommKind k) {
  switch (k) {
  case CommKind::PointToPoint:
    return "send_recv";
  case CommKind::AllToAll:
    return "all_to_all";
  case CommKind::AllReduce:
    return "all_reduce";
  case CommKind::AllGather:
    return "all_gather";
  case CommKind::ReduceScatter:
    return "reduce_scatter";
  }
  return "?";
}

const char *toString(GroupKind k) {
  switch (k) {
  case GroupKind::Sp:
    return "sp";
  case GroupKind::Tp:
    return "tp";
  case GroupKind::Cp:
    return "cp";
  case GroupKind::Zero:
    return "zero";
  case GroupKind::Dp:
    return "dp";
  }
  return "?";
}

Op Op::compute(std::string label, ComputeKind kind, double seconds,
               int64_t memoryDeltaBytes) {
  Op op;
  op.kind = OpKind::Compute;
  op.label = std::move(label);
  op.computeKind = kind;
  op.seconds = seconds;
  op.memoryDeltaBytes = memoryDeltaBytes;
  return op;
}

double totalComputeFlops(const std::vector<Program> &programs) {
  double total = 0;
  for (const Program &p : programs)
    for (const Op &op : p.ops)
      if (op.kind == OpKind::Compute)
        total += op.flops;
  return total;
}

Op Op::send(int64_t peer, int64_t bytes, int64_t tag) {
  Op op;
  op.kind = OpKind::Send;
  op.peer = peer;
  op.bytes = bytes;
  op.tag = tag;
  return op;
}

Op Op::recv(int64_t peer, int64_t bytes, int64_t tag) {
  Op op = send(peer, bytes, tag);
  op.kind = OpKind::Recv;
  return op;
}

Op Op::collective(CommKind kind, GroupKind groupKind, std::string group, Members ranks,
                  int64_t bytes, bool async) {
  Op op;
  op.kind = OpKind::Collective;
  op.commKind = kind;
  op.groupKind = groupKind;
  op.group = std::move(group);
  op.ranks = std::move(ranks);
  op.bytes = bytes;
  op.async = async;
  return op;
}

Op Op::wait(int64_t pending) {
  Op op;
  op.kind = OpKind::Wait;
  op.pending = pending;
  return op;
}

} // namespace plexus::prog
