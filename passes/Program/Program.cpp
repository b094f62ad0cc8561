#include "passes/Program/Program.h"

#include <cstring>
#include <functional>
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

bool operator==(const Op &a, const Op &b) {
  return a.kind == b.kind && a.label == b.label &&
         a.computeKind == b.computeKind && a.seconds == b.seconds &&
         a.memoryDeltaBytes == b.memoryDeltaBytes &&
         a.layerBegin == b.layerBegin && a.layerEnd == b.layerEnd &&
         a.stage == b.stage && a.seqs == b.seqs && a.slices == b.slices &&
         a.flops == b.flops && a.ulysses == b.ulysses &&
         a.ulyssesRanks == b.ulyssesRanks && a.peer == b.peer &&
         a.tag == b.tag && a.carries == b.carries &&
         a.carriesLayers == b.carriesLayers && a.bytes == b.bytes &&
         a.commKind == b.commKind && a.groupKind == b.groupKind &&
         a.group == b.group && a.ranks == b.ranks && a.async == b.async &&
         a.pending == b.pending;
}

bool operator==(const Program &a, const Program &b) {
  return a.initialMemoryBytes == b.initialMemoryBytes && a.ops == b.ops;
}

namespace {
/// Word-at-a-time mixing (multiply, xor-shift): fast, and only ever
/// compared within one run.
struct Hasher {
  uint64_t h = 0x243f6a8885a308d3ull;
  void word(uint64_t w) {
    h = (h ^ w) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
  }
  void real(double d) {
    uint64_t w = 0;
    std::memcpy(&w, &d, sizeof w);
    word(d == 0 ? 0 : w); // -0.0 == 0.0
  }
  void text(const std::string &s) { word(std::hash<std::string>()(s)); }
};
} // namespace

uint64_t hashProgram(const Program &program) {
  Hasher h;
  h.word(static_cast<uint64_t>(program.initialMemoryBytes));
  h.word(program.ops.size());
  for (const Op &op : program.ops) {
    h.word(static_cast<uint64_t>(op.kind));
    h.word(static_cast<uint64_t>(op.computeKind));
    h.real(op.seconds);
    h.word(static_cast<uint64_t>(op.memoryDeltaBytes));
    h.word(static_cast<uint64_t>(op.bytes));
    h.word(static_cast<uint64_t>(op.peer));
    h.word(static_cast<uint64_t>(op.tag));
    h.word(static_cast<uint64_t>(op.pending));
    h.word(static_cast<uint64_t>(op.async));
    h.word(reinterpret_cast<uintptr_t>(op.ranks.id()));
    h.text(op.group);
  }
  return h.h;
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
