//===- NetworkCostTest.cpp - Price table, part counts, fat-tree ratios ----===//
//
// Part counts of small fabrics counted by hand (a 2x2 and a 3x3 RailX, k = 4
// fat-trees of 2 and 3 tiers, an oversubscribed tree, a torus), the
// equivalent fat-tree against the same counts, errors as values, and the
// RailX abstract's claims with the tolerance we hold each one to.
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/NetworkCost.h"
#include "test/unit/Fabric/FabricFixtures.h"

#include <gtest/gtest.h>

using namespace plexus::fabric;

using namespace plexus::fabric::fixtures;

namespace {

/// Round prices that make hand sums easy: an 800G transceiver $1,000, an
/// OCS port $100, a fibre $10, a switch port $500 (radix 4), a NIC $0.
PriceTable handPrices() {
  PriceTable p;
  p.ocsPortUsd = 100;
  p.ocsRadix = 300;
  p.fibreUsd = 10;
  p.speeds = {{800, 1000, 500, 4, 0}};
  return p;
}

} // namespace

// 2x2 RailX, 1 rail, undirected, 2 chips per node. A dimension of size 2 is
// one doubled link per rail, so each node has 2 link ends on its row rail
// and 2 on its column rail: 4 transceivers, 4 OCS ports, 4 fibres per node,
// 16 of each for the 4 nodes. OCS boxes: one per rail per row (2) and per
// column (2) = 4, each with 2 nodes x 2 ports = 4 ports.
// Price: 16 x (1000 + 100 + 10) = $17,760.
// Injection per node: 4 links x 100 GB/s = 400 GB/s, per chip 200 GB/s.
// Bisection: split each row: 2 rows x 2 links = 4 links = 400 GB/s.
TEST(NetworkCost, RailX2x2ByHand) {
  FabricGraph g = built(railx(2, 2, 1), 4, 2);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  const CostBreakdown &b = r.cost.parts;
  EXPECT_EQ(b.transceivers, 16);
  EXPECT_EQ(b.ocsPorts, 16);
  EXPECT_EQ(b.fibres, 16);
  EXPECT_EQ(b.ocsUnits, 4);
  EXPECT_EQ(b.switchPorts, 0);
  EXPECT_EQ(b.nicPorts, 0);
  EXPECT_DOUBLE_EQ(b.transceiverUsd, 16000);
  EXPECT_DOUBLE_EQ(b.ocsUsd, 1600);
  EXPECT_DOUBLE_EQ(b.fibreUsd, 160);
  EXPECT_DOUBLE_EQ(b.totalUsd, 17760);
  EXPECT_DOUBLE_EQ(b.linkGbps, 800);
  EXPECT_EQ(r.cost.chips, 8);
  EXPECT_DOUBLE_EQ(r.cost.injectionPerChip, 2 * kB);
  EXPECT_DOUBLE_EQ(r.cost.bisection, 4 * kB);
  EXPECT_DOUBLE_EQ(r.cost.costPerInjection, 17760 / (8 * 2 * kB));
  EXPECT_DOUBLE_EQ(r.cost.costPerBisection, 17760 / (4 * kB));
  EXPECT_TRUE(r.cost.warnings.empty());
}

// The same grid with directed rails: the 2-cycle 0->1->0 gives each node one
// TX/RX transceiver per rail per dimension: 2 per node, 8 in all; 4 OCS
// boxes of 2 ports. Price 8 x 1110 = $8,880.
TEST(NetworkCost, RailX2x2DirectedByHand) {
  FabricGraph g = built(railx(2, 2, 1, /*directed=*/true), 4, 1);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.cost.parts.transceivers, 8);
  EXPECT_EQ(r.cost.parts.ocsPorts, 8);
  EXPECT_EQ(r.cost.parts.fibres, 8);
  EXPECT_EQ(r.cost.parts.ocsUnits, 4);
  EXPECT_DOUBLE_EQ(r.cost.parts.totalUsd, 8880);
  EXPECT_DOUBLE_EQ(r.cost.injectionPerChip, 2 * kB);
}

// 3x3 RailX with 1 rail: n = 3 = 2R+1, each rail a triangle. 2 ports per
// node per dimension: 4 x 9 = 36 transceivers; OCS boxes 3 rows + 3 columns
// = 6, each with 3 x 2 = 6 ports. With a 5-port OCS every rail overflows
// into 2 boxes (12) and the costing warns but still prices the ports.
TEST(NetworkCost, RailX3x3AndOcsRadix) {
  FabricGraph g = built(railx(3, 3, 1), 9, 1);
  PriceTable p = handPrices();
  CostResult r = networkCost(g, p);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.cost.parts.transceivers, 36);
  EXPECT_EQ(r.cost.parts.ocsUnits, 6);
  EXPECT_TRUE(r.cost.warnings.empty());
  p.ocsRadix = 5;
  CostResult small = networkCost(g, p);
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(small.cost.parts.ocsUnits, 12);
  EXPECT_EQ(small.cost.parts.ocsPorts, 36);
  EXPECT_EQ(small.cost.warnings.size(), 2u); // one for rows, one for columns
}

// k = 4, 2 tiers, 8 chips (one per node): 4 leaves of 2 down + 2 up ports,
// 2 spines of 4 ports.
//   cables: 8 node-leaf + 4 leaves x 2 uplinks = 16
//   transceivers: 2 per cable = 32; fibres 16
//   switch ports: 4 leaves x 4 + 2 spines x 4 = 24 (= 2 x 16 - 8 chip ends)
//   NIC ports: 8; switch boxes 6
// Price: 32 x 1000 + 24 x 500 + 16 x 10 = $44,160.
TEST(NetworkCost, FatTreeK4TwoTiersByHand) {
  FabricGraph g = built(fatTree(4, 2), 8, 1);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  const CostBreakdown &b = r.cost.parts;
  EXPECT_EQ(b.fibres, 16);
  EXPECT_EQ(b.transceivers, 32);
  EXPECT_EQ(b.switchPorts, 24);
  EXPECT_EQ(b.nicPorts, 8);
  EXPECT_EQ(b.switchUnits, 6);
  EXPECT_EQ(b.ocsPorts, 0);
  EXPECT_DOUBLE_EQ(b.totalUsd, 44160);
  EXPECT_DOUBLE_EQ(r.cost.injectionPerChip, kB);
  EXPECT_DOUBLE_EQ(r.cost.bisection, 4 * kB); // 8 endpoints / 2
}

// k = 4, 3 tiers, 16 chips: 8 leaves, 8 aggregation switches in 4 pods,
// 4 cores; 20 switches of 4 ports.
//   cables: 16 node-leaf + 8 x 2 leaf-agg + 8 x 2 agg-core = 48
//   transceivers 96; switch ports 80 (= 20 x 4 = 2 x 48 - 16)
// Price: 96 x 1000 + 80 x 500 + 48 x 10 = $136,480.
TEST(NetworkCost, FatTreeK4ThreeTiersByHand) {
  FabricGraph g = built(fatTree(4, 3), 16, 1);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  const CostBreakdown &b = r.cost.parts;
  EXPECT_EQ(b.fibres, 48);
  EXPECT_EQ(b.transceivers, 96);
  EXPECT_EQ(b.switchPorts, 80);
  EXPECT_EQ(b.switchUnits, 20);
  EXPECT_DOUBLE_EQ(b.totalUsd, 136480);
}

// Oversubscription 2 at k = 4: a leaf has 4 down and 2 up ports, so 8 chips
// need 2 leaves. Cables 8 + 2 x 2 = 12; switch ports 2 x 12 - 8 = 16
// (12 on the leaves, 2 on each of the 2 spines); transceivers 24.
TEST(NetworkCost, OversubscribedTreeHasFewerUplinks) {
  FabricGraph g = built(fatTree(4, 2, 2.0), 8, 1);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.cost.parts.fibres, 12);
  EXPECT_EQ(r.cost.parts.switchPorts, 16);
  EXPECT_EQ(r.cost.parts.transceivers, 24);
  EXPECT_EQ(r.cost.parts.switchUnits, 4);
}

// A 4x4 torus of 16 nodes: 2 links per node (one per dimension, +1), 32
// cables, 64 transceivers, no switches.
TEST(NetworkCost, TorusCountsCables) {
  TopologyShape t;
  t.kind = TopologyKind::Torus;
  t.linkBandwidth = kB;
  t.dims = {4, 4};
  FabricGraph g = built(t, 16, 1);
  CostResult r = networkCost(g, handPrices());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.cost.parts.fibres, 32);
  EXPECT_EQ(r.cost.parts.transceivers, 64);
  EXPECT_EQ(r.cost.parts.switchPorts, 0);
  EXPECT_DOUBLE_EQ(r.cost.parts.totalUsd, 64 * 1000 + 32 * 10);
}

// The closed-form equivalent tree matches the built k = 4 trees part for
// part: 8 chips need 2 tiers (2 x 2^2 = 8), 16 chips need 3 (2 x 2^3).
TEST(NetworkCost, EquivalentFatTreeMatchesBuiltTrees) {
  const PriceTable p = handPrices();
  struct Case {
    int64_t chips, tiers, boxes;
  };
  for (Case c : {Case{8, 2, 6}, Case{16, 3, 20}}) {
    FatTreeResult ft = equivalentFatTree(c.chips, kB, kB, p);
    ASSERT_TRUE(ft.ok());
    FabricGraph g = built(fatTree(4, c.tiers), c.chips, 1);
    CostResult built = networkCost(g, p);
    ASSERT_TRUE(built.ok());
    EXPECT_EQ(ft.design.tiers, c.tiers);
    EXPECT_EQ(ft.design.planes, 1);
    EXPECT_EQ(ft.design.cost.parts.switchPorts, built.cost.parts.switchPorts);
    EXPECT_EQ(ft.design.cost.parts.transceivers, built.cost.parts.transceivers);
    EXPECT_EQ(ft.design.cost.parts.fibres, built.cost.parts.fibres);
    EXPECT_EQ(ft.design.cost.parts.switchUnits, c.boxes);
    EXPECT_DOUBLE_EQ(ft.design.cost.parts.totalUsd, built.cost.parts.totalUsd);
    EXPECT_DOUBLE_EQ(ft.design.cost.bisection, built.cost.bisection);
  }
}

// Planes: 1.8 TB/s over 100 GB/s ports is exactly 18; 250 GB/s rounds up to
// 3 ports. A link slower than a class is priced at the next class up.
TEST(NetworkCost, EquivalentFatTreePlanesAndClasses) {
  PriceTable p;
  FatTreeResult a = equivalentFatTree(1000, 1.8e12, kB, p);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.design.planes, 18);
  EXPECT_DOUBLE_EQ(a.design.linkGbps, 800);
  FatTreeResult b = equivalentFatTree(1000, 250e9, kB, p);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b.design.planes, 3);
  EXPECT_DOUBLE_EQ(b.design.cost.injectionPerChip, 300e9);
  FatTreeResult c = equivalentFatTree(1000, 250e9, 600e9 / 8, p); // 600G
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c.design.linkGbps, 800);
}

TEST(NetworkCost, ErrorsAreValues) {
  PriceTable p;
  FabricGraph empty;
  EXPECT_FALSE(networkCost(empty, p).ok());
  EXPECT_FALSE(equivalentFatTree(0, kB, kB, p).ok());
  EXPECT_FALSE(equivalentFatTree(10, 0, kB, p).ok());
  FatTreeResult tooFast = equivalentFatTree(10, kB, 3.2e12 / 8, p); // 3.2T
  ASSERT_FALSE(tooFast.ok());
  EXPECT_NE(tooFast.problems[0].find("3200"), std::string::npos);
  PriceTable badRadix = p;
  badRadix.speeds = {{800, 600, 800, 3, 0}};
  EXPECT_FALSE(equivalentFatTree(10, kB, kB, badRadix).ok());
  FabricGraph g = built(railx(2, 2, 1), 4, 1);
  PriceTable slow = p;
  slow.speeds = {{400, 350, 400, 128, 0}};
  CostResult r = networkCost(g, slow);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(compareWithFatTree(g, slow).ok());
}

// ---------------------------------------------------------------------------
// The RailX abstract's claims (arXiv 2507.18889), on the fabric of
// examples/railx-200k.plx: 112 x 112 nodes of 16 chips (200,704 chips),
// 800 Gb/s links, 36 undirected rails per dimension. "1.8 TB per-chip
// bandwidth" is read as NVLink 5's 1.8 TB/s is stated, both directions
// together (docs/railx.md, "Which 1.8 TB/s"): 2 x 36 x 2 x 100 GB/s / 16 =
// 900 GB/s per direction. Prices: the PriceTable defaults (docs/railx.md,
// "Network cost").
// ---------------------------------------------------------------------------

namespace {

FabricGraph railx200k() { return built(railx(112, 112, 36), 112 * 112, 16); }

} // namespace

// Claim: "diameter only 2-4 inter-node hops" beyond 100K chips.
// Tolerance: none (hop counts are exact). All-to-all rows and columns give
// 2; half the rails (36 < (112-1)/2) give 2 hops per dimension, 4 in all.
TEST(RailXClaims, DiameterTwoToFourHopsBeyond100K) {
  EXPECT_EQ(railx200k().diameter(), 4);
  EXPECT_EQ(built(railx(112, 112, 72), 112 * 112, 16).diameter(), 2);
  EXPECT_EQ(built(railx(80, 80, 40), 80 * 80, 16).diameter(), 2);
}

// Claim: cost per injection (all-reduce) bandwidth < 10% of a fat-tree's.
// Tolerance: the bound itself. Ours: 8.96% = (600 + 300 + 50) / (7 x 800 +
// 8 x 600 + 4 x 50) per 800G port and plane, against a 4-tier tree (9
// planes) of 64-port
// switches (3 tiers hold only 65,536 ends). The margin is thin: a 3-tier
// tree (radix >= 74) would give 12.3% and miss the claim.
TEST(RailXClaims, InjectionCostUnderTenPercentOfFatTree) {
  FabricGraph g = railx200k();
  ComparisonResult r = compareWithFatTree(g, PriceTable());
  ASSERT_TRUE(r.ok());
  const FatTreeComparison &c = r.comparison;
  EXPECT_DOUBLE_EQ(c.fabric.injectionPerChip, 0.9e12);
  EXPECT_EQ(c.fatTree.planes, 9);
  EXPECT_EQ(c.fatTree.tiers, 4);
  EXPECT_NEAR(c.injectionRatio, 950.0 / 10600.0, 1e-12);
  EXPECT_LT(c.injectionRatio, 0.10);
}

// Claim: cost per bisection (all-to-all) bandwidth < 50% of a fat-tree's.
// Tolerance: the bound itself. A column split of the grid cuts only row
// links, and with rows of 112 on 36 rings fewer than half of them, so
// RailX's bisection is about 1/9.4 of its total injection against 1/2 for
// the non-blocking tree: the ratio is about 4.7x the injection ratio.
TEST(RailXClaims, BisectionCostUnderHalfOfFatTree) {
  FabricGraph g = railx200k();
  ComparisonResult r = compareWithFatTree(g, PriceTable());
  ASSERT_TRUE(r.ok());
  const FatTreeComparison &c = r.comparison;
  const double treeBisection = 9.0 * (200704 / 2) * kB;
  EXPECT_DOUBLE_EQ(c.fatTree.cost.bisection, treeBisection);
  EXPECT_NEAR(c.bisectionRatio,
              c.injectionRatio * treeBisection / c.fabric.bisection, 1e-12);
  EXPECT_GT(c.bisectionRatio, 0.40);
  EXPECT_LT(c.bisectionRatio, 0.50);
}

// Claim: "about $1.3B to interconnect 200K chips with 1.8 TB per-chip
// bandwidth". Tolerance: 1.5x (issue 17's target; the prices are
// assumptions, docs/railx.md 6.3). The fabric has 9 ports of 800 Gb/s per
// chip, 1,806,336 in all, each a transceiver ($600) + an OCS port ($300) + a
// fibre ($50) = $950: $1,716,019,200 = 1.32x the claim. Read per direction
// (72 rails, 18 ports per chip) the same prices give twice that, 2.64x.
TEST(RailXClaims, TotalCost200KChipsWithinOneAndAHalf) {
  FabricGraph g = railx200k();
  CostResult r = networkCost(g, PriceTable());
  ASSERT_TRUE(r.ok());
  const CostBreakdown &b = r.cost.parts;
  EXPECT_EQ(r.cost.chips, 200704);
  EXPECT_EQ(b.transceivers, 1806336);
  EXPECT_EQ(b.ocsPorts, 1806336);
  EXPECT_EQ(b.ocsUnits, 2 * 112 * 36);
  EXPECT_DOUBLE_EQ(b.totalUsd, 1806336.0 * 950);
  const double claim = 1.3e9, ratio = b.totalUsd / claim;
  EXPECT_LT(ratio, 1.5);
  EXPECT_GT(ratio, 1 / 1.5);
  CostResult perDirection =
      networkCost(built(railx(112, 112, 72), 112 * 112, 16), PriceTable());
  ASSERT_TRUE(perDirection.ok());
  EXPECT_DOUBLE_EQ(perDirection.cost.parts.totalUsd, 2 * b.totalUsd);
  // At the claim's implied $720 per port the model gives the claim back.
  PriceTable implied;
  implied.ocsPortUsd = 0;
  implied.fibreUsd = 0;
  for (SpeedClassPrice &s : implied.speeds)
    if (s.gbps == 800)
      s.transceiverUsd = claim / 1806336.0;
  EXPECT_NEAR(networkCost(g, implied).cost.parts.totalUsd, claim, 1.0);
}
