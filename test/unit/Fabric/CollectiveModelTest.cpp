//===- CollectiveModelTest.cpp - Collective time models -------------------===//
//
// Each expected value is a closed form worked out by hand in the comment
// above it (docs/collectives.md has the formulas).
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/CollectiveModel.h"
#include "test/unit/Fabric/FabricFixtures.h"

#include <gtest/gtest.h>

using namespace plexus::fabric;

using namespace plexus::fabric::fixtures;

namespace {

/// Round numbers: intra 400 GB/s, alpha 1 us intra / 5 us inter, 0.5 us per
/// optical or switch hop, 1 us per relay.
CollectiveParams params() {
  CollectiveParams p;
  p.intraNodeBandwidth = 400e9;
  p.intraNodeAlpha = 1e-6;
  p.interNodeAlpha = 5e-6;
  p.opticalHopLatency = 0.5e-6;
  p.switchHopLatency = 0.5e-6;
  p.relayLatency = 1e-6;
  return p;
}

std::vector<ChipRef> allChips(const FabricGraph &g) {
  std::vector<ChipRef> r;
  for (int64_t n = 0; n < g.nodes; ++n)
    for (int64_t c = 0; c < g.chipsPerNode; ++c)
      r.push_back({n, c});
  return r;
}

std::vector<ChipRef> firstChips(int64_t nodes) {
  std::vector<ChipRef> r;
  for (int64_t n = 0; n < nodes; ++n)
    r.push_back({n, 0});
  return r;
}

constexpr double kTol = 1e-12;

} // namespace

// 1x9 RailX row, R = 4 rails, one chip per node, S = 9 GB:
// 2(p-1)/p S/(R link) = 2*8/9*9e9/4e11 = 0.04 s;
// 2(p-1) alpha = 16 * (5 + 0.5) us = 88 us.
TEST(CollectiveModel, RingAllReduceOnRailXRowUsesAllRails) {
  FabricGraph g = built(railx(1, 9, 4), 9, 1);
  CollectiveTime t = allReduceTime(g, firstChips(9), 9e9, params());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.algorithm, "railx-ring");
  EXPECT_NEAR(t.bandwidthSeconds, 0.04, kTol);
  EXPECT_NEAR(t.latencySeconds, 88e-6, kTol);
  EXPECT_NEAR(t.seconds, 0.04 + 88e-6, kTol);
}

// Same row, two chips per node (p = 18): intra reduce-scatter + all-gather
// 2 * (1/2) * 9e9 / 4e11 = 0.0225 s and 2 * 1 us; inter ring as above.
TEST(CollectiveModel, HierarchicalAllReduce) {
  FabricGraph g = built(railx(1, 9, 4), 9, 2);
  CollectiveTime t = allReduceTime(g, allChips(g), 9e9, params());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.algorithm, "hierarchical(railx-ring)");
  EXPECT_NEAR(t.bandwidthSeconds, 0.0225 + 0.04, kTol);
  EXPECT_NEAR(t.latencySeconds, 2e-6 + 88e-6, kTol);
}

// A part of the row is not a full rail ring: the group's own ring over
// direct circuits, one link per hop: 2*2/3*3e9/1e11 = 0.04 s.
TEST(CollectiveModel, RingOverPartOfARowUsesSingleCircuits) {
  FabricGraph g = built(railx(1, 9, 4), 9, 1);
  CollectiveTime t = allReduceTime(g, firstChips(3), 3e9, params());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.algorithm, "ring");
  EXPECT_NEAR(t.bandwidthSeconds, 0.04, kTol);
  EXPECT_NEAR(t.latencySeconds, 4 * 5.5e-6, kTol);
}

// All-gather / reduce-scatter: (p-1)/p S/B + (p-1) alpha.
TEST(CollectiveModel, AllGatherAndReduceScatter) {
  FabricGraph g = built(railx(1, 9, 4), 9, 1);
  for (auto f : {allGatherTime, reduceScatterTime}) {
    CollectiveTime t = f(g, firstChips(9), 9e9, params());
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_NEAR(t.bandwidthSeconds, 8.0 / 9 * 9e9 / 4e11, kTol);
    EXPECT_NEAR(t.latencySeconds, 8 * 5.5e-6, kTol);
  }
  // Four chips of one node: 3/4 * 4e9 / 4e11 = 7.5 ms and 3 * 1 us.
  FabricGraph one = built(railx(1, 3, 1), 3, 4);
  std::vector<ChipRef> node0 = {{0, 0}, {0, 1}, {0, 2}, {0, 3}};
  CollectiveTime t = allGatherTime(one, node0, 4e9, params());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_EQ(t.algorithm, "intra-ring");
  EXPECT_NEAR(t.bandwidthSeconds, 7.5e-3, kTol);
  EXPECT_NEAR(t.latencySeconds, 3e-6, kTol);
}

// 9-node row, S = 9 GB per rank (1 GB per pair).
// R = 4: n = 2R+1, every pair one circuit: 1e9 / 1e11 = 0.01 s, 5.5 us.
// R = 2: relayed, diameter 2: 2 * 8e9 / (4 links * 1e11) = 0.04 s, i.e.
// 4x slower (2x the load over half the links); latency 5 + 2*0.5 + 1 us.
TEST(CollectiveModel, AllToAllDirectVersusRelayed) {
  FabricGraph direct = built(railx(1, 9, 4), 9, 1);
  FabricGraph relayed = built(railx(1, 9, 2), 9, 1);
  ASSERT_EQ(relayed.row.diameter, 2);
  CollectiveTime d = allToAllTime(direct, firstChips(9), 9e9, params());
  CollectiveTime r = allToAllTime(relayed, firstChips(9), 9e9, params());
  ASSERT_TRUE(d.ok()) << d.error;
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(d.algorithm, "direct");
  EXPECT_EQ(r.algorithm, "relayed");
  EXPECT_NEAR(d.bandwidthSeconds, 0.01, kTol);
  EXPECT_NEAR(d.latencySeconds, 5.5e-6, kTol);
  EXPECT_NEAR(r.bandwidthSeconds, 0.04, kTol);
  EXPECT_NEAR(r.latencySeconds, 7e-6, kTol);
  EXPECT_NEAR(r.bandwidthSeconds / d.bandwidthSeconds, 4.0, 1e-9);
}

// Cross-leaf traffic only (leaf A's nodes each send 1 GB to each node of
// leaf B), radix 4, 2 tiers. o = 1: 2 nodes per leaf, 4 flows over 2
// uplinks -> 2 GB per uplink, 0.02 s, each node sends 2 GB: 100 GB/s.
// o = 2: 4 nodes per leaf, 16 flows over 2 uplinks -> 8 GB, 0.08 s, each
// node sends 4 GB: 50 GB/s. Oversubscription 2 halves the per-node rate.
TEST(CollectiveModel, OversubscribedTreeHalvesCrossLeafBandwidth) {
  FabricGraph nb = built(fatTree(4, 2, 1.0), 4, 1);
  FabricGraph ov = built(fatTree(4, 2, 2.0), 8, 1);
  std::vector<Flow> f1, f2;
  for (int64_t a : {0, 1})
    for (int64_t b : {2, 3})
      f1.push_back({a, b, 1e9});
  for (int64_t a : {0, 1, 2, 3})
    for (int64_t b : {4, 5, 6, 7})
      f2.push_back({a, b, 1e9});
  ContentionResult c1 = computeContention(nb, f1, params());
  ContentionResult c2 = computeContention(ov, f2, params());
  ASSERT_TRUE(c1.ok()) << c1.error;
  ASSERT_TRUE(c2.ok()) << c2.error;
  EXPECT_NEAR(c1.bandwidthSeconds, 0.02, kTol);
  EXPECT_NEAR(c2.bandwidthSeconds, 0.08, kTol);
  EXPECT_NEAR((4e9 / c2.bandwidthSeconds) / (2e9 / c1.bandwidthSeconds), 0.5,
              1e-9);
  // The slowest link of the oversubscribed tree is a leaf uplink or a spine
  // downlink, not a node cable. Path latency: 5 us + 3 switches * 0.5 us.
  const LinkLoad &worst = c2.links[c2.bottleneck];
  EXPECT_TRUE(ov.isSwitch(worst.from) && ov.isSwitch(worst.to));
  EXPECT_NEAR(c2.latencySeconds, 6.5e-6, kTol);
}

// All-to-all over two full leaves, 8 nodes, 1 GB per pair.
// Non-blocking (radix 8: 4 nodes + 4 uplinks per leaf): node cable 7 GB ->
// 0.07 s; uplinks 16 GB / 4 = 4 GB. Injection-bound: 0.07 s.
// o = 2 (radix 4: 4 nodes, 2 uplinks): uplinks 16 GB / 2 = 8 GB -> 0.08 s.
// The leaf's uplinks (its share of the bisection) now limit it.
TEST(CollectiveModel, AllToAllOnFatTreeLimitedByBisection) {
  FabricGraph nb = built(fatTree(8, 2, 1.0), 8, 1);
  FabricGraph ov = built(fatTree(4, 2, 2.0), 8, 1);
  CollectiveTime a = allToAllTime(nb, firstChips(8), 8e9, params());
  CollectiveTime b = allToAllTime(ov, firstChips(8), 8e9, params());
  ASSERT_TRUE(a.ok()) << a.error;
  ASSERT_TRUE(b.ok()) << b.error;
  EXPECT_EQ(a.algorithm, "routed");
  EXPECT_NEAR(a.bandwidthSeconds, 0.07, kTol);
  EXPECT_NEAR(b.bandwidthSeconds, 0.08, kTol);
  EXPECT_NEAR(a.latencySeconds, 6.5e-6, kTol);
}

// Equal-cost multipath: radix 4, 2 tiers, 2 nodes of 2 chips, each node on
// its own leaf (2 cables, 200 GB/s). A 2 GB flow between them spreads over
// both spines: 1 GB on each 100 GB/s uplink, 0.01 s, the same as the node's
// two cables; one path alone would put 2 GB on one uplink (0.02 s).
TEST(CollectiveModel, TreeFlowsSpreadOverEqualCostPaths) {
  FabricGraph g = built(fatTree(4, 2, 1.0), 2, 2);
  ContentionResult c = computeContention(g, {{0, 1, 2e9}}, params());
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_NEAR(c.bandwidthSeconds, 0.01, kTol);
  int uplinks = 0;
  for (const LinkLoad &l : c.links)
    if (g.isSwitch(l.from) && g.isSwitch(l.to)) {
      EXPECT_NEAR(l.bytes, 1e9, 1e-3);
      ++uplinks;
    }
  EXPECT_EQ(uplinks, 4); // 2 leaf -> spine and 2 spine -> leaf
}

// Two 1 GB flows over the same circuit take 0.02 s instead of 0.01 s.
TEST(CollectiveModel, TwoFlowsSharingALinkTakeTwiceAsLong) {
  FabricGraph g = built(railx(1, 3, 1), 3, 1);
  ContentionResult one = computeContention(g, {{0, 1, 1e9}}, params());
  ContentionResult two =
      computeContention(g, {{0, 1, 1e9}, {0, 1, 1e9}}, params());
  ASSERT_TRUE(one.ok() && two.ok());
  EXPECT_NEAR(one.bandwidthSeconds, 0.01, kTol);
  EXPECT_NEAR(two.bandwidthSeconds, 0.02, kTol);
  ASSERT_EQ(two.links.size(), 1u);
  EXPECT_EQ(two.links[0].from, 0);
  EXPECT_EQ(two.links[0].to, 1);
  EXPECT_NEAR(two.links[0].bytes, 2e9, 1e-3);
  EXPECT_NEAR(two.latencySeconds, one.latencySeconds, kTol);
  EXPECT_NEAR(two.seconds, 0.02 + 5.5e-6, kTol);
  // Opposite directions of a full-duplex circuit do not share.
  ContentionResult duplex =
      computeContention(g, {{0, 1, 1e9}, {1, 0, 1e9}}, params());
  EXPECT_NEAR(duplex.bandwidthSeconds, 0.01, kTol);
}

// Send/recv: 2-hop pair in a 9-node row with R = 2: S / link + 5 us +
// 2 * 0.5 us + 1 relay us; cross-leaf on a tree: 3 switches.
TEST(CollectiveModel, SendRecvAlongTheRoute) {
  FabricGraph g = built(railx(1, 9, 2), 9, 1);
  int64_t far = -1;
  for (int64_t v = 1; v < 9 && far < 0; ++v)
    if (g.linkHops(0, v) == 2)
      far = v;
  ASSERT_GE(far, 0);
  CollectiveTime t = sendRecvTime(g, {0, 0}, {far, 0}, 1e9, params());
  ASSERT_TRUE(t.ok()) << t.error;
  EXPECT_NEAR(t.bandwidthSeconds, 0.01, kTol);
  EXPECT_NEAR(t.latencySeconds, 7e-6, kTol);

  FabricGraph tree = built(fatTree(4, 2, 1.0), 4, 1);
  CollectiveTime u = sendRecvTime(tree, {0, 0}, {3, 0}, 1e9, params());
  ASSERT_TRUE(u.ok()) << u.error;
  EXPECT_NEAR(u.bandwidthSeconds, 0.01, kTol);
  EXPECT_NEAR(u.latencySeconds, 6.5e-6, kTol);

  FabricGraph two = built(railx(1, 3, 1), 3, 2);
  CollectiveTime v = sendRecvTime(two, {1, 0}, {1, 1}, 4e9, params());
  EXPECT_EQ(v.algorithm, "intra");
  EXPECT_NEAR(v.seconds, 0.01 + 1e-6, kTol);
}

TEST(CollectiveModel, SingleRankAndEmptyMessageCostNothing) {
  FabricGraph g = built(railx(1, 9, 4), 9, 2);
  std::vector<ChipRef> one = {{4, 1}};
  for (auto f :
       {allReduceTime, allGatherTime, reduceScatterTime, allToAllTime}) {
    CollectiveTime a = f(g, one, 1e9, params());
    CollectiveTime b = f(g, allChips(g), 0, params());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a.seconds, 0);
    EXPECT_EQ(b.seconds, 0);
  }
  EXPECT_EQ(sendRecvTime(g, {2, 0}, {5, 1}, 0, params()).seconds, 0);
  ContentionResult c = computeContention(g, {}, params());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c.seconds, 0);
  EXPECT_EQ(c.bottleneck, -1);
}

TEST(CollectiveModel, InvalidInputsAreErrorValues) {
  FabricGraph g = built(railx(1, 9, 4), 9, 2);
  EXPECT_FALSE(allReduceTime(g, {}, 1e9).ok());
  EXPECT_NE(allReduceTime(g, {{9, 0}}, 1e9).error.find("outside"),
            std::string::npos);
  EXPECT_FALSE(allToAllTime(g, {{0, 2}}, 1e9).ok());
  EXPECT_FALSE(allGatherTime(g, {{0, -1}}, 1e9).ok());
  EXPECT_NE(
      reduceScatterTime(g, {{0, 0}, {1, 0}, {0, 0}}, 1e9).error.find("twice"),
      std::string::npos);
  EXPECT_FALSE(allReduceTime(g, {{0, 0}, {1, 0}}, -1).ok());
  EXPECT_FALSE(sendRecvTime(g, {0, 0}, {12, 0}, 1e9).ok());
  EXPECT_FALSE(computeContention(g, {{0, 9, 1e9}}).ok());
  EXPECT_FALSE(computeContention(g, {{0, 1, -5}}).ok());
  FabricGraph empty;
  EXPECT_FALSE(allReduceTime(empty, {{0, 0}}, 1e9).ok());
  EXPECT_FALSE(computeContention(empty, {}).ok());
}
