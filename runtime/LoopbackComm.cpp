//===- LoopbackComm.cpp - Every rank a thread of one process --------------===//
//
// A collective is a meeting keyed by (group, sequence number): each member
// posts its input pointer and waits for the others; once all have arrived,
// each reads what it needs straight from its peers' buffers, and a second
// barrier keeps every buffer alive and unchanged until all have read it
// (so an all-reduce writes its in-place result only after that barrier).
// One mutex and one condition variable guard all of it: the loopback is a
// test vehicle, not a fast path.
//
//===----------------------------------------------------------------------===//
#include "runtime/LoopbackComm.h"

#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

namespace plexus::runtime {

namespace {

const char *dtypeName(DType d) { return d == DType::F32 ? "f32" : "f64"; }

std::string describe(const std::string &op, int64_t count, DType dtype) {
  return op + " of " + std::to_string(count) + " " + dtypeName(dtype);
}

} // namespace

struct LoopbackWorld::Shared {
  explicit Shared(int n)
      : n(n), nextSeq(static_cast<size_t>(n)),
        finished(static_cast<size_t>(n), false),
        peerAbort(static_cast<size_t>(n), false) {}

  struct Meeting {
    bool started = false;
    std::vector<std::string> calls; ///< each member's op, count and type
    std::vector<const void *> inputs;
    std::vector<bool> joined;
    int arrived = 0, done = 0, left = 0;
    bool abandoned = false;
  };
  struct Message {
    std::vector<char> bytes;
    int64_t count = 0;
    DType dtype = DType::F32;
  };

  void reset() {
    meetings.clear();
    for (auto &m : nextSeq)
      m.clear();
    finished.assign(static_cast<size_t>(n), false);
    peerAbort.assign(static_cast<size_t>(n), false);
    anyFailed = false;
    mail.clear();
  }

  int n;
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::pair<Group, uint64_t>, Meeting> meetings;
  std::vector<std::map<Group, uint64_t>> nextSeq;
  std::vector<bool> finished;
  std::vector<bool> peerAbort; ///< the rank's error only echoes a peer's
  bool anyFailed = false;
  std::map<std::tuple<int, int, int>, std::deque<Message>> mail;
};

class LoopbackWorld::RankComm final : public Comm {
public:
  RankComm(Shared &shared, int rank) : s(shared), me(rank) {}
  int rank() const override { return me; }
  int size() const override { return s.n; }

protected:
  Status doAllToAll(const Group &group, int index, const void *in, void *out,
                    int64_t count, DType dtype) override {
    const size_t block = static_cast<size_t>(count * bytesOf(dtype));
    return meet("all_to_all", group, index, in, count, dtype,
                [&](const std::vector<const void *> &inputs) {
                  for (size_t i = 0; i < inputs.size(); ++i)
                    if (block)
                      std::memcpy(static_cast<char *>(out) + i * block,
                                  static_cast<const char *>(inputs[i]) +
                                      static_cast<size_t>(index) * block,
                                  block);
                });
  }

  Status doAllReduce(const Group &group, int index, void *data, int64_t count,
                     DType dtype) override {
    const size_t bytes = static_cast<size_t>(count * bytesOf(dtype));
    std::vector<char> sum(bytes);
    PLXRT_TRY(meet("all_reduce", group, index, data, count, dtype,
                   [&](const std::vector<const void *> &inputs) {
                     if (!bytes)
                       return;
                     std::memcpy(sum.data(), inputs[0], bytes);
                     for (size_t i = 1; i < inputs.size(); ++i)
                       addInto(dtype, sum.data(), inputs[i], count);
                   }));
    // Every member has read every input: the in-place write is safe now.
    if (bytes)
      std::memcpy(data, sum.data(), bytes);
    return Status::success();
  }

  Status doAllGather(const Group &group, int index, const void *in, void *out,
                     int64_t count, DType dtype) override {
    const size_t block = static_cast<size_t>(count * bytesOf(dtype));
    return meet("all_gather", group, index, in, count, dtype,
                [&](const std::vector<const void *> &inputs) {
                  for (size_t i = 0; i < inputs.size(); ++i)
                    if (block)
                      std::memcpy(static_cast<char *>(out) + i * block,
                                  inputs[i], block);
                });
  }

  Status doReduceScatter(const Group &group, int index, const void *in,
                         void *out, int64_t count, DType dtype) override {
    const size_t block = static_cast<size_t>(count * bytesOf(dtype));
    const size_t offset = static_cast<size_t>(index) * block;
    return meet(
        "reduce_scatter", group, index, in, count, dtype,
        [&](const std::vector<const void *> &inputs) {
          if (!block)
            return;
          std::memcpy(out, static_cast<const char *>(inputs[0]) + offset,
                      block);
          for (size_t i = 1; i < inputs.size(); ++i)
            addInto(dtype, out, static_cast<const char *>(inputs[i]) + offset,
                    count);
        });
  }

  Status doSend(int peer, const void *data, int64_t count, DType dtype,
                int tag) override {
    Shared::Message msg;
    msg.bytes.resize(static_cast<size_t>(count * bytesOf(dtype)));
    if (!msg.bytes.empty())
      std::memcpy(msg.bytes.data(), data, msg.bytes.size());
    msg.count = count;
    msg.dtype = dtype;
    std::lock_guard<std::mutex> lock(s.mu);
    s.mail[{me, peer, tag}].push_back(std::move(msg));
    s.cv.notify_all();
    return Status::success();
  }

  Status doRecv(int peer, void *data, int64_t count, DType dtype,
                int tag) override {
    const std::string at = where("recv", peer, tag);
    std::unique_lock<std::mutex> lock(s.mu);
    auto &queue = s.mail[{peer, me, tag}];
    while (queue.empty()) {
      if (s.anyFailed) {
        s.peerAbort[static_cast<size_t>(me)] = true;
        return Status::error(at + ": abandoned, another rank failed");
      }
      if (s.finished[static_cast<size_t>(peer)])
        return Status::error(at + ": rank " + std::to_string(peer) +
                             " returned without sending the message");
      s.cv.wait(lock);
    }
    Shared::Message msg = std::move(queue.front());
    queue.pop_front();
    if (msg.count != count || msg.dtype != dtype)
      return Status::error(at + ": expected " + std::to_string(count) + " " +
                           dtypeName(dtype) + ", got a message of " +
                           std::to_string(msg.count) + " " +
                           dtypeName(msg.dtype));
    if (!msg.bytes.empty())
      std::memcpy(data, msg.bytes.data(), msg.bytes.size());
    return Status::success();
  }

private:
  /// Joins this rank's next collective on `group`, waits for every
  /// member, calls `read` with the members' inputs (in group order), and
  /// returns once every member has finished reading.
  Status
  meet(const char *op, const Group &group, int index, const void *in,
       int64_t count, DType dtype,
       const std::function<void(const std::vector<const void *> &)> &read) {
    const std::string at = where(op, group);
    const int members = static_cast<int>(group.size());
    std::unique_lock<std::mutex> lock(s.mu);
    uint64_t seq = s.nextSeq[static_cast<size_t>(me)][group]++;
    auto key = std::make_pair(group, seq);
    Shared::Meeting &m = s.meetings[key];
    if (!m.started) {
      m.started = true;
      m.calls.assign(static_cast<size_t>(members), "");
      m.inputs.assign(static_cast<size_t>(members), nullptr);
      m.joined.assign(static_cast<size_t>(members), false);
    }
    m.calls[static_cast<size_t>(index)] = describe(op, count, dtype);
    m.inputs[static_cast<size_t>(index)] = in;
    m.joined[static_cast<size_t>(index)] = true;
    ++m.arrived;
    s.cv.notify_all();
    while (m.arrived < members) {
      if (m.abandoned)
        return Status::error(at + ": abandoned by a member that gave up");
      if (s.anyFailed) {
        m.abandoned = true;
        s.peerAbort[static_cast<size_t>(me)] = true;
        s.cv.notify_all();
        return Status::error(at + ": abandoned, another rank failed");
      }
      for (int j = 0; j < members; ++j)
        if (!m.joined[static_cast<size_t>(j)] &&
            s.finished[static_cast<size_t>(group[static_cast<size_t>(j)])]) {
          m.abandoned = true;
          s.cv.notify_all();
          return Status::error(at + ": rank " +
                               std::to_string(group[static_cast<size_t>(j)]) +
                               " returned without joining it");
        }
      s.cv.wait(lock);
    }
    if (m.abandoned)
      return Status::error(at + ": abandoned by a member that gave up");
    // Compare in group order, so that every member reports the same pair.
    for (int j = 1; j < members; ++j)
      if (m.calls[static_cast<size_t>(j)] != m.calls[0]) {
        std::string why = "rank " + std::to_string(group[0]) + " issued " +
                          m.calls[0] + " but rank " +
                          std::to_string(group[static_cast<size_t>(j)]) +
                          " issued " + m.calls[static_cast<size_t>(j)];
        if (++m.left == members)
          s.meetings.erase(key);
        return Status::error(at + ": members disagree: " + why);
      }
    std::vector<const void *> inputs = m.inputs;
    lock.unlock();
    read(inputs);
    lock.lock();
    ++m.done;
    s.cv.notify_all();
    s.cv.wait(lock, [&] { return m.done == members; });
    if (++m.left == members)
      s.meetings.erase(key);
    return Status::success();
  }

  Shared &s;
  int me;
};

LoopbackWorld::LoopbackWorld(int size)
    : shared(std::make_unique<Shared>(size < 1 ? 1 : size)) {
  for (int r = 0; r < shared->n; ++r)
    comms.push_back(std::make_unique<RankComm>(*shared, r));
}

LoopbackWorld::~LoopbackWorld() = default;

int LoopbackWorld::size() const { return shared->n; }

Status LoopbackWorld::run(const std::function<Status(Comm &)> &body) {
  const int n = shared->n;
  {
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->reset();
  }
  std::vector<Status> results(static_cast<size_t>(n));
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(n));
  for (int r = 0; r < n; ++r)
    threads.emplace_back([&, r] {
      Status st = body(*comms[static_cast<size_t>(r)]);
      std::lock_guard<std::mutex> lock(shared->mu);
      shared->finished[static_cast<size_t>(r)] = true;
      if (!st.ok())
        shared->anyFailed = true;
      results[static_cast<size_t>(r)] = std::move(st);
      shared->cv.notify_all();
    });
  for (auto &t : threads)
    t.join();

  for (int pass = 0; pass < 2; ++pass)
    for (int r = 0; r < n; ++r) {
      const Status &st = results[static_cast<size_t>(r)];
      if (!st.ok() && (pass == 1 || !shared->peerAbort[static_cast<size_t>(r)]))
        return st.withContext("rank " + std::to_string(r));
    }
  for (const auto &[key, queue] : shared->mail)
    if (!queue.empty())
      return Status::error(
          "rank " + std::to_string(std::get<0>(key)) + " sent " +
          std::to_string(queue.size()) + " message(s) to rank " +
          std::to_string(std::get<1>(key)) + " with tag " +
          std::to_string(std::get<2>(key)) + " that nobody received");
  return Status::success();
}

} // namespace plexus::runtime
