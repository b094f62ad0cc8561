//===- SimulatorTest.cpp - Event simulator against closed forms -----------===//
#include "passes/Simulate/ChromeTrace.h"
#include "passes/Simulate/EventSimulator.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

using namespace plexus::sim;

namespace {

constexpr double kEps = 1e-12;

/// Alpha-beta point-to-point time; collectives take a ring all-reduce time.
CommTimeFn alphaBeta(double alpha, double bandwidth) {
  return [=](const CommRequest &req) -> CommTime {
    if (req.kind == CommKind::PointToPoint)
      return alpha + static_cast<double>(req.bytes) / bandwidth;
    double p = static_cast<double>(req.ranks.size());
    return 2 * (p - 1) / p * static_cast<double>(req.bytes) / bandwidth;
  };
}

/// 1F1B over p stages and m equal micro-batches (forward tf, backward tb,
/// activation `act` bytes held from a forward to its backward). Stage s runs
/// w = min(p-s-1, m) warm-up forwards, then alternates one forward and one
/// backward, then drains the remaining w backwards. Activations go forward
/// with tag 2i, gradients backward with tag 2i+1.
///
/// Sends are blocking (rendezvous), so the order of the point-to-point ops
/// matters: stage s sends activation w+i+1 to s+1 before it waits for
/// gradient i, hence s+1 must receive that activation before it sends
/// gradient i (`ordered`, Megatron's send_backward_recv_forward pairing).
/// Without it (`ordered` false) the textbook order deadlocks.
std::vector<Program> oneFOneB(int p, int m, double tf, double tb, int64_t act,
                              bool ordered = true) {
  std::vector<Program> progs(p);
  for (int s = 0; s < p; ++s) {
    std::vector<Op> &ops = progs[s].ops;
    auto recvAct = [&](int i) {
      if (s > 0)
        ops.push_back(Op::recv(s - 1, 1024, 2 * i));
    };
    auto fwd = [&](int i) {
      ops.push_back(
          Op::compute("fwd mb" + std::to_string(i), ComputeKind::Fwd, tf, act));
      if (s < p - 1)
        ops.push_back(Op::send(s + 1, 1024, 2 * i));
    };
    auto bwd = [&](int i) {
      if (s < p - 1)
        ops.push_back(Op::recv(s + 1, 1024, 2 * i + 1));
      ops.push_back(Op::compute("bwd mb" + std::to_string(i), ComputeKind::Bwd,
                                tb, -act));
    };
    auto sendGrad = [&](int i) {
      if (s > 0)
        ops.push_back(Op::send(s - 1, 1024, 2 * i + 1));
    };
    int w = std::min(p - s - 1, m);
    for (int i = 0; i < w; ++i) {
      recvAct(i);
      fwd(i);
    }
    if (ordered && w < m)
      recvAct(w);
    for (int i = 0; i < m - w; ++i) {
      if (!ordered)
        recvAct(w + i);
      fwd(w + i);
      bwd(i);
      if (ordered && w + i + 1 < m)
        recvAct(w + i + 1);
      sendGrad(i);
    }
    for (int i = m - w; i < m; ++i) {
      bwd(i);
      sendGrad(i);
    }
  }
  return progs;
}

} // namespace

// Two ranks bounce a message k times; rank 1 computes c before answering.
// Closed form: step = k * (2 * (alpha + S/B) + c).
TEST(Simulator, PingPong) {
  const double alpha = 5e-6, bw = 50e9, c = 1e-3;
  const int64_t bytes = 1 << 20;
  const int k = 3;
  std::vector<Program> progs(2);
  for (int i = 0; i < k; ++i) {
    progs[0].ops.push_back(Op::send(1, bytes, 0));
    progs[0].ops.push_back(Op::recv(1, bytes, 1));
    progs[1].ops.push_back(Op::recv(0, bytes, 0));
    progs[1].ops.push_back(Op::compute("work", ComputeKind::Fwd, c));
    progs[1].ops.push_back(Op::send(0, bytes, 1));
  }
  SimOptions opt;
  opt.commTime = alphaBeta(alpha, bw);
  SimResult r = simulate(progs, opt);
  ASSERT_TRUE(r.ok()) << r.error;
  double transfer = alpha + static_cast<double>(bytes) / bw;
  EXPECT_NEAR(r.stepSeconds, k * (2 * transfer + c), kEps);
  EXPECT_NEAR(r.ranks[0].commSeconds, 2 * k * transfer, kEps);
  EXPECT_NEAR(r.ranks[0].computeSeconds, 0, kEps);
  EXPECT_NEAR(r.ranks[0].idleSeconds, k * c, kEps);
  EXPECT_NEAR(r.ranks[1].computeSeconds, k * c, kEps);
  EXPECT_NEAR(r.ranks[1].idleSeconds, 0, kEps);
  EXPECT_EQ(r.ranks[0].spans.size(), 2u * k);
  EXPECT_EQ(r.ranks[1].spans.size(), 3u * k);
}

// Four ranks finish compute at 1, 2, 3, 4 ms, then all-reduce S bytes.
// Ring all-reduce: 2(p-1)/p * S/B = 1.5 * 1e9 / 100e9 = 15 ms, starting when
// the last rank arrives (4 ms).
TEST(Simulator, RingAllReduce) {
  const double bw = 100e9;
  const int64_t bytes = 1000000000;
  std::vector<Program> progs(4);
  std::vector<CommRequest> seen;
  for (int r = 0; r < 4; ++r) {
    progs[r].ops.push_back(Op::compute("", ComputeKind::Bwd, 1e-3 * (r + 1)));
    progs[r].ops.push_back(
        Op::collective(CommKind::AllReduce, GroupKind::Dp, "dp", {0, 1, 2, 3}, bytes));
  }
  SimOptions opt;
  opt.commTime = [&](const CommRequest &req) -> CommTime {
    seen.push_back(req);
    return alphaBeta(0, bw)(req);
  };
  SimResult r = simulate(progs, opt);
  ASSERT_TRUE(r.ok()) << r.error;
  const double ar = 2.0 * 3 / 4 * 1e9 / bw;
  EXPECT_NEAR(ar, 0.015, kEps);
  EXPECT_NEAR(r.stepSeconds, 4e-3 + ar, kEps);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].kind, CommKind::AllReduce);
  EXPECT_EQ(seen[0].group, "dp");
  EXPECT_EQ(seen[0].bytes, bytes);
  EXPECT_NEAR(seen[0].startSeconds, 4e-3, kEps);
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(r.ranks[i].commSeconds, ar, kEps);
    EXPECT_NEAR(r.ranks[i].idleSeconds, 1e-3 * (3 - i), kEps);
    EXPECT_NEAR(r.ranks[i].finishSeconds, r.stepSeconds, kEps);
  }
}

// 1F1B, p = 4 stages, m = 8 micro-batches, forward t, backward 2t, free
// point-to-point transfers. Closed form:
//   step = (p-1)*tf + m*(tf+tb) + (p-1)*tb = (m+p-1)*(tf+tb) = 11 * 3t,
// every stage busy m*(tf+tb) = 8 * 3t, so each stage's bubble fraction is
// (p-1)/(m+p-1) = 3/11. Stage s holds at most min(p-s, m) activations.
TEST(Simulator, OneFOneBPipeline) {
  const int p = 4, m = 8;
  const double t = 2e-3;
  const int64_t act = 1 << 30;
  SimOptions opt;
  opt.commTime = [](const CommRequest &) { return CommTime(0.0); };
  SimResult r = simulate(oneFOneB(p, m, t, 2 * t, act), opt);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, (m + p - 1) * 3 * t, kEps);
  EXPECT_NEAR(r.bubbleFraction(), double(p - 1) / (m + p - 1), 1e-12);
  for (int s = 0; s < p; ++s) {
    EXPECT_NEAR(r.ranks[s].computeSeconds, m * 3 * t, kEps) << s;
    EXPECT_NEAR(r.ranks[s].idleSeconds / r.stepSeconds,
                double(p - 1) / (m + p - 1), 1e-12)
        << s;
    EXPECT_EQ(r.ranks[s].peakMemoryBytes, std::min(p - s, m) * act) << s;
  }
  // Stage 0 starts at once and its last backward ends the step.
  EXPECT_NEAR(r.ranks[0].spans.front().start, 0, kEps);
  EXPECT_NEAR(r.ranks[0].finishSeconds, r.stepSeconds, kEps);
  // The last stage's first forward waits for p-1 forwards upstream.
  EXPECT_NEAR(r.ranks[p - 1].spans[1].start, (p - 1) * t, kEps);
}

// With a transfer time c per message and blocking sends, p = 2: stage 1
// receives activation 0 (t + c), then per micro-batch runs fwd + bwd (3t);
// between micro-batches it receives the next activation and sends the
// gradient back, one after the other (2c); after the last one it sends the
// gradient (c) and stage 0 runs its last backward (2t):
//   step = t + c + 3tm + 2c(m-1) + c + 2t = 3t(m+1) + 2cm.
// For p = 4 only a lower bound is checked: fill and drain cross 2(p-1) hops.
TEST(Simulator, OneFOneBWithTransferTime) {
  const double t = 2e-3, c = 1e-4;
  SimOptions opt;
  opt.commTime = [=](const CommRequest &) { return CommTime(c); };
  for (int m : {1, 4, 8}) {
    SimResult r = simulate(oneFOneB(2, m, t, 2 * t, 0), opt);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NEAR(r.stepSeconds, 3 * t * (m + 1) + 2 * c * m, kEps) << m;
  }
  const int p = 4, m = 8;
  SimResult r = simulate(oneFOneB(p, m, t, 2 * t, 0), opt);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_GE(r.stepSeconds, (m + p - 1) * 3 * t + 2 * (p - 1) * c - kEps);
}

// The textbook 1F1B order with blocking sends: stage s sends an activation
// to s+1 while s+1 sends a gradient to s. The simulator must say so.
TEST(Simulator, OneFOneBUnorderedDeadlocks) {
  SimOptions opt;
  opt.commTime = [](const CommRequest &) { return CommTime(0.0); };
  SimResult r = simulate(oneFOneB(4, 8, 1, 2, 0, /*ordered=*/false), opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);
  EXPECT_FALSE(r.errorRanks.empty());
}

TEST(Simulator, DeadlockBothReceiveFirst) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::recv(1, 8, 0), Op::send(1, 8, 0)};
  progs[1].ops = {Op::recv(0, 8, 0), Op::send(0, 8, 0)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0, 1}));
  EXPECT_NE(r.error.find("rank 0 waits at op 0: recv from 1"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("rank 1 waits at op 0: recv from 0"),
            std::string::npos)
      << r.error;
}

TEST(Simulator, DeadlockCollectivesInOppositeOrder) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::collective(CommKind::AllReduce, GroupKind::Dp, "a", {0, 1}, 8),
                  Op::collective(CommKind::AllReduce, GroupKind::Dp, "b", {0, 1}, 8)};
  progs[1].ops = {Op::collective(CommKind::AllReduce, GroupKind::Dp, "b", {0, 1}, 8),
                  Op::collective(CommKind::AllReduce, GroupKind::Dp, "a", {0, 1}, 8)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0, 1}));
}

TEST(Simulator, MismatchedCollectiveSize) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::collective(CommKind::AllGather, GroupKind::Dp, "tp", {0, 1}, 4096)};
  progs[1].ops = {Op::collective(CommKind::AllGather, GroupKind::Dp, "tp", {0, 1}, 8192)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedCollective);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0, 1}));
  EXPECT_NE(r.error.find("4096"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("8192"), std::string::npos) << r.error;
}

TEST(Simulator, MismatchedCollectiveKind) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::collective(CommKind::AllToAll, GroupKind::Sp, "sp", {0, 1}, 64)};
  progs[1].ops = {Op::collective(CommKind::ReduceScatter, GroupKind::Sp, "sp", {0, 1}, 64)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedCollective);
}

TEST(Simulator, MismatchedSendRecvSize) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::send(1, 100, 7)};
  progs[1].ops = {Op::recv(0, 200, 7)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedP2P);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0, 1}));
}

// An asynchronous send is posted by the rank's communication stream and
// the program goes on: rank 0 computes its 1 ms while rank 1 is still busy
// for 2 ms, the transfer starts when rank 1 posts its recv (2 ms) and
// rank 0's program ends when its stream has drained. The blocking send
// holds rank 0 until 2 ms + the transfer, then it computes: 1 ms later.
TEST(Simulator, AsyncSendLetsTheSenderGoOn) {
  const double alpha = 5e-6, bw = 50e9;
  const int64_t bytes = 1 << 20;
  const double transfer = alpha + static_cast<double>(bytes) / bw;
  for (bool async : {true, false}) {
    std::vector<Program> progs(2);
    Op send = Op::send(1, bytes, 0);
    send.async = async;
    progs[0].ops = {send, Op::compute("a", ComputeKind::Fwd, 1e-3)};
    progs[1].ops = {Op::compute("b", ComputeKind::Fwd, 2e-3),
                    Op::recv(0, bytes, 0)};
    SimOptions opt;
    opt.commTime = alphaBeta(alpha, bw);
    SimResult r = simulate(progs, opt);
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_NEAR(r.stepSeconds, 2e-3 + transfer + (async ? 0 : 1e-3), kEps)
        << async;
    EXPECT_NEAR(r.ranks[0].computeSeconds, 1e-3, kEps);
    EXPECT_NEAR(r.ranks[0].overlappedCommSeconds, async ? transfer : 0, kEps);
  }
  // Unmatched, it is the stream's op that waits forever.
  std::vector<Program> progs(2);
  Op send = Op::send(1, 100, 0);
  send.async = true;
  progs[0].ops = {send};
  progs[1].ops = {Op::recv(0, 100, 1)};
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);
  EXPECT_NE(r.error.find("async send to 1"), std::string::npos) << r.error;
  progs[1].ops.clear();
  r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedP2P) << r.error;
  // A blocking send would overtake an asynchronous one on its (peer, tag),
  // and a recv has no stream to run on: both are invalid programs.
  progs[0].ops = {send, Op::send(1, 100, 0)};
  progs[1].ops = {Op::recv(0, 100, 0), Op::recv(0, 100, 0)};
  r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram) << r.error;
  Op recv = Op::recv(0, 100, 0);
  recv.async = true;
  progs[0].ops = {Op::send(1, 100, 0)};
  progs[1].ops = {recv};
  r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram) << r.error;
}

TEST(Simulator, SendWithoutRecv) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::send(1, 100, 0)};
  progs[1].ops = {Op::recv(0, 100, 1)}; // wrong tag
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  SimResult r = simulate(progs, opt);
  // Both block: each waits for a counterpart that never comes.
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);

  progs[1].ops.clear();
  r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedP2P);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0}));
  EXPECT_NE(r.error.find("rank 1 has finished"), std::string::npos) << r.error;
}

TEST(Simulator, InvalidPrograms) {
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  std::vector<Program> progs(2);
  progs[0].ops = {Op::send(5, 8)};
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::InvalidProgram);
  progs[0].ops = {Op::send(0, 8)};
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::InvalidProgram);
  progs[0].ops = {Op::compute("x", ComputeKind::Fwd, -1)};
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::InvalidProgram);
  progs[0].ops = {Op::collective(CommKind::AllReduce, GroupKind::Dp, "g", {1}, 8)};
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::InvalidProgram);
  progs[0].ops = {Op::collective(CommKind::AllReduce, GroupKind::Dp, "g", {0, 0}, 8)};
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::InvalidProgram);
  // Communication without a callback.
  progs[0].ops = {Op::send(1, 8)};
  progs[1].ops = {Op::recv(0, 8)};
  EXPECT_EQ(simulate(progs, SimOptions()).errorKind,
            SimErrorKind::InvalidProgram);
  // Compute only needs no callback; no programs at all is an empty step.
  progs[0].ops = {Op::compute("x", ComputeKind::Fwd, 1)};
  progs[1].ops.clear();
  EXPECT_TRUE(simulate(progs, SimOptions()).ok());
  SimResult empty = simulate({}, SimOptions());
  EXPECT_TRUE(empty.ok());
  EXPECT_EQ(empty.stepSeconds, 0);
}

TEST(Simulator, CallbackFailures) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::send(1, 8)};
  progs[1].ops = {Op::recv(0, 8)};
  SimOptions opt;
  opt.commTime = [](const CommRequest &) {
    return CommTime::failure("no route");
  };
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::CommTimeFailed);
  EXPECT_NE(r.error.find("no route"), std::string::npos);
  opt.commTime = [](const CommRequest &) { return CommTime(-1.0); };
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::CommTimeFailed);
  opt.commTime = [](const CommRequest &) -> CommTime {
    throw std::runtime_error("boom");
  };
  EXPECT_EQ(simulate(progs, opt).errorKind, SimErrorKind::CommTimeFailed);
}

// Memory: +3, +4, -3, +10, -14 from a resident 100 gives a peak of 114.
TEST(Simulator, PeakMemory) {
  std::vector<Program> progs(1);
  progs[0].initialMemoryBytes = 100;
  for (int64_t d : {3, 4, -3, 10, -14})
    progs[0].ops.push_back(Op::compute("", ComputeKind::Fwd, 1, d));
  SimResult r = simulate(progs, SimOptions());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.ranks[0].peakMemoryBytes, 114);
  EXPECT_NEAR(r.stepSeconds, 5, kEps);
}

// MFU = FLOPs / (step * ranks * peak): 2 ranks, 1 s step, 1e12 FLOPs at a
// peak of 1e12 FLOP/s each gives 0.5.
TEST(Simulator, Mfu) {
  std::vector<Program> progs(2);
  progs[0].ops = {Op::compute("", ComputeKind::Fwd, 1)};
  progs[1].ops = {Op::compute("", ComputeKind::Recompute, 0.5)};
  SimOptions opt;
  EXPECT_FALSE(simulate(progs, opt).mfu.has_value());
  opt.totalFlops = 1e12;
  opt.peakFlopsPerRank = 1e12;
  SimResult r = simulate(progs, opt);
  ASSERT_TRUE(r.mfu.has_value());
  EXPECT_NEAR(*r.mfu, 0.5, kEps);
  EXPECT_NEAR(r.ranks[1].idleSeconds, 0.5, kEps);
}

// The callback sees communications in non-decreasing start time.
TEST(Simulator, CallbackInTimeOrder) {
  std::vector<double> starts;
  SimOptions opt;
  opt.commTime = [&](const CommRequest &req) {
    starts.push_back(req.startSeconds);
    return CommTime(1e-5);
  };
  SimResult r = simulate(oneFOneB(4, 8, 1e-3, 2e-3, 0), opt);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_FALSE(starts.empty());
  EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
}

TEST(Simulator, Deterministic) {
  SimOptions opt;
  opt.commTime = alphaBeta(1e-6, 25e9);
  auto progs = oneFOneB(4, 8, 1e-3, 2e-3, 1000);
  for (int r = 0; r < 4; ++r)
    progs[r].ops.push_back(
        Op::collective(CommKind::AllReduce, GroupKind::Dp, "dp", {0, 1, 2, 3}, 1 << 24));
  std::string a = chromeTraceJson(simulate(progs, opt));
  std::string b = chromeTraceJson(simulate(progs, opt));
  EXPECT_EQ(a, b);
}

TEST(ChromeTrace, OneThreadPerRank) {
  SimOptions opt;
  opt.commTime = [](const CommRequest &) { return CommTime(0.0); };
  SimResult r = simulate(oneFOneB(4, 8, 2e-3, 4e-3, 0), opt);
  ASSERT_TRUE(r.ok()) << r.error;
  std::string path = ::testing::TempDir() + "plexus_sim_trace.json";
  ASSERT_EQ(writeChromeTrace(r, path), "");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  nlohmann::json trace = nlohmann::json::parse(text.str(), nullptr, false);
  ASSERT_FALSE(trace.is_discarded());
  ASSERT_TRUE(trace["traceEvents"].is_array());
  std::set<int64_t> named, used;
  size_t spans = 0, xEvents = 0;
  for (const auto &rr : r.ranks)
    spans += rr.spans.size();
  bool sawFirst = false;
  for (const auto &e : trace["traceEvents"]) {
    EXPECT_EQ(e["pid"], 0);
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      named.insert(e["tid"].get<int64_t>());
      EXPECT_EQ(e["args"]["name"],
                "rank " + std::to_string(e["tid"].get<int64_t>()));
    }
    if (e["ph"] == "X") {
      ++xEvents;
      used.insert(e["tid"].get<int64_t>());
      EXPECT_GE(e["dur"].get<double>(), 0);
      if (e["tid"] == 0 && e["name"] == "fwd mb0") {
        sawFirst = true;
        EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 0);
        EXPECT_NEAR(e["dur"].get<double>(), 2000, 1e-6); // 2 ms in us
        EXPECT_EQ(e["cat"], "fwd");
      }
    }
  }
  EXPECT_TRUE(sawFirst);
  EXPECT_EQ(named, (std::set<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(used, named);
  EXPECT_EQ(xEvents, spans);
  EXPECT_EQ(writeChromeTrace(r, "/nonexistent-dir/x.json").empty(), false);
}

//===----------------------------------------------------------------------===//
// Asynchronous collectives on each rank's communication stream
//===----------------------------------------------------------------------===//

namespace {

/// Every collective takes `seconds`, whatever its size.
CommTimeFn fixedTime(double seconds) {
  return [=](const CommRequest &) { return CommTime(seconds); };
}

/// Two ranks running the same ops.
std::vector<Program> twice(const std::vector<Op> &ops) {
  return {Program{ops, 0}, Program{ops, 0}};
}

/// Two ranks that issue an asynchronous gather, compute `seconds`, then
/// wait for the gather.
std::vector<Program> gatherBeside(double seconds) {
  return twice({Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1},
                               8, true),
                Op::compute("fwd", ComputeKind::Fwd, seconds), Op::wait()});
}

TEST(AsyncCollectives, HideUnderComputeUntilTheWait) {
  // A 2 s gather issued before 3 s of compute costs nothing: step = 3.
  SimOptions options;
  options.commTime = fixedTime(2);
  SimResult r =
      simulate(gatherBeside(3), options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, 3, kEps);
  EXPECT_NEAR(r.ranks[0].overlappedCommSeconds, 2, kEps);
  EXPECT_NEAR(r.ranks[0].commSeconds, 0, kEps);
  EXPECT_NEAR(r.ranks[0].idleSeconds, 0, kEps);
}

TEST(AsyncCollectives, AWaitExposesWhatComputeDoesNotHide) {
  // 5 s gather, wait, 1 s compute: 6 s, of which 5 s waiting.
  SimOptions options;
  options.commTime = fixedTime(5);
  SimResult r =
      simulate(twice({Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
                      Op::wait(), Op::compute("fwd", ComputeKind::Fwd, 1)}),
               options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, 6, kEps);
  EXPECT_NEAR(r.ranks[0].commSeconds, 5, kEps); // the wait
  EXPECT_NEAR(r.ranks[0].computeSeconds, 1, kEps);
}

TEST(AsyncCollectives, TheStreamRunsOneCollectiveAtATime) {
  // Two 2 s collectives queue: the second ends at 4; pending 1 lets the
  // rank go on after the first (t = 2), the program's end waits for both.
  SimOptions options;
  options.commTime = fixedTime(2);
  SimResult r = simulate(
      twice({Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
             Op::collective(CommKind::ReduceScatter, GroupKind::Dp, "z", {0, 1}, 8, true),
             Op::wait(1), Op::compute("bwd", ComputeKind::Bwd, 1)}),
      options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, 4, kEps);
  const std::vector<Span> &spans = r.ranks[0].spans;
  auto bwd = std::find_if(spans.begin(), spans.end(),
                          [](const Span &s) { return s.category == "bwd"; });
  ASSERT_NE(bwd, spans.end());
  EXPECT_NEAR(bwd->start, 2, kEps);
}

// Contention (SimOptions::overlap, passes/Cost/Overlap.h): compute runs
// (1 + k) times slower while a stream collective runs, and the collective
// takes 1 / e of its callback's time. Here k = 0.2.
TEST(Contention, ComputeIssuedBesideARunningGatherIsSlowed) {
  // A 2 s gather at e = 0.8 runs 2.5 s; 3 s of compute issued with it does
  // 2.5 / 1.2 s of work in those 2.5 s and the rest at full speed:
  // 2.5 + (3 - 2.5 / 1.2) = 3 + 2.5 * 0.2 / 1.2 = 3.41667 s.
  SimOptions options;
  options.commTime = fixedTime(2);
  options.overlap = {0.2, 0.8};
  SimResult r =
      simulate(gatherBeside(3), options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, 3 + 2.5 * 0.2 / 1.2, kEps);
  EXPECT_NEAR(r.ranks[0].overlappedCommSeconds, 2.5, kEps);
  EXPECT_NEAR(r.ranks[0].computeSeconds, 3 + 2.5 * 0.2 / 1.2, kEps);
  // Compute shorter than the collective is slowed for all of it: 1 s of
  // work takes 1.2 s, and the wait then exposes 2.5 - 1.2 s.
  SimResult shortCompute =
      simulate(gatherBeside(1), options);
  ASSERT_TRUE(shortCompute.ok()) << shortCompute.error;
  EXPECT_NEAR(shortCompute.stepSeconds, 2.5, kEps);
  EXPECT_NEAR(shortCompute.ranks[0].computeSeconds, 1.2, kEps);
  // The same closed form as the planners' (concurrentSeconds).
  EXPECT_NEAR(options.overlap.concurrentSeconds(3, 2), r.stepSeconds, kEps);
  EXPECT_NEAR(options.overlap.concurrentSeconds(1, 2), 2.5, kEps);
}

TEST(Contention, AGatherThatStartsDuringComputeDelaysItsEnd) {
  // Rank 0 queues the gather, then computes 3 s from t = 0; rank 1 reaches
  // the gather only at t = 1, so it runs [1, 3] (e = 1). Rank 0's compute
  // has 2 s left when it starts: 2 + 2 * 0.2 / 1.2 s, ending at 3.33333.
  SimOptions options;
  options.commTime = fixedTime(2);
  options.overlap = {0.2, 1.0};
  std::vector<Program> programs = {
      Program{{Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
               Op::compute("fwd", ComputeKind::Fwd, 3)},
              0},
      Program{{Op::compute("fwd", ComputeKind::Fwd, 1),
               Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
               Op::wait()},
              0}};
  SimResult r = simulate(programs, options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.ranks[0].finishSeconds, 3 + 2 * 0.2 / 1.2, kEps);
  EXPECT_NEAR(r.ranks[1].finishSeconds, 3, kEps);
  EXPECT_NEAR(r.stepSeconds, 3 + 2 * 0.2 / 1.2, kEps);
  // The compute span itself is longer: [0, 3.33333].
  auto fwd = std::find_if(r.ranks[0].spans.begin(), r.ranks[0].spans.end(),
                          [](const Span &s) { return s.category == "fwd"; });
  ASSERT_NE(fwd, r.ranks[0].spans.end());
  EXPECT_NEAR(fwd->start, 0, kEps);
  EXPECT_NEAR(fwd->end, 3 + 2 * 0.2 / 1.2, kEps);
  EXPECT_NEAR(r.ranks[0].computeSeconds, 3 + 2 * 0.2 / 1.2, kEps);
}

TEST(Contention, NoneIsTheDefault) {
  // Without the chip's figures nothing changes: the 3 s of the first case.
  SimOptions options;
  options.commTime = fixedTime(2);
  EXPECT_EQ(options.overlap.computeSlowdown, 0);
  EXPECT_EQ(options.overlap.commEfficiency, 1);
  SimResult r =
      simulate(gatherBeside(3), options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.stepSeconds, 3, kEps);
}

TEST(AsyncCollectives, MatchSynchronousOnesInIssueOrder) {
  // Rank 0 issues the gather asynchronously, rank 1 synchronously: they
  // are the same instance (#0 on "z"); rank 1 blocks for it, rank 0 not.
  SimOptions options;
  options.commTime = fixedTime(2);
  std::vector<Program> programs{
      Program{{Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
               Op::compute("fwd", ComputeKind::Fwd, 1)},
              0},
      Program{{Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8),
               Op::compute("fwd", ComputeKind::Fwd, 1)},
              0}};
  SimResult r = simulate(programs, options);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_NEAR(r.ranks[0].finishSeconds, 2, kEps); // its end drains the stream
  EXPECT_NEAR(r.ranks[1].finishSeconds, 3, kEps);
}

TEST(AsyncCollectives, AnUnmatchedAsyncCollectiveIsReported) {
  SimOptions options;
  options.commTime = fixedTime(1);
  std::vector<Program> programs{
      Program{{Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
               Op::wait()},
              0},
      Program{{Op::compute("fwd", ComputeKind::Fwd, 1)}, 0}};
  SimResult r = simulate(programs, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errorKind, SimErrorKind::MismatchedCollective);
  EXPECT_NE(r.error.find("rank 0 waits for its op 0: async all_gather"),
            std::string::npos)
      << r.error;
}

TEST(AsyncCollectives, NegativePendingIsInvalid) {
  SimOptions options;
  SimResult r = simulate({Program{{Op::wait(-1)}, 0}}, options);
  EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram);
}

TEST(AsyncCollectives, StreamSpansGetTheirOwnTraceTrack) {
  SimOptions options;
  options.commTime = fixedTime(2);
  SimResult r =
      simulate(twice({Op::collective(CommKind::AllGather, GroupKind::Dp, "z", {0, 1}, 8, true),
                      Op::compute("fwd", ComputeKind::Fwd, 3)}),
               options);
  ASSERT_TRUE(r.ok());
  auto trace = nlohmann::json::parse(chromeTraceJson(r, "step"));
  std::set<int64_t> gatherTids;
  for (const auto &e : trace["traceEvents"])
    if (e["ph"] == "X" && e["cat"] == "all_gather")
      gatherTids.insert(e["tid"].get<int64_t>());
  EXPECT_EQ(gatherTids, (std::set<int64_t>{2, 3}));
}

} // namespace

// Without spans the result is the same but for them: every rank's totals,
// its recompute durations and the step, to the last bit (the totals are
// summed in the order the spans would have been kept).
TEST(Simulator, SpansOffKeepsEveryTotal) {
  auto progs = oneFOneB(4, 6, 1e-3, 2e-3, 1000);
  for (int r = 0; r < 4; ++r) {
    progs[r].ops.insert(progs[r].ops.begin() + 1,
                        Op::compute("recompute", ComputeKind::Recompute,
                                    3e-4 * (r + 1)));
    progs[r].ops.push_back(Op::collective(CommKind::AllReduce, GroupKind::Dp,
                                          "dp", {0, 1, 2, 3}, 1 << 20,
                                          /*async=*/true));
    progs[r].ops.push_back(Op::wait(0));
  }
  SimOptions opt;
  opt.commTime = alphaBeta(1e-6, 25e9);
  SimResult with = simulate(progs, opt);
  opt.keepSpans = false;
  SimResult without = simulate(progs, opt);
  ASSERT_TRUE(with.ok() && without.ok());
  EXPECT_EQ(with.stepSeconds, without.stepSeconds);
  ASSERT_EQ(with.ranks.size(), without.ranks.size());
  for (size_t r = 0; r < with.ranks.size(); ++r) {
    const RankResult &a = with.ranks[r], &b = without.ranks[r];
    EXPECT_FALSE(a.spans.empty());
    EXPECT_TRUE(b.spans.empty());
    EXPECT_EQ(a.computeSeconds, b.computeSeconds);
    EXPECT_EQ(a.commSeconds, b.commSeconds);
    EXPECT_EQ(a.overlappedCommSeconds, b.overlappedCommSeconds);
    EXPECT_EQ(a.idleSeconds, b.idleSeconds);
    EXPECT_EQ(a.peakMemoryBytes, b.peakMemoryBytes);
    EXPECT_EQ(a.recomputeSpanSeconds, b.recomputeSpanSeconds);
    ASSERT_EQ(a.recomputeSpanSeconds.size(), 1u);
    EXPECT_DOUBLE_EQ(a.recomputeSpanSeconds[0], 3e-4 * double(r + 1));
  }
}

// Ops over one communicator share its member list; the simulator checks a
// shared list once but still checks every op's own rank against it, and a
// bad shared list fails every op that holds it.
TEST(Simulator, SharedMemberListsAreCheckedPerOp) {
  const plexus::prog::Members pair{0, 1};
  std::vector<Program> progs(3);
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 3; ++k)
      progs[r].ops.push_back(
          Op::collective(CommKind::AllReduce, GroupKind::Dp, "g", pair, 8));
  SimOptions opt;
  opt.commTime = alphaBeta(0, 1e9);
  EXPECT_TRUE(simulate(progs, opt).ok());
  // Rank 2 holds the same list, which does not include it.
  progs[2].ops.push_back(
      Op::collective(CommKind::AllReduce, GroupKind::Dp, "g", pair, 8));
  SimResult r = simulate(progs, opt);
  EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram);
  EXPECT_NE(r.error.find("rank 2 op 0"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("does not include the rank"), std::string::npos);
  const plexus::prog::Members repeated{1, 1};
  progs[2].ops.clear();
  progs[1].ops.push_back(
      Op::collective(CommKind::AllReduce, GroupKind::Dp, "h", repeated, 8));
  r = simulate(progs, opt);
  EXPECT_NE(r.error.find("group member repeated"), std::string::npos)
      << r.error;
}

// Members: one list shared by copies, equal by value to an equal list.
TEST(Members, SharedAndComparedByValue) {
  const plexus::prog::Members a{3, 1, 2};
  const plexus::prog::Members b = a;
  EXPECT_EQ(a.id(), b.id());
  EXPECT_EQ(a, b);
  const plexus::prog::Members c(std::vector<int64_t>{3, 1, 2});
  EXPECT_NE(a.id(), c.id());
  EXPECT_EQ(a, c);
  EXPECT_EQ(a, (std::vector<int64_t>{3, 1, 2}));
  EXPECT_NE(a, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(a.size(), 3u);
  EXPECT_EQ(a.front(), 3);
  EXPECT_EQ(a.back(), 2);
  EXPECT_EQ(a[1], 1);
  const plexus::prog::Members none;
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.id(), nullptr);
  EXPECT_EQ(none, std::vector<int64_t>{});
}
