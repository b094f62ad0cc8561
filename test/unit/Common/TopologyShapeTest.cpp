//===- TopologyShapeTest.cpp - Sizing rules of the compact topologies -----===//
//
// One test per rule of checkTopologyShape, with numbers a reader can check by
// hand, plus the capacity formulas.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/TopologyShape.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace plexus::fabric;

namespace {

TopologyShape railx(int64_t rows, int64_t cols, int64_t rails) {
  TopologyShape t;
  t.kind = TopologyKind::RailX;
  t.linkBandwidth = 100e9;
  t.rows = rows;
  t.cols = cols;
  t.rails = rails;
  return t;
}

TopologyShape fatTree(int64_t radix, int64_t tiers, double over = 1.0) {
  TopologyShape t;
  t.kind = TopologyKind::FatTree;
  t.linkBandwidth = 50e9;
  t.radix = radix;
  t.tiers = tiers;
  t.oversubscription = over;
  return t;
}

TopologyShape railOpt(int64_t rails, int64_t radix, int64_t tiers = 0) {
  TopologyShape t;
  t.kind = TopologyKind::RailOptimized;
  t.linkBandwidth = 50e9;
  t.rails = rails;
  t.radix = radix;
  t.tiers = tiers;
  return t;
}

TopologyShape torus(std::vector<int64_t> dims) {
  TopologyShape t;
  t.kind = TopologyKind::Torus;
  t.linkBandwidth = 25e9;
  t.dims = std::move(dims);
  return t;
}

/// The single problem reported, or a failure if there is not exactly one.
TopologyProblem only(const std::vector<TopologyProblem> &ps) {
  if (ps.size() != 1)
    for (const auto &p : ps)
      ADD_FAILURE() << "expected one problem, got " << p.field << ": "
                    << p.message;
  EXPECT_EQ(ps.size(), 1u);
  return ps.empty() ? TopologyProblem{} : ps.front();
}

} // namespace

TEST(TopologyShape, KindNamesRoundTrip) {
  for (TopologyKind k : {TopologyKind::RailX, TopologyKind::FatTree,
                         TopologyKind::RailOptimized, TopologyKind::Torus}) {
    TopologyKind parsed = TopologyKind::FatTree;
    ASSERT_TRUE(parseTopologyKind(topologyKindName(k), parsed));
    EXPECT_EQ(parsed, k);
  }
  TopologyKind k = TopologyKind::Torus;
  EXPECT_FALSE(parseTopologyKind("dragonfly", k));
  EXPECT_EQ(k, TopologyKind::Torus);
  EXPECT_STREQ(topologyKindName(TopologyKind::RailOptimized), "rail_optimized");
}

// ---- railx ---------------------------------------------------------------

TEST(TopologyShape, RailXGridMatchingNodesIsValid) {
  EXPECT_TRUE(checkTopologyShape(railx(16, 16, 8), 256, 4).empty());
  EXPECT_TRUE(checkTopologyShape(railx(1, 17, 8), 17, 4).empty());
}

TEST(TopologyShape, RailXGridMustEqualNodeCount) {
  auto ps = checkTopologyShape(railx(16, 16, 8), 250, 4);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].field, "rows");
  EXPECT_EQ(ps[0].message,
            "railx grid 16 x 16 = 256 nodes, but the fabric has 250 nodes");
}

TEST(TopologyShape, RailXSizesMustBePositive) {
  auto ps = checkTopologyShape(railx(0, 16, 8), 16, 4);
  TopologyProblem p = only(ps);
  EXPECT_EQ(p.field, "rows");
  EXPECT_EQ(p.message, "railx rows must be positive, got 0");

  p = only(checkTopologyShape(railx(4, -2, 8), 8, 4));
  EXPECT_EQ(p.field, "cols");
  EXPECT_EQ(p.message, "railx cols must be positive, got -2");

  p = only(checkTopologyShape(railx(4, 4, 0), 16, 4));
  EXPECT_EQ(p.field, "rails");
  EXPECT_EQ(p.message, "railx rails must be positive, got 0");
}

// ---- torus ---------------------------------------------------------------

TEST(TopologyShape, TorusProductMatchingNodesIsValid) {
  EXPECT_TRUE(checkTopologyShape(torus({4, 8}), 32, 8).empty());
  EXPECT_TRUE(checkTopologyShape(torus({4, 4, 4}), 64, 4).empty());
  EXPECT_EQ(topologyEndpointCapacity(torus({4, 4, 4})), 64);
}

TEST(TopologyShape, TorusNeedsTwoOrThreeDims) {
  TopologyProblem p = only(checkTopologyShape(torus({64}), 64, 4));
  EXPECT_EQ(p.field, "dims");
  EXPECT_EQ(p.message, "torus dims must list 2 or 3 extents, got 1");
  p = only(checkTopologyShape(torus({2, 2, 2, 2}), 16, 4));
  EXPECT_EQ(p.message, "torus dims must list 2 or 3 extents, got 4");
  p = only(checkTopologyShape(torus({}), 16, 4));
  EXPECT_EQ(p.message, "torus dims must list 2 or 3 extents, got 0");
}

TEST(TopologyShape, TorusProductMustEqualNodeCount) {
  TopologyProblem p = only(checkTopologyShape(torus({4, 4, 4}), 60, 4));
  EXPECT_EQ(p.field, "dims");
  EXPECT_EQ(p.message,
            "torus 4 x 4 x 4 = 64 nodes, but the fabric has 60 nodes");
}

TEST(TopologyShape, TorusExtentsMustBePositive) {
  TopologyProblem p = only(checkTopologyShape(torus({4, 0}), 4, 4));
  EXPECT_EQ(p.field, "dims");
  EXPECT_EQ(p.message, "torus dims[1] must be positive, got 0");
}

// ---- fat_tree ------------------------------------------------------------

TEST(TopologyShape, FatTreeCapacityFormula) {
  // Non-blocking: k^2/2 (2 tiers) and k^3/4 (3 tiers).
  EXPECT_EQ(topologyEndpointCapacity(fatTree(8, 2)), 32);
  EXPECT_EQ(topologyEndpointCapacity(fatTree(8, 3)), 128);
  EXPECT_EQ(topologyEndpointCapacity(fatTree(64, 3)), 65536);
  // Oversubscription o: each leaf gets floor(o * k/2) endpoints.
  // k = 8, 2 tiers, o = 3: 8 leaves x 12 = 96.
  EXPECT_EQ(topologyLeafDownlinks(fatTree(8, 2, 3.0)), 12);
  EXPECT_EQ(topologyEndpointCapacity(fatTree(8, 2, 3.0)), 96);
  // k = 8, 3 tiers, o = 1.5: 32 leaves x floor(6) = 192.
  EXPECT_EQ(topologyEndpointCapacity(fatTree(8, 3, 1.5)), 192);
  // k = 6, o = 1.5: floor(4.5) = 4 per leaf, 6 leaves -> 24.
  EXPECT_EQ(topologyEndpointCapacity(fatTree(6, 2, 1.5)), 24);
  // Saturates instead of overflowing.
  EXPECT_EQ(topologyEndpointCapacity(fatTree(int64_t(1) << 40, 3)),
            std::numeric_limits<int64_t>::max());
}

TEST(TopologyShape, FatTreeWithEnoughPortsIsValid) {
  // 8 nodes x 4 chips = 32 = 8^2/2: exactly full.
  EXPECT_TRUE(checkTopologyShape(fatTree(8, 2), 8, 4).empty());
  EXPECT_TRUE(checkTopologyShape(fatTree(8, 3), 32, 4).empty());
}

TEST(TopologyShape, FatTreeTiersMustBeTwoOrThree) {
  TopologyProblem p = only(checkTopologyShape(fatTree(8, 4), 8, 4));
  EXPECT_EQ(p.field, "tiers");
  EXPECT_EQ(p.message, "fat_tree tiers must be 2 or 3, got 4");
  p = only(checkTopologyShape(fatTree(8, 0), 8, 4));
  EXPECT_EQ(p.message, "fat_tree tiers must be 2 or 3, got 0");
}

TEST(TopologyShape, FatTreeRadixMustBeEven) {
  TopologyProblem p = only(checkTopologyShape(fatTree(7, 2), 2, 4));
  EXPECT_EQ(p.field, "radix");
  EXPECT_EQ(p.message, "fat_tree radix must be an even number >= 2, got 7");
  p = only(checkTopologyShape(fatTree(0, 2), 2, 4));
  EXPECT_EQ(p.message, "fat_tree radix must be an even number >= 2, got 0");
}

TEST(TopologyShape, FatTreeCapacityMustCoverChips) {
  // 9 nodes x 4 chips = 36 > 32.
  TopologyProblem p = only(checkTopologyShape(fatTree(8, 2), 9, 4));
  EXPECT_EQ(p.field, "radix");
  EXPECT_EQ(p.message,
            "fat_tree with radix 8, 2 tiers and oversubscription 1 attaches "
            "at most 32 endpoints, but the fabric needs 36 (9 nodes x 4 "
            "chips)");
  // Oversubscription 2 doubles the leaf's down side: 8 x 8 = 64 >= 36.
  EXPECT_TRUE(checkTopologyShape(fatTree(8, 2, 2.0), 9, 4).empty());
}

TEST(TopologyShape, OversubscriptionMustBeAtLeastOne) {
  TopologyProblem p = only(checkTopologyShape(fatTree(8, 2, 0.5), 4, 4));
  EXPECT_EQ(p.field, "oversubscription");
  EXPECT_EQ(p.message, "fat_tree oversubscription must be >= 1, got 0.5");
  p = only(checkTopologyShape(fatTree(8, 2, std::nan("")), 4, 4));
  EXPECT_EQ(p.field, "oversubscription");
  TopologyShape r = railOpt(4, 8);
  r.oversubscription = 0.0;
  p = only(checkTopologyShape(r, 2, 4));
  EXPECT_EQ(p.message, "rail_optimized oversubscription must be >= 1, got 0");
}

// ---- rail_optimized ------------------------------------------------------

TEST(TopologyShape, RailOptimizedCapacityFormula) {
  // 2 tiers, k = 64: 64 leaves, 8 per rail, 32 ports each -> 256 nodes/rail.
  EXPECT_EQ(topologyEffectiveTiers(railOpt(8, 64)), 2);
  EXPECT_EQ(topologyEndpointCapacity(railOpt(8, 64)), 8 * 8 * 32);
  // 3 tiers, k = 64: 2048 leaves, 256 per rail, 32 ports -> 8192 nodes/rail.
  EXPECT_EQ(topologyEndpointCapacity(railOpt(8, 64, 3)), 8 * 256 * 32);
  // Leaves that do not split evenly are left unused: k = 10 -> 10 leaves,
  // 3 per rail for 3 rails, 5 ports -> 45.
  EXPECT_EQ(topologyEndpointCapacity(railOpt(3, 10)), 45);
}

TEST(TopologyShape, RailOptimizedValid) {
  EXPECT_TRUE(checkTopologyShape(railOpt(8, 64), 256, 8).empty());
  EXPECT_TRUE(checkTopologyShape(railOpt(8, 64, 3), 8192, 8).empty());
}

TEST(TopologyShape, RailOptimizedRailsMustEqualChipsPerNode) {
  TopologyProblem p = only(checkTopologyShape(railOpt(4, 64), 16, 8));
  EXPECT_EQ(p.field, "rails");
  EXPECT_EQ(p.message,
            "rail_optimized rails must equal the chips per node (8), got 4");
  p = only(checkTopologyShape(railOpt(0, 64), 16, 8));
  EXPECT_EQ(p.message, "rail_optimized rails must be positive, got 0");
}

TEST(TopologyShape, RailOptimizedLeafCapacity) {
  TopologyProblem p = only(checkTopologyShape(railOpt(8, 64), 300, 8));
  EXPECT_EQ(p.field, "radix");
  EXPECT_EQ(p.message,
            "rail_optimized with radix 64, 2 tiers and oversubscription 1 "
            "gives each of the 8 rails 8 leaf switches x 32 ports = 256 node "
            "ports, but the fabric has 300 nodes");
}

TEST(TopologyShape, RailOptimizedTreeFields) {
  TopologyProblem p = only(checkTopologyShape(railOpt(8, 63), 16, 8));
  EXPECT_EQ(p.field, "radix");
  p = only(checkTopologyShape(railOpt(8, 64, 1), 16, 8));
  EXPECT_EQ(p.field, "tiers");
  EXPECT_EQ(p.message, "rail_optimized tiers must be 2 or 3, got 1");
}

// ---- common --------------------------------------------------------------

TEST(TopologyShape, LinkBandwidthMustBePositive) {
  TopologyShape t = railx(4, 4, 2);
  t.linkBandwidth = 0;
  TopologyProblem p = only(checkTopologyShape(t, 16, 4));
  EXPECT_EQ(p.field, "link");
  EXPECT_EQ(p.message,
            "railx link bandwidth must be positive and finite, got 0 bytes/s");
  t.linkBandwidth = -1e9;
  EXPECT_EQ(only(checkTopologyShape(t, 16, 4)).field, "link");
  t.linkBandwidth = std::nan("");
  EXPECT_EQ(only(checkTopologyShape(t, 16, 4)).field, "link");
  t.linkBandwidth = HUGE_VAL;
  EXPECT_EQ(only(checkTopologyShape(t, 16, 4)).field, "link");
}

TEST(TopologyShape, NodeAndChipCountsMustBePositive) {
  TopologyProblem p = only(checkTopologyShape(railx(4, 4, 2), 0, 4));
  EXPECT_EQ(p.field, "nodes");
  EXPECT_EQ(p.message, "the fabric must have a positive node count, got 0");
  p = only(checkTopologyShape(fatTree(8, 2), 4, 0));
  EXPECT_EQ(p.field, "chips_per_node");
}

TEST(TopologyShape, SeveralProblemsAreAllReported) {
  TopologyShape t = fatTree(7, 5, 0.25);
  t.linkBandwidth = 0;
  auto ps = checkTopologyShape(t, 4, 4);
  ASSERT_EQ(ps.size(), 4u);
  EXPECT_EQ(ps[0].field, "link");
  EXPECT_EQ(ps[1].field, "tiers");
  EXPECT_EQ(ps[2].field, "radix");
  EXPECT_EQ(ps[3].field, "oversubscription");
}

TEST(TopologyShape, HugeGridsSaturateInsteadOfOverflowing) {
  int64_t big = int64_t(1) << 40;
  auto ps = checkTopologyShape(railx(big, big, 8), 100, 4);
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].field, "rows");
}
