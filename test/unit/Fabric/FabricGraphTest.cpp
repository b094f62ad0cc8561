//===- FabricGraphTest.cpp - Implicit fabric graphs -----------------------===//
//
// Closed-form hops, routes and diameters checked against breadth-first
// search over the implicit adjacency on small fabrics, plus hand-computed
// bisection and injection bandwidths and the RailX n = 2R+1 rule.
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/FabricGraph.h"
#include "test/unit/Fabric/FabricFixtures.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace plexus::fabric;

using namespace plexus::fabric::fixtures;

namespace {

/// linkHops, route and diameter agree with BFS over forEachNeighbor.
void expectMatchesBfs(const FabricGraph &g) {
  int64_t worst = 0;
  bool disconnected = false;
  for (int64_t a = 0; a < g.nodes; ++a) {
    std::vector<int64_t> hops = bfsHops(g, a);
    for (int64_t b = 0; b < g.nodes; ++b) {
      ASSERT_EQ(g.linkHops(a, b), hops[b]) << "a=" << a << " b=" << b;
      if (hops[b] < 0) {
        disconnected = true;
        continue;
      }
      worst = std::max(worst, hops[b]);
      std::vector<int64_t> path = g.route(a, b);
      ASSERT_EQ(static_cast<int64_t>(path.size()), hops[b] + 1);
      ASSERT_EQ(path.front(), a);
      ASSERT_EQ(path.back(), b);
      for (size_t i = 0; i + 1 < path.size(); ++i) {
        bool adjacent = false;
        g.forEachNeighbor(path[i], [&](int64_t w, int64_t k) {
          adjacent |= w == path[i + 1] && k > 0;
        });
        ASSERT_TRUE(adjacent) << path[i] << " -> " << path[i + 1];
      }
    }
  }
  EXPECT_EQ(g.diameter(), disconnected ? -1 : worst);
}

} // namespace

// ---- RailX
// -------------------------------------------------------------------

TEST(FabricGraph, RailXRowOf2RPlus1IsAllToAll) {
  // R = 4 rails, rows of n = 9 = 2R+1: each pair of a row has exactly one
  // direct circuit and each rail is one 9-node ring.
  FabricGraph g = built(railx(9, 9, 4), 81, 4);
  ASSERT_EQ(g.row.circuits.size(), 4u);
  for (const RailCircuit &c : g.row.circuits) {
    EXPECT_EQ(c.kind, RailCircuit::Kind::Cycle);
    EXPECT_EQ(std::set<int32_t>(c.ring.begin(), c.ring.end()).size(), 9u);
  }
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b)
      EXPECT_EQ(g.row.links[a * 9 + b], a == b ? 0 : 1);
  EXPECT_EQ(g.row.diameter, 1);
  EXPECT_EQ(g.diameter(), 2);
  // Each node: 2 links per rail per dimension.
  EXPECT_DOUBLE_EQ(g.injectionBandwidthPerNode(), 16 * kB);
  // Cut 4 | 5 of K_9: 20 links per row, 9 rows.
  EXPECT_DOUBLE_EQ(g.bisectionBandwidth(), 180 * kB);
  // 81 nodes x 16 links / 2 ends.
  EXPECT_EQ(g.linkCount(), 81 * 16 / 2);
}

TEST(FabricGraph, RailXFewerRailsNeedRelays) {
  // Rows of 11 with 2 rails (2R+1 = 5 < 11): not all-to-all.
  FabricGraph g = built(railx(3, 11, 2), 33, 1);
  EXPECT_GT(g.row.diameter, 1);
  expectMatchesBfs(g);
}

TEST(FabricGraph, RailXEvenRowUsesMatchingRail) {
  // n = 8: 3 cycles + the matching; R = 4 reaches all pairs directly.
  FabricGraph g = built(railx(2, 8, 4), 16, 1);
  ASSERT_EQ(g.row.circuits.size(), 4u);
  EXPECT_EQ(g.row.circuits[3].kind, RailCircuit::Kind::Matching);
  EXPECT_EQ(g.row.diameter, 1);
  int doubled = 0;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      doubled += g.row.links[a * 8 + b] == 2;
  EXPECT_EQ(doubled, 8); // 4 matching pairs, both directions
  expectMatchesBfs(g);
  // R = 3: the matching pairs are 2 hops apart.
  FabricGraph h = built(railx(2, 8, 3), 16, 1);
  EXPECT_EQ(h.row.diameter, 2);
}

TEST(FabricGraph, RailXMoreRailsThanSlotsRepeat) {
  // n = 5: 2 cycles; R = 5 rails carry cycles 0, 1, 0, 1, 0.
  FabricGraph g = built(railx(1, 5, 5), 5, 1);
  EXPECT_EQ(g.row.circuits[2].ring, g.row.circuits[0].ring);
  EXPECT_EQ(g.row.circuits[4].ring, g.row.circuits[0].ring);
  EXPECT_EQ(
      g.row.links[g.row.circuits[0].ring[0] * 5 + g.row.circuits[0].ring[1]],
      3);
  expectMatchesBfs(g);
}

TEST(FabricGraph, RailXDirected) {
  // Odd n = 7, R = 6 directed rails = all of K*_7: one arc per ordered pair.
  FabricGraph g = built(railx(7, 7, 6, true), 49, 2);
  for (int a = 0; a < 7; ++a)
    for (int b = 0; b < 7; ++b)
      EXPECT_EQ(g.row.links[a * 7 + b], a == b ? 0 : 1);
  EXPECT_EQ(g.diameter(), 2);
  EXPECT_DOUBLE_EQ(g.injectionBandwidthPerNode(), 12 * kB);
  expectMatchesBfs(g);
  // Even n = 8, R = 7: the searched K*_8 decomposition.
  FabricGraph e = built(railx(2, 8, 7, true), 16, 1);
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      EXPECT_EQ(e.row.links[a * 8 + b], a == b ? 0 : 1);
  expectMatchesBfs(e);
  // Directed n = 4 and 6 fall back to orientations of the K_n cycles.
  FabricGraph f = built(railx(4, 6, 5, true), 24, 1);
  expectMatchesBfs(f);
  // One directed rail: a one-way ring, diameter n-1 per dimension.
  FabricGraph r = built(railx(3, 5, 1, true), 15, 1);
  EXPECT_EQ(r.diameter(), 4 + 2);
  expectMatchesBfs(r);
}

TEST(FabricGraph, RailXDegenerateGrids) {
  expectMatchesBfs(built(railx(1, 1, 3), 1, 8));
  FabricGraph two = built(railx(2, 1, 1), 2, 1);
  EXPECT_EQ(two.col.links[1], 2); // a 2-node "ring": a doubled link
  EXPECT_EQ(two.diameter(), 1);
  expectMatchesBfs(two);
  expectMatchesBfs(built(railx(2, 2, 1, true), 4, 1));
  expectMatchesBfs(built(railx(1, 6, 2), 6, 1));
}

TEST(FabricGraph, RailX100KChipsIsCheap) {
  // 25,600 nodes x 4 chips; rows and columns of 160 with 80 rails: every
  // row and column all-to-all (undirected even n: 79 cycles + matching).
  FabricGraph g = built(railx(160, 160, 80), 25600, 4);
  EXPECT_EQ(g.diameter(), 2);
  EXPECT_EQ(g.linkHops(0, 25599), 2);
  EXPECT_EQ(g.route(0, 25599).size(), 3u);
  EXPECT_DOUBLE_EQ(g.injectionBandwidthPerNode(), 320 * kB);
}

// ---- torus
// -------------------------------------------------------------------

TEST(FabricGraph, Torus) {
  FabricGraph g = built(torus({4, 5, 3}), 60, 4);
  EXPECT_EQ(g.diameter(), 2 + 2 + 1);
  // Largest extent 5: 2 wrap links across the cut per 12-node ring.
  EXPECT_DOUBLE_EQ(g.bisectionBandwidth(), 24 * kB);
  EXPECT_DOUBLE_EQ(g.injectionBandwidthPerNode(), 6 * kB);
  EXPECT_EQ(g.linkCount(), 3 * 60);
  expectMatchesBfs(g);
  FabricGraph h = built(torus({2, 6}), 12, 1);
  EXPECT_EQ(h.diameter(), 1 + 3);
  EXPECT_EQ(h.linkCount(), 6 + 12);
  expectMatchesBfs(h);
}

// ---- trees
// -------------------------------------------------------------------

TEST(FabricGraph, FatTreeTwoTiers) {
  // k = 4: 4 leaves x 2 endpoints. 4 nodes x 2 chips: one node per leaf.
  FabricGraph g = built(tree(TopologyKind::FatTree, 4, 2), 4, 2);
  EXPECT_EQ(g.vertexCount(), 4 + 4 + 2);
  EXPECT_EQ(g.diameter(), 4);
  EXPECT_DOUBLE_EQ(g.bisectionBandwidth(), 4 * kB); // non-blocking: E/2
  EXPECT_EQ(g.linkCount(), 8 + 4 * 2);
  expectMatchesBfs(g);
  // Nodes whose chips straddle leaves (3 chips, 2 per leaf).
  expectMatchesBfs(built(tree(TopologyKind::FatTree, 4, 2), 2, 3));
}

TEST(FabricGraph, FatTreeThreeTiers) {
  // k = 4: 4 pods x 2 leaves x 2 endpoints = 16; 4 aggregates... 8, 4 cores.
  FabricGraph g = built(tree(TopologyKind::FatTree, 4, 3), 16, 1);
  EXPECT_EQ(g.pods, 4);
  EXPECT_EQ(g.vertexCount(), 16 + 8 + 8 + 4);
  EXPECT_EQ(g.diameter(), 6);
  EXPECT_EQ(g.linkHops(0, 1), 2); // same leaf
  EXPECT_EQ(g.linkHops(0, 2), 4); // same pod
  EXPECT_EQ(g.linkHops(0, 4), 6);
  EXPECT_DOUBLE_EQ(g.bisectionBandwidth(), 8 * kB);
  expectMatchesBfs(g);
  // Oversubscribed 3:1 leaves (k = 4: 6 endpoints, 2 uplinks): the cut is
  // the uplinks of half the leaves: 2 leaves x 2 = 4 links, not 12 / 2.
  FabricGraph o = built(tree(TopologyKind::FatTree, 4, 2, 0, 3.0), 24, 1);
  EXPECT_DOUBLE_EQ(o.bisectionBandwidth(), 4 * kB);
  expectMatchesBfs(o);
}

TEST(FabricGraph, RailOptimized) {
  // k = 8, 2 tiers: 8 leaves, 2 per rail for 4 rails, 4 node ports each.
  FabricGraph g = built(tree(TopologyKind::RailOptimized, 8, 0, 4), 8, 4);
  EXPECT_EQ(g.leavesPerRail, 2);
  EXPECT_EQ(g.linkHops(0, 3), 2); // same leaf on every rail
  EXPECT_EQ(g.linkHops(0, 4), 4);
  EXPECT_EQ(g.diameter(), 4);
  EXPECT_DOUBLE_EQ(g.injectionBandwidthPerNode(), 4 * kB);
  // Per rail: min(8/2, 1 leaf x 4 uplinks) = 4; 4 rails.
  EXPECT_DOUBLE_EQ(g.bisectionBandwidth(), 16 * kB);
  expectMatchesBfs(g);
  // 3 tiers, k = 4, 2 rails: 8 leaves, 4 per rail in 2 pods each.
  FabricGraph h = built(tree(TopologyKind::RailOptimized, 4, 3, 2), 8, 2);
  EXPECT_EQ(h.diameter(), 6);
  expectMatchesBfs(h);
}

TEST(FabricGraph, InvalidShapeIsReported) {
  FabricGraph g;
  FabricBuildResult r = g.build(railx(16, 16, 8), 250, 4);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.problems[0].message,
            "railx grid 16 x 16 = 256 nodes, but the fabric has 250 nodes");
  EXPECT_EQ(g.nodes, 0);
  EXPECT_EQ(g.linkHops(0, 1), -1);
  EXPECT_TRUE(g.route(0, 1).empty());
}
