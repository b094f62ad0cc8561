//===- FabricCommTimeTest.cpp - Line-rate share and contention ------------===//
#include "passes/Simulate/FabricCommTime.h"

#include "test/unit/Fabric/FabricFixtures.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::sim;
using namespace plexus::fabric::fixtures;

namespace {

constexpr double kTol = 1e-12;

/// 2 nodes x 2 chips on a radix-4 fat-tree; rank r on chip (r / 2, r % 2).
struct TwoNodes {
  fabric::FabricGraph g = built(fatTree(4, 2), 2, 2);
  std::vector<fabric::ChipRef> chips{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  fabric::CollectiveParams params;
};

CommRequest request(CommKind kind, std::vector<int64_t> ranks, int64_t bytes,
                    double start) {
  CommRequest r;
  r.kind = kind;
  r.ranks = std::move(ranks);
  r.bytes = bytes;
  r.startSeconds = start;
  return r;
}

TEST(FabricCommTime, EfficiencyStretchesOnlyTheBandwidthPart) {
  TwoNodes f;
  CommRequest r = request(CommKind::AllToAll, {0, 1, 2, 3}, 4'000'000'000, 0);
  fabric::CollectiveTime line = fabricRequestTime(f.g, f.chips, f.params, r);
  ASSERT_TRUE(line.ok()) << line.error;
  FabricCommOptions half;
  half.efficiency = 0.5;
  half.contention = false;
  CommTime t = fabricCommTime(f.g, f.chips, f.params, half)(r);
  EXPECT_NEAR(t.seconds, 2 * line.bandwidthSeconds + line.latencySeconds, kTol);
}

// Two all-to-alls over both whole nodes (each uses all of both nodes'
// links): the second, starting while the first has T to go, runs at half
// speed for min(b, T/2) longer.
TEST(FabricCommTime, TransfersOverTheSameLinksShareThem) {
  TwoNodes f;
  FabricCommOptions options;
  options.efficiency = 1;
  CommTimeFn time = fabricCommTime(f.g, f.chips, f.params, options);
  CommRequest r = request(CommKind::AllToAll, {0, 1, 2, 3}, 4'000'000'000, 0);
  fabric::CollectiveTime line = fabricRequestTime(f.g, f.chips, f.params, r);
  const double b = line.bandwidthSeconds, t1 = b + line.latencySeconds;
  EXPECT_NEAR(time(r).seconds, t1, kTol);
  EXPECT_NEAR(time(r).seconds, t1 + std::min(b, t1 / 2), kTol);
  // Once both are over, a third runs alone again.
  r.startSeconds = 10;
  EXPECT_NEAR(time(r).seconds, t1, kTol);
  // An earlier start means a new simulation: nothing is running.
  r.startSeconds = 0;
  EXPECT_NEAR(time(r).seconds, t1, kTol);
}

// Two rings with one rank per node each use half of each node's links:
// together they fit, neither slows the other.
TEST(FabricCommTime, RingsOnDifferentChipsDoNotContend) {
  TwoNodes f;
  FabricCommOptions options;
  options.efficiency = 1;
  CommTimeFn time = fabricCommTime(f.g, f.chips, f.params, options);
  CommRequest a = request(CommKind::AllReduce, {0, 2}, 1'000'000'000, 0);
  CommRequest b = request(CommKind::AllReduce, {1, 3}, 1'000'000'000, 0);
  double alone = fabricRequestTime(f.g, f.chips, f.params, b).seconds;
  time(a);
  EXPECT_NEAR(time(b).seconds, alone, kTol);
}

// Transfers inside one node never contend on the fabric.
TEST(FabricCommTime, IntraNodeTransfersAreNotSlowed) {
  TwoNodes f;
  CommTimeFn time = fabricCommTime(f.g, f.chips, f.params);
  CommRequest r = request(CommKind::AllReduce, {0, 1}, 1'000'000'000, 0);
  double first = time(r).seconds;
  EXPECT_NEAR(time(r).seconds, first, kTol);
}

// A request from a program carries its shared member list (members ==
// ranks); the model keys its cache on the list's identity and keeps the
// lists it keys on alive, so a list freed by the caller cannot be
// mistaken for a new one that the allocator puts at the same address.
TEST(FabricCommTime, SharedMemberListsKeyTheCacheSafely) {
  TwoNodes f;
  FabricCommOptions options;
  options.contention = false;
  options.efficiency = 1;
  CommTimeFn time = fabricCommTime(f.g, f.chips, f.params, options);
  const std::vector<std::vector<int64_t>> groups = {{0, 2}, {0, 1, 2, 3},
                                                    {1, 2}, {0, 1}};
  for (int round = 0; round < 50; ++round) {
    const std::vector<int64_t> &ranks = groups[round % groups.size()];
    CommRequest r = request(CommKind::AllReduce, ranks, 1'000'000'000, 0);
    r.members = prog::Members(ranks); // a fresh list, freed after the call
    const double alone = fabricRequestTime(f.g, f.chips, f.params, r).seconds;
    EXPECT_NEAR(time(r).seconds, alone, kTol) << "round " << round;
    // The same list again, and the same members by value, agree.
    EXPECT_NEAR(time(r).seconds, alone, kTol);
    r.members = prog::Members();
    EXPECT_NEAR(time(r).seconds, alone, kTol);
  }
}

TEST(FabricCommTime, ARankWithoutAChipIsAnError) {
  TwoNodes f;
  CommTime t = fabricCommTime(f.g, f.chips, f.params)(
      request(CommKind::AllReduce, {0, 7}, 8, 0));
  EXPECT_EQ(t.error, "rank 7 has no chip");
}

} // namespace
