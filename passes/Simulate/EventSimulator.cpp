//===- EventSimulator.cpp - Discrete-event simulation of a step -----------===//
//
// Events are "rank r is ready to issue its next op at time t", kept in a
// min-heap ordered by (t, r). Popping an event issues the op: compute ops
// schedule the rank's next event at once; communication ops are posted and
// complete when their last participant arrives. Because events are popped in
// time order, the last participant's time is the start of the transfer, and
// the duration callback is called in non-decreasing order of start time.
//
//===----------------------------------------------------------------------===//
#include "passes/Simulate/EventSimulator.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <queue>
#include <set>
#include <sstream>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace plexus::sim {

const char *toString(SimErrorKind k) {
  switch (k) {
  case SimErrorKind::None:
    return "none";
  case SimErrorKind::InvalidProgram:
    return "invalid program";
  case SimErrorKind::MismatchedP2P:
    return "mismatched send/recv";
  case SimErrorKind::MismatchedCollective:
    return "mismatched collective";
  case SimErrorKind::Deadlock:
    return "deadlock";
  case SimErrorKind::CommTimeFailed:
    return "communication time failed";
  }
  return "?";
}

namespace {
bool symmetryByDefault = true;
} // namespace

bool defaultSymmetry() { return symmetryByDefault; }
void setDefaultSymmetry(bool on) { symmetryByDefault = on; }

double SimResult::bubbleFraction() const {
  if (ranks.empty() || stepSeconds <= 0)
    return 0;
  double idle = 0;
  for (const RankResult &r : ranks)
    idle += r.idleSeconds;
  return idle / (stepSeconds * static_cast<double>(ranks.size()));
}

namespace {

/// A rank blocked in a send or recv, waiting for its counterpart.
struct PostedP2P {
  int64_t rank = 0;
  double ready = 0;
  int64_t bytes = 0;
  int64_t opIndex = 0;
  bool stream = false; ///< an asynchronous send, posted by the stream
};

/// A rank that has reached a collective instance.
struct Arrival {
  int64_t rank = 0;
  int64_t opIndex = 0;
  bool async = false; ///< arrived from the rank's communication stream
};

/// An asynchronous collective waiting on, or running on, a rank's stream.
struct Queued {
  int64_t opIndex = 0;
  int64_t instance = 0; ///< k: the k-th collective of the rank on its group
};

/// The k-th collective on one group id.
struct Instance {
  CommKind kind = CommKind::AllReduce;
  int64_t bytes = 0;
  prog::Members ranks;
  std::vector<Arrival> arrivals; ///< representatives
  size_t arrived = 0;            ///< ranks they stand for
  size_t needed = 0;             ///< simulated ranks among the members
};

/// (sender, receiver, tag).
using P2PKey = std::tuple<int64_t, int64_t, int64_t>;

std::string describe(const Op &op) {
  std::ostringstream os;
  switch (op.kind) {
  case OpKind::Compute:
    os << toString(op.computeKind);
    if (!op.label.empty())
      os << " '" << op.label << "'";
    break;
  case OpKind::Send:
    os << (op.async ? "async " : "") << "send to " << op.peer << " bytes "
       << op.bytes << " tag " << op.tag;
    break;
  case OpKind::Recv:
    os << "recv from " << op.peer << " bytes " << op.bytes << " tag " << op.tag;
    break;
  case OpKind::Collective:
    os << (op.async ? "async " : "") << toString(op.commKind) << " group \""
       << op.group << "\" [";
    for (size_t i = 0; i < op.ranks.size(); ++i)
      os << (i ? ", " : "") << op.ranks[i];
    os << "] bytes " << op.bytes;
    break;
  case OpKind::Wait:
    os << "wait pending " << op.pending;
    break;
  }
  return os.str();
}

class Simulator {
public:
  Simulator(const std::vector<Program> &programs, const SimOptions &options)
      : programs(programs), options(options),
        n(static_cast<int64_t>(programs.size())),
        replicas(std::max<int64_t>(1, options.replicas)) {}

  SimResult run();

private:
  using Event = std::pair<double, int64_t>; // (time, rank)

  bool validate();
  void findClasses();
  void expandClasses();
  bool step(double t, int64_t r);
  /// `fromStream`: the rank's communication stream posts an asynchronous
  /// send (its program has moved on).
  bool issueSend(double t, int64_t r, const Op &op, bool fromStream = false,
                 int64_t opIndex = -1);
  bool issueRecv(double t, int64_t r, const Op &op);
  bool issueCollective(double t, int64_t r, const Op &op, int64_t index,
                       int64_t k, bool async);
  bool streamComplete(double t, int64_t r);
  bool streamStart(double t, int64_t r);
  /// A stream collective runs on rank r from t to streamEnd: slow the
  /// rank's running compute op (SimOptions::overlap).
  void retime(int64_t r, double t, double streamEnd);
  int64_t outstanding(int64_t r) const {
    return static_cast<int64_t>(stream[r].size());
  }
  bool completeP2P(int64_t sender, int64_t receiver, const Op &sendOp,
                   int64_t sendIndex, int64_t recvIndex, double start,
                   bool senderStream = false);
  bool commTime(const CommRequest &req, double &seconds);
  void reportStuck();
  bool fail(SimErrorKind kind, std::string message,
            std::vector<int64_t> errorRanks);
  /// Rank r's next op (`stream`: its stream's running op) ends at t.
  /// Events are ordered by time, then by the highest rank of r's class.
  void schedule(double t, int64_t r, bool stream = false) {
    if (!stream)
      nextStep[r] = t;
    events.push({t, (stream ? n : 0) + keyOf[r]});
  }
  /// Adds a finished interval of rank r to its totals (in the order the
  /// intervals end up in its spans) and, with keepSpans, to its spans.
  void record(int64_t r, Span &&s, bool recompute = false) {
    RankResult &rr = result.ranks[r];
    const double seconds = s.end - s.start;
    (s.isCompute ? rr.computeSeconds
     : s.async   ? rr.overlappedCommSeconds
                 : rr.commSeconds) += seconds;
    if (recompute)
      rr.recomputeSpanSeconds.push_back(seconds);
    if (options.keepSpans)
      rr.spans.push_back(std::move(s));
  }

  /// Why a sorted, repetition-free member list breaks the replicas'
  /// symmetry (SimOptions::replicas), or null; `simulated` gets how many
  /// members are ranks of the programs.
  const char *replicaProblem(const std::vector<int64_t> &sorted,
                             size_t &simulated) const {
    simulated = static_cast<size_t>(
        std::lower_bound(sorted.begin(), sorted.end(), n) - sorted.begin());
    if (replicas == 1 || simulated == sorted.size())
      return nullptr;
    // Every simulated member with all of its images, nothing else.
    if (sorted.size() != simulated * static_cast<size_t>(replicas))
      return "group across replicas is not every image of its ranks";
    for (size_t i = 0; i < simulated; ++i)
      for (int64_t k = 1; k < replicas; ++k)
        if (!std::binary_search(sorted.begin(), sorted.end(),
                                sorted[i] + k * n))
          return "group across replicas is not every image of its ranks";
    return nullptr;
  }

  const std::vector<Program> &programs;
  const SimOptions &options;
  int64_t n;
  int64_t replicas = 1;
  SimResult result;
  /// Rank classes: each rank's representative (the lowest rank of its
  /// class), and per representative the class's size and highest rank
  /// (its event key); repOfKey maps a key back.
  std::vector<int64_t> repOf, classSize, keyOf, repOfKey;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  std::vector<size_t> pc;
  std::vector<int64_t> memory;
  std::vector<bool> finished;
  std::map<P2PKey, std::deque<PostedP2P>> postedSends, postedRecvs;
  std::vector<std::map<std::string, int64_t>> groupCount;
  // Communication streams: queued and running asynchronous collectives
  // (the front runs when streamBusy), and ranks blocked in a wait (or at
  // their program's end) since waitStart.
  std::vector<std::deque<Queued>> stream;
  std::vector<bool> streamBusy, waiting;
  std::vector<double> waitStart;
  std::vector<double> streamOpStart; ///< when the running stream op started
  /// Contention (SimOptions::overlap): when the running stream op ends,
  /// and the rank's running compute op: recorded when it ends, since a
  /// stream op that starts during it slows it (issueCollective re-times
  /// it); `work` is its seconds alone. A rank's main-flow event that is not
  /// at nextStep (a re-timed op's old end) is stale.
  struct RunningCompute {
    Span span;
    bool recompute = false;
    double work = 0;
  };
  std::vector<double> streamOpEnd, nextStep;
  std::vector<std::optional<RunningCompute>> running;
  std::map<std::pair<std::string, int64_t>, Instance> instances;
  /// validate(): each distinct member list, sorted, and what is wrong
  /// with it (null: nothing).
  struct CheckedGroup {
    std::vector<int64_t> sorted;
    const char *problem = nullptr;
    /// Members that are ranks of the programs (the others are their images
    /// in other replicas).
    size_t simulated = 0;
  };
  std::map<const void *, CheckedGroup> checkedGroups;
};

bool Simulator::fail(SimErrorKind kind, std::string message,
                     std::vector<int64_t> errorRanks) {
  std::sort(errorRanks.begin(), errorRanks.end());
  errorRanks.erase(std::unique(errorRanks.begin(), errorRanks.end()),
                   errorRanks.end());
  result.errorKind = kind;
  result.error = std::move(message);
  result.errorRanks = std::move(errorRanks);
  return false;
}

bool Simulator::validate() {
  bool communicates = false;
  // Per representative of a class of two or more: the distinct member
  // lists its collectives use, by first use, so that the other members'
  // programs (equal to it) are checked only for membership.
  std::map<int64_t, std::vector<std::pair<size_t, const prog::Members *>>>
      classLists;
  for (int64_t r = 0; r < n; ++r) {
    const int64_t rep = repOf[r];
    if (rep != r) {
      for (const auto &[i, members] : classLists[rep]) {
        const CheckedGroup &g = checkedGroups[members->id()];
        if (!std::binary_search(g.sorted.begin(), g.sorted.end(), r)) {
          std::ostringstream where;
          where << "rank " << r << " op " << i << " ("
                << describe(programs[r].ops[i])
                << "): group does not include the rank";
          return fail(SimErrorKind::InvalidProgram, where.str(), {r});
        }
      }
      continue;
    }
    std::vector<std::pair<size_t, const prog::Members *>> *lists =
        classSize[r] > 1 ? &classLists[r] : nullptr;
    const std::vector<Op> &ops = programs[r].ops;
    std::map<std::pair<int64_t, int64_t>, bool> sendKinds;
    for (size_t i = 0; i < ops.size(); ++i) {
      const Op &op = ops[i];
      auto bad = [&](const char *why) {
        std::ostringstream where;
        where << "rank " << r << " op " << i << " (" << describe(op) << "): ";
        return fail(SimErrorKind::InvalidProgram, where.str() + why, {r});
      };
      if (op.kind == OpKind::Compute) {
        if (!std::isfinite(op.seconds) || op.seconds < 0)
          return bad("compute time must be finite and non-negative");
        continue;
      }
      if (op.kind == OpKind::Wait) {
        if (op.pending < 0)
          return bad("pending must be non-negative");
        continue;
      }
      communicates = true;
      if (op.bytes < 0)
        return bad("bytes must be non-negative");
      if (op.kind == OpKind::Send || op.kind == OpKind::Recv) {
        if (op.peer < 0 || op.peer >= n)
          return bad("peer is not a rank");
        if (op.peer == r)
          return bad("peer is the rank itself");
        if (op.tag < 0)
          return bad("tag must be non-negative");
        if (op.kind == OpKind::Recv && op.async)
          return bad("a recv cannot be asynchronous");
        if (op.kind == OpKind::Send) {
          // A blocking send would overtake an asynchronous one still on
          // the stream: messages on one (peer, tag) are all of one kind.
          auto [it, fresh] = sendKinds.try_emplace({op.peer, op.tag}, op.async);
          if (!fresh && it->second != op.async)
            return bad("sends to one peer and tag must be all asynchronous "
                       "or all blocking");
        }
        continue;
      }
      if (op.commKind == CommKind::PointToPoint)
        return bad("a collective cannot be of kind send_recv");
      if (op.ranks.empty())
        return bad("group is empty");
      // Each distinct member list is checked once (ops over one
      // communicator share it); its sorted copy answers membership.
      auto [it, fresh] = checkedGroups.try_emplace(op.ranks.id());
      if (fresh) {
        std::vector<int64_t> &sorted = it->second.sorted;
        sorted = op.ranks.vec();
        std::sort(sorted.begin(), sorted.end());
        if (sorted.front() < 0 || sorted.back() >= n * replicas)
          it->second.problem = "group member is not a rank";
        else if (std::adjacent_find(sorted.begin(), sorted.end()) !=
                 sorted.end())
          it->second.problem = "group member repeated";
        else
          it->second.problem = replicaProblem(sorted, it->second.simulated);
      }
      if (it->second.problem)
        return bad(it->second.problem);
      if (!std::binary_search(it->second.sorted.begin(),
                              it->second.sorted.end(), r))
        return bad("group does not include the rank");
      if (lists && (lists->empty() || fresh ||
                    std::none_of(lists->begin(), lists->end(),
                                 [&](const auto &l) {
                                   return l.second->id() == op.ranks.id();
                                 })))
        lists->emplace_back(i, &op.ranks);
    }
  }
  if (communicates && !options.commTime)
    return fail(SimErrorKind::InvalidProgram,
                "programs communicate but no communication time callback "
                "was given",
                {});
  return true;
}

bool Simulator::commTime(const CommRequest &req, double &seconds) {
  CommTime t;
  try {
    t = options.commTime(req);
  } catch (const std::exception &e) {
    t = CommTime::failure(std::string("callback threw: ") + e.what());
  } catch (...) {
    t = CommTime::failure("callback threw");
  }
  auto what = [&] {
    std::ostringstream os;
    os << toString(req.kind) << " of " << req.bytes << " bytes among [";
    for (size_t i = 0; i < req.ranks.size(); ++i)
      os << (i ? ", " : "") << req.ranks[i];
    os << "]";
    if (!req.group.empty())
      os << " group \"" << req.group << "\"";
    return os.str();
  };
  if (!t.error.empty())
    return fail(SimErrorKind::CommTimeFailed, what() + ": " + t.error,
                req.ranks);
  if (!std::isfinite(t.seconds) || t.seconds < 0)
    return fail(SimErrorKind::CommTimeFailed,
                what() + ": duration must be finite and non-negative",
                req.ranks);
  seconds = t.seconds;
  return true;
}

bool Simulator::completeP2P(int64_t sender, int64_t receiver, const Op &sendOp,
                            int64_t sendIndex, int64_t recvIndex, double start,
                            bool senderStream) {
  CommRequest req;
  req.kind = CommKind::PointToPoint;
  req.ranks = {sender, receiver};
  req.bytes = sendOp.bytes;
  req.tag = sendOp.tag;
  req.startSeconds = start;
  double seconds = 0;
  if (!commTime(req, seconds))
    return false;
  double end = start + seconds;
  const std::string tagText =
      options.keepSpans ? " tag " + std::to_string(sendOp.tag) : "";
  Span s;
  s.start = start;
  s.end = end;
  s.bytes = sendOp.bytes;
  if (options.keepSpans)
    s.name = "send to " + std::to_string(receiver) + tagText;
  s.category = "send";
  s.opIndex = sendIndex;
  s.async = senderStream;
  record(sender, Span(s));
  if (options.keepSpans)
    s.name = "recv from " + std::to_string(sender) + tagText;
  s.category = "recv";
  s.opIndex = recvIndex;
  s.async = false;
  record(receiver, std::move(s));
  if (senderStream) {
    // The sender's stream runs the transfer beside its compute.
    streamOpStart[sender] = start;
    streamOpEnd[sender] = end;
    retime(sender, start, end);
    schedule(end, sender, /*stream=*/true);
  } else {
    ++pc[sender];
    schedule(end, sender);
  }
  ++pc[receiver];
  schedule(end, receiver);
  return true;
}

bool Simulator::issueSend(double t, int64_t r, const Op &op, bool fromStream,
                          int64_t opIndex) {
  P2PKey key{r, op.peer, op.tag};
  auto &recvs = postedRecvs[key];
  int64_t index = fromStream ? opIndex : static_cast<int64_t>(pc[r]);
  if (recvs.empty()) {
    postedSends[key].push_back({r, t, op.bytes, index, fromStream});
    return true;
  }
  PostedP2P match = recvs.front();
  recvs.pop_front();
  if (match.bytes != op.bytes) {
    std::ostringstream os;
    os << "rank " << r << " op " << index << " sends " << op.bytes
       << " bytes to rank " << op.peer << " tag " << op.tag
       << " but the matching recv (rank " << op.peer << " op " << match.opIndex
       << ") expects " << match.bytes << " bytes";
    return fail(SimErrorKind::MismatchedP2P, os.str(), {r, op.peer});
  }
  return completeP2P(r, op.peer, op, index, match.opIndex, t, fromStream);
}

bool Simulator::issueRecv(double t, int64_t r, const Op &op) {
  P2PKey key{op.peer, r, op.tag};
  auto &sends = postedSends[key];
  int64_t index = static_cast<int64_t>(pc[r]);
  if (sends.empty()) {
    postedRecvs[key].push_back({r, t, op.bytes, index});
    return true;
  }
  PostedP2P match = sends.front();
  sends.pop_front();
  const Op &sendOp = programs[op.peer].ops[match.opIndex];
  if (match.bytes != op.bytes) {
    std::ostringstream os;
    os << "rank " << op.peer << " op " << match.opIndex << " sends "
       << match.bytes << " bytes to rank " << r << " tag " << op.tag
       << " but the matching recv (rank " << r << " op " << index
       << ") expects " << op.bytes << " bytes";
    return fail(SimErrorKind::MismatchedP2P, os.str(), {r, op.peer});
  }
  return completeP2P(op.peer, r, sendOp, match.opIndex, index, t, match.stream);
}

bool Simulator::issueCollective(double t, int64_t r, const Op &op,
                                int64_t index, int64_t k, bool async) {
  Instance &inst = instances[{op.group, k}];
  if (inst.arrivals.empty()) {
    inst.kind = op.commKind;
    inst.bytes = op.bytes;
    inst.ranks = op.ranks;
  } else if (inst.kind != op.commKind || inst.bytes != op.bytes ||
             inst.ranks != op.ranks) {
    const Arrival &first = inst.arrivals.front();
    const Op &firstOp = programs[first.rank].ops[first.opIndex];
    std::ostringstream os;
    os << "collective #" << k << " on group \"" << op.group << "\": rank "
       << first.rank << " op " << first.opIndex << " has " << describe(firstOp)
       << " but rank " << r << " op " << index << " has " << describe(op);
    return fail(SimErrorKind::MismatchedCollective, os.str(), {first.rank, r});
  }
  if (inst.arrivals.empty())
    inst.needed = checkedGroups[op.ranks.id()].simulated;
  inst.arrivals.push_back({r, index, async});
  inst.arrived += static_cast<size_t>(classSize[r]);
  if (inst.arrived < inst.needed)
    return true;

  CommRequest req;
  req.kind = inst.kind;
  req.ranks = inst.ranks.vec();
  req.members = inst.ranks;
  req.group = op.group;
  req.bytes = inst.bytes;
  req.startSeconds = t;
  double seconds = 0;
  if (!commTime(req, seconds))
    return false;
  // A collective on the communication stream shares the chip with compute
  // (SimOptions::overlap).
  bool onStream = true;
  for (const Arrival &a : inst.arrivals)
    onStream = onStream && a.async;
  if (onStream)
    seconds = options.overlap.streamSeconds(seconds);
  double end = t + seconds;
  Span s;
  if (options.keepSpans)
    s.name = std::string(toString(inst.kind)) + " " + op.group;
  s.category = toString(inst.kind);
  s.start = t;
  s.end = end;
  s.bytes = inst.bytes;
  for (const Arrival &a : inst.arrivals) {
    s.opIndex = a.opIndex;
    s.async = a.async;
    record(a.rank, Span(s));
    if (a.async) {
      streamOpStart[a.rank] = t;
      streamOpEnd[a.rank] = end;
      retime(a.rank, t, end);
      schedule(end, a.rank, /*stream=*/true); // the stream's op completes
    } else {
      ++pc[a.rank];
      schedule(end, a.rank);
    }
  }
  instances.erase({op.group, k});
  return true;
}

bool Simulator::streamStart(double t, int64_t r) {
  if (streamBusy[r] || stream[r].empty())
    return true;
  streamBusy[r] = true;
  const Queued &q = stream[r].front();
  if (programs[r].ops[q.opIndex].kind == OpKind::Send)
    return issueSend(t, r, programs[r].ops[q.opIndex], /*fromStream=*/true,
                     q.opIndex);
  return issueCollective(t, r, programs[r].ops[q.opIndex], q.opIndex,
                         q.instance, /*async=*/true);
}

bool Simulator::streamComplete(double t, int64_t r) {
  stream[r].pop_front();
  streamBusy[r] = false;
  if (waiting[r]) {
    const std::vector<Op> &ops = programs[r].ops;
    int64_t allowed = pc[r] < ops.size() ? ops[pc[r]].pending : 0;
    if (outstanding(r) <= allowed) {
      waiting[r] = false;
      // Only the time the awaited collective ran is exposed communication;
      // waiting for its late members before that is idle.
      double from = std::max(waitStart[r], streamOpStart[r]);
      if (t > from) {
        Span s;
        s.name = "wait";
        s.category = "wait";
        s.start = from;
        s.end = t;
        s.opIndex = static_cast<int64_t>(pc[r]);
        record(r, std::move(s));
      }
      if (pc[r] < ops.size())
        ++pc[r];
      schedule(t, r);
    }
  }
  return streamStart(t, r);
}

void Simulator::retime(int64_t r, double t, double streamEnd) {
  if (!running[r] || !(running[r]->span.end > t))
    return;
  RunningCompute &c = *running[r];
  // Started at this instant (its rank issued it before the collective's
  // last member arrived): timed as if issued beside the collective, the
  // same figure a run with the other order gives. Else what is left of it
  // is slowed from now on.
  const double end =
      c.span.start == t
          ? t + options.overlap.dilatedCompute(c.work, streamEnd - t)
          : t + options.overlap.dilatedCompute(c.span.end - t, streamEnd - t);
  if (end == c.span.end)
    return;
  c.span.end = end;
  schedule(end, r); // the old end's event is stale
}

bool Simulator::step(double t, int64_t r) {
  const std::vector<Op> &ops = programs[r].ops;
  if (t != nextStep[r])
    return true; // a re-timed compute op's old end
  if (running[r]) {
    record(r, std::move(running[r]->span), running[r]->recompute);
    running[r].reset();
  }
  if (pc[r] >= ops.size()) {
    if (outstanding(r) > 0) { // the end waits for the stream to drain
      waiting[r] = true;
      waitStart[r] = t;
      return true;
    }
    finished[r] = true;
    result.ranks[r].finishSeconds = t;
    return true;
  }
  const Op &op = ops[pc[r]];
  switch (op.kind) {
  case OpKind::Compute: {
    memory[r] += op.memoryDeltaBytes;
    RankResult &rr = result.ranks[r];
    rr.peakMemoryBytes = std::max(rr.peakMemoryBytes, memory[r]);
    Span s;
    if (options.keepSpans)
      s.name = op.label.empty() ? toString(op.computeKind) : op.label;
    s.category = toString(op.computeKind);
    s.start = t;
    // Slowed while the stream's running collective lasts.
    const double seconds =
        streamBusy[r] && streamOpEnd[r] > t
            ? options.overlap.dilatedCompute(op.seconds, streamOpEnd[r] - t)
            : op.seconds;
    s.end = t + seconds;
    s.opIndex = static_cast<int64_t>(pc[r]);
    s.isCompute = true;
    ++pc[r];
    schedule(s.end, r);
    running[r] = RunningCompute{
        std::move(s), op.computeKind == ComputeKind::Recompute, op.seconds};
    return true;
  }
  case OpKind::Send:
    if (op.async) { // posted by the stream, in order with its collectives
      stream[r].push_back({static_cast<int64_t>(pc[r]), -1});
      ++pc[r];
      schedule(t, r);
      return streamStart(t, r);
    }
    return issueSend(t, r, op);
  case OpKind::Recv:
    return issueRecv(t, r, op);
  case OpKind::Collective: {
    int64_t k = groupCount[r][op.group]++;
    int64_t index = static_cast<int64_t>(pc[r]);
    if (!op.async)
      return issueCollective(t, r, op, index, k, /*async=*/false);
    stream[r].push_back({index, k});
    ++pc[r];
    schedule(t, r);
    return streamStart(t, r);
  }
  case OpKind::Wait:
    if (outstanding(r) <= op.pending) {
      ++pc[r];
      schedule(t, r);
    } else {
      waiting[r] = true;
      waitStart[r] = t;
    }
    return true;
  }
  return true;
}

void Simulator::reportStuck() {
  // Every unfinished rank is blocked in a communication op. If one waits on
  // a rank that has already finished, its counterpart is missing; otherwise
  // the blocked ranks wait on each other: a deadlock.
  std::ostringstream waits, orphans;
  std::vector<int64_t> blocked, orphaned;
  bool orphanCollective = false;
  for (int64_t r = 0; r < n; ++r) {
    if (finished[r])
      continue;
    blocked.push_back(r);
    // A rank in a wait (or at its end) is stuck on its stream's front op.
    const bool onStream = waiting[r] && !stream[r].empty();
    const Op &op = onStream ? programs[r].ops[stream[r].front().opIndex]
                            : programs[r].ops[pc[r]];
    std::string line =
        onStream ? "rank " + std::to_string(r) + " waits for its op " +
                       std::to_string(stream[r].front().opIndex) + ": " +
                       describe(op)
                 : "rank " + std::to_string(r) + " waits at op " +
                       std::to_string(pc[r]) + ": " + describe(op);
    waits << (waits.tellp() > 0 ? "; " : "") << line;
    std::vector<int64_t> gone;
    if (op.kind == OpKind::Send || op.kind == OpKind::Recv) {
      if (finished[op.peer])
        gone.push_back(op.peer);
    } else {
      for (int64_t m : op.ranks)
        if (m < n && finished[m]) // images in other replicas follow theirs
          gone.push_back(m);
    }
    if (gone.empty())
      continue;
    orphaned.push_back(r);
    orphanCollective |= op.kind == OpKind::Collective;
    orphans << (orphans.tellp() > 0 ? "; " : "") << line << " but rank";
    for (size_t i = 0; i < gone.size(); ++i)
      orphans << (i ? ", " : " ") << gone[i];
    orphans << (gone.size() > 1 ? " have" : " has")
            << " finished without a match";
  }
  if (!orphaned.empty()) {
    fail(orphanCollective ? SimErrorKind::MismatchedCollective
                          : SimErrorKind::MismatchedP2P,
         "unmatched communication: " + orphans.str(), orphaned);
    return;
  }
  fail(SimErrorKind::Deadlock, "deadlock: " + waits.str(), blocked);
}

void Simulator::findClasses() {
  repOf.resize(static_cast<size_t>(n));
  classSize.assign(static_cast<size_t>(n), 0);
  keyOf.assign(static_cast<size_t>(n), 0);
  repOfKey.assign(static_cast<size_t>(n), -1);
  // Representatives by program hash; equal hashes are compared in full.
  std::unordered_map<uint64_t, std::vector<int64_t>> byHash;
  for (int64_t r = 0; r < n; ++r) {
    int64_t rep = r;
    const Program &p = programs[r];
    const bool pointToPoint =
        std::any_of(p.ops.begin(), p.ops.end(), [](const Op &op) {
          return op.kind == OpKind::Send || op.kind == OpKind::Recv;
        });
    if (options.symmetry && !pointToPoint) {
      std::vector<int64_t> &reps = byHash[prog::hashProgram(p)];
      for (int64_t q : reps)
        if (programs[q] == p) {
          rep = q;
          break;
        }
      if (rep == r)
        reps.push_back(r);
    }
    repOf[r] = rep;
    ++classSize[rep];
    keyOf[rep] = r; // ranks come in increasing order: the highest so far
  }
  for (int64_t r = 0; r < n; ++r)
    if (repOf[r] == r) {
      repOfKey[keyOf[r]] = r;
      ++result.simulatedRanks;
    }
}

void Simulator::expandClasses() {
  for (int64_t r = 0; r < n; ++r) {
    const int64_t rep = repOf[r];
    if (rep == r)
      continue;
    pc[r] = pc[rep];
    finished[r] = finished[rep];
    waiting[r] = waiting[rep];
    stream[r] = stream[rep];
    streamBusy[r] = streamBusy[rep];
    result.ranks[r] = result.ranks[rep];
  }
}

SimResult Simulator::run() {
  result.ranks.assign(n, RankResult());
  findClasses();
  if (!validate()) {
    result.ranks.clear();
    return result;
  }
  pc.assign(n, 0);
  memory.assign(n, 0);
  finished.assign(n, false);
  groupCount.assign(n, {});
  stream.assign(n, {});
  streamBusy.assign(n, false);
  waiting.assign(n, false);
  waitStart.assign(n, 0.0);
  streamOpStart.assign(n, 0.0);
  streamOpEnd.assign(n, 0.0);
  nextStep.assign(n, 0.0);
  running.assign(n, std::nullopt);
  for (int64_t r = 0; r < n; ++r) {
    memory[r] = programs[r].initialMemoryBytes;
    result.ranks[r].peakMemoryBytes = memory[r];
    if (repOf[r] == r)
      schedule(0, r);
  }
  while (!events.empty()) {
    Event e = events.top();
    events.pop();
    const bool ok = e.second >= n
                        ? streamComplete(e.first, repOfKey[e.second - n])
                        : step(e.first, repOfKey[e.second]);
    if (!ok) {
      result.ranks.clear();
      return result;
    }
  }
  // Spans in order of start (op index among equal starts): the order they
  // were recorded in depends on which rank completed each collective,
  // which differs between a run of every rank and one per class.
  if (options.keepSpans)
    for (int64_t r = 0; r < n; ++r)
      if (repOf[r] == r)
        std::sort(result.ranks[r].spans.begin(), result.ranks[r].spans.end(),
                  [](const Span &a, const Span &b) {
                    return a.start != b.start ? a.start < b.start
                                              : a.opIndex < b.opIndex;
                  });
  expandClasses();
  if (std::find(finished.begin(), finished.end(), false) != finished.end()) {
    reportStuck();
    result.ranks.clear();
    return result;
  }
  for (const RankResult &rr : result.ranks)
    result.stepSeconds = std::max(result.stepSeconds, rr.finishSeconds);
  for (RankResult &rr : result.ranks) {
    rr.idleSeconds =
        std::max(0.0, result.stepSeconds - rr.computeSeconds - rr.commSeconds);
  }
  if (options.totalFlops && options.peakFlopsPerRank && n > 0 &&
      result.stepSeconds > 0 && *options.peakFlopsPerRank > 0)
    result.mfu =
        *options.totalFlops / (result.stepSeconds * static_cast<double>(n) *
                               *options.peakFlopsPerRank);
  return result;
}

} // namespace

SimResult simulate(const std::vector<Program> &programs,
                   const SimOptions &options) {
  return Simulator(programs, options).run();
}

} // namespace plexus::sim
