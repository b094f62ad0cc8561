//===- SymmetryTest.cpp - One rank per class of equal programs ------------===//
//
// SimOptions::symmetry runs one rank of each class of equal programs. These
// tests compare it with the run of every rank on steps built to trip it: classes
// whose ranks interleave, asynchronous streams and waits, a stateful duration
// callback whose answers depend on the order of its calls (as the fabric's
// contention model's do), point-to-point ranks, deadlocks and invalid
// programs. The corpus test (test/corpus/check-symmetry.py) compares whole
// reports on every corpus plan.
//
//===----------------------------------------------------------------------===//
#include "passes/Simulate/EventSimulator.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

using namespace plexus::sim;

namespace {

/// A stateful callback: the duration grows with the calls already made at
/// the same start time, so a different call order gives different answers;
/// every call is logged.
struct OrderSensitive {
  std::vector<std::string> log;
  CommTimeFn fn() {
    return [this](const CommRequest &r) -> CommTime {
      std::ostringstream os;
      os << plexus::prog::toString(r.kind) << " " << r.group << " [";
      for (int64_t m : r.ranks)
        os << m << ",";
      os << "] " << r.bytes << " at " << r.startSeconds;
      int64_t same = 0;
      for (const std::string &line : log)
        same += line.substr(line.rfind(" at ")) ==
                os.str().substr(os.str().rfind(" at "));
      log.push_back(os.str());
      return 1e-3 * static_cast<double>(1 + r.bytes % 7) +
             1e-4 * static_cast<double>(same);
    };
  }
};

void expectSameResult(const SimResult &a, const SimResult &b) {
  EXPECT_EQ(a.errorKind, b.errorKind);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.errorRanks, b.errorRanks);
  EXPECT_EQ(a.stepSeconds, b.stepSeconds); // to the bit
  EXPECT_EQ(a.mfu, b.mfu);
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t r = 0; r < a.ranks.size(); ++r) {
    const RankResult &x = a.ranks[r], &y = b.ranks[r];
    SCOPED_TRACE("rank " + std::to_string(r));
    EXPECT_EQ(x.computeSeconds, y.computeSeconds);
    EXPECT_EQ(x.commSeconds, y.commSeconds);
    EXPECT_EQ(x.overlappedCommSeconds, y.overlappedCommSeconds);
    EXPECT_EQ(x.idleSeconds, y.idleSeconds);
    EXPECT_EQ(x.finishSeconds, y.finishSeconds);
    EXPECT_EQ(x.peakMemoryBytes, y.peakMemoryBytes);
    EXPECT_EQ(x.recomputeSpanSeconds, y.recomputeSpanSeconds);
    ASSERT_EQ(x.spans.size(), y.spans.size());
    for (size_t i = 0; i < x.spans.size(); ++i) {
      EXPECT_EQ(x.spans[i].name, y.spans[i].name);
      EXPECT_EQ(x.spans[i].category, y.spans[i].category);
      EXPECT_EQ(x.spans[i].start, y.spans[i].start);
      EXPECT_EQ(x.spans[i].end, y.spans[i].end);
      EXPECT_EQ(x.spans[i].opIndex, y.spans[i].opIndex);
      EXPECT_EQ(x.spans[i].bytes, y.spans[i].bytes);
      EXPECT_EQ(x.spans[i].async, y.spans[i].async);
    }
  }
}

/// Runs `programs` with and without symmetry (spans kept and not) and
/// expects the same result and the same callback calls in the same order;
/// returns the symmetric run.
SimResult compareRuns(const std::vector<Program> &programs) {
  SimResult symmetric;
  for (bool spans : {true, false}) {
    OrderSensitive full, classes;
    SimOptions a, b;
    a.commTime = full.fn();
    a.symmetry = false;
    a.keepSpans = spans;
    a.totalFlops = 1e12;
    a.peakFlopsPerRank = 1e12;
    b = a;
    b.commTime = classes.fn();
    b.symmetry = true;
    SimResult ra = simulate(programs, a), rb = simulate(programs, b);
    EXPECT_EQ(ra.simulatedRanks, static_cast<int64_t>(programs.size()));
    expectSameResult(ra, rb);
    EXPECT_EQ(full.log, classes.log);
    symmetric = rb;
  }
  return symmetric;
}

/// Two classes whose ranks interleave: X = {0, 2, 5, 7} and Y = {1, 3, 4,
/// 6}. Each runs an all-to-all in its own group, a prefetching all-gather
/// over all 8 on its stream, compute, a wait and a final all-reduce over
/// all 8; Y computes longer, so X waits at the all-reduce.
std::vector<Program> interleaved() {
  const plexus::prog::Members x{0, 2, 5, 7}, y{1, 3, 4, 6},
      all{0, 1, 2, 3, 4, 5, 6, 7};
  auto program = [&](const plexus::prog::Members &mine, const char *name,
                     double seconds) {
    Program p;
    p.initialMemoryBytes = 100;
    p.ops = {
        Op::collective(CommKind::AllGather, GroupKind::Zero, "zero", all, 64,
                       /*async=*/true),
        Op::collective(CommKind::AllToAll, GroupKind::Sp, name, mine, 32),
        Op::compute("fwd", ComputeKind::Fwd, seconds, 50),
        Op::wait(),
        Op::collective(CommKind::AllGather, GroupKind::Zero, "zero", all, 64,
                       /*async=*/true),
        Op::compute("bwd", ComputeKind::Bwd, 2 * seconds, -50),
        Op::compute("recompute", ComputeKind::Recompute, seconds / 3),
        Op::wait(),
        Op::collective(CommKind::AllReduce, GroupKind::Dp, "dp", all, 128),
    };
    p.ops[2].flops = 1e9;
    return p;
  };
  std::vector<Program> programs(8);
  for (int64_t r : x)
    programs[static_cast<size_t>(r)] = program(x, "sp:x", 0.002);
  for (int64_t r : y)
    programs[static_cast<size_t>(r)] = program(y, "sp:y", 0.003);
  return programs;
}

TEST(Symmetry, InterleavedClassesGiveTheFullRunToTheBit) {
  SimResult r = compareRuns(interleaved());
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.simulatedRanks, 2);
  // Every member of a class has its representative's timeline.
  EXPECT_EQ(r.ranks[7].finishSeconds, r.ranks[0].finishSeconds);
  EXPECT_EQ(r.ranks[6].idleSeconds, r.ranks[1].idleSeconds);
}

TEST(Symmetry, RanksThatSendOrReceiveAreSimulatedOnTheirOwn) {
  // Two equal lanes of a 2-stage pipeline: 0 -> 2 and 1 -> 3. Lanes differ
  // only in their peers, and ranks with sends or receives are never merged.
  std::vector<Program> programs(4);
  for (int64_t lane : {0, 1}) {
    programs[lane].ops = {Op::compute("fwd", ComputeKind::Fwd, 1e-3),
                          Op::send(lane + 2, 1000, 0)};
    programs[lane + 2].ops = {Op::recv(lane, 1000, 0),
                              Op::compute("fwd", ComputeKind::Fwd, 1e-3)};
  }
  SimResult r = compareRuns(programs);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.simulatedRanks, 4);
}

TEST(Symmetry, DeadlocksNameEveryBlockedRank) {
  // Class {0, 1} reduces on "a" then "b", class {2, 3} on "b" then "a".
  const plexus::prog::Members all{0, 1, 2, 3};
  std::vector<Program> programs(4);
  for (int64_t r = 0; r < 4; ++r) {
    Op a = Op::collective(CommKind::AllReduce, GroupKind::Dp, "a", all, 8);
    Op b = Op::collective(CommKind::AllReduce, GroupKind::Dp, "b", all, 8);
    programs[r].ops = r < 2 ? std::vector<Op>{a, b} : std::vector<Op>{b, a};
  }
  SimResult r = compareRuns(programs);
  EXPECT_EQ(r.errorKind, SimErrorKind::Deadlock);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_NE(r.error.find("rank 3 waits at op 0"), std::string::npos) << r.error;
}

TEST(Symmetry, AMemberOutsideItsClassGroupIsReported) {
  // Ranks 0..3 run one program over group [0, 1, 2]: rank 3, merged with
  // them, is not a member.
  std::vector<Program> programs(4);
  for (Program &p : programs)
    p.ops = {Op::compute("fwd", ComputeKind::Fwd, 1e-3),
             Op::collective(CommKind::AllReduce, GroupKind::Dp, "g",
                            plexus::prog::Members{0, 1, 2}, 8)};
  SimResult r = compareRuns(programs);
  EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram);
  EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{3}));
  EXPECT_NE(r.error.find("rank 3 op 1"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("group does not include the rank"), std::string::npos);
}

TEST(Symmetry, ProgramsEqualOnlyUpToAFieldStayApart) {
  // Rank 5 differs from the rest of X in one op's bytes: it is a class of
  // its own, and the all-to-all over X reports the disagreement between
  // the same two ranks as a full run (which rank arrived first, and so
  // the message's order and the calls made before it, may differ: the
  // file comment of EventSimulator.h).
  std::vector<Program> programs = interleaved();
  programs[5].ops[1].bytes = 33;
  SimOptions full, classes;
  full.commTime = classes.commTime = [](const CommRequest &) {
    return CommTime(1e-3);
  };
  full.symmetry = false;
  SimResult a = simulate(programs, full), b = simulate(programs, classes);
  EXPECT_EQ(b.simulatedRanks, 3);
  EXPECT_EQ(a.errorKind, SimErrorKind::MismatchedCollective) << a.error;
  EXPECT_EQ(b.errorKind, SimErrorKind::MismatchedCollective) << b.error;
  EXPECT_EQ(a.errorRanks, (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(b.errorRanks, a.errorRanks);
}

} // namespace

// SimOptions::replicas: a group across replicas must hold every image of
// its ranks (r + k * n for each k), nothing less; members past the last
// replica are not ranks.
TEST(Symmetry, GroupsAcrossReplicasHoldEveryImage) {
  auto run = [](plexus::prog::Members members, int64_t replicas) {
    std::vector<Program> programs(2);
    for (int64_t r = 0; r < 2; ++r)
      programs[r].ops = {Op::collective(CommKind::AllReduce, GroupKind::Dp,
                                        "g" + std::to_string(r),
                                        r == 0 ? members
                                               : plexus::prog::Members{1, 3, 5},
                                        8)};
    SimOptions options;
    options.commTime = [](const CommRequest &req) {
      return CommTime(1e-3 * double(req.ranks.size()));
    };
    options.replicas = replicas;
    return simulate(programs, options);
  };
  SimResult ok = run({0, 2, 4}, 3);
  ASSERT_TRUE(ok.ok()) << ok.error;
  // Each rank's all-reduce is timed over its 3 members.
  EXPECT_DOUBLE_EQ(ok.stepSeconds, 3e-3);
  EXPECT_EQ(ok.simulatedRanks, 2);
  for (plexus::prog::Members bad :
       {plexus::prog::Members{0, 2}, plexus::prog::Members{0, 3, 4},
        plexus::prog::Members{0, 2, 4, 6}}) {
    SimResult r = run(bad, 3);
    EXPECT_EQ(r.errorKind, SimErrorKind::InvalidProgram) << r.error;
    EXPECT_EQ(r.errorRanks, (std::vector<int64_t>{0}));
  }
  // Without replicas, members past the programs are not ranks.
  SimResult single = run({0, 2, 4}, 1);
  EXPECT_EQ(single.errorKind, SimErrorKind::InvalidProgram);
  EXPECT_NE(single.error.find("not a rank"), std::string::npos) << single.error;
}
