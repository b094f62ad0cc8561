// Placement tests: hand-checkable RailX rows and grids, faults, several
// jobs, errors, the circuit table. See docs/placement.md.
#include "passes/Placement/Placement.h"

#include <gtest/gtest.h>

#include <set>

using namespace plexus;
using namespace plexus::placement;

namespace {

fabric::FabricGraph railx(int64_t rows, int64_t cols, int64_t rails,
                          int64_t cpn) {
  fabric::TopologyShape t;
  t.kind = fabric::TopologyKind::RailX;
  t.linkBandwidth = 1e11;
  t.rows = rows;
  t.cols = cols;
  t.rails = rails;
  fabric::FabricGraph g;
  EXPECT_TRUE(g.build(t, rows * cols, cpn).ok());
  return g;
}

std::vector<int64_t> iota(int64_t n, int64_t from = 0) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i)
    v.push_back(from + i);
  return v;
}

JobRequest job(std::string name, int64_t n,
               std::vector<CommunicatorRequest> comms) {
  JobRequest j;
  j.name = std::move(name);
  j.rankCount = n;
  j.communicators = std::move(comms);
  return j;
}

CommunicatorRequest comm(std::string name, CommKind k,
                         std::vector<int64_t> ranks) {
  return {std::move(name), k, std::move(ranks)};
}

std::vector<int64_t> nodesOf(const JobPlacement &j,
                             const std::vector<int64_t> &ranks) {
  std::vector<int64_t> out;
  for (int64_t r : ranks)
    out.push_back(j.chips[r].node);
  return out;
}

} // namespace

TEST(Placement, AllToAllFiveRanksLandOnTheRow) {
  auto g = railx(1, 5, 2, 1);
  auto res = placeJobs(
      g, {job("j", 5, {comm("sp", CommKind::AllToAll, iota(5))})}, {});
  ASSERT_TRUE(res.ok()) << res.errors[0].message;
  std::vector<int64_t> n = nodesOf(res.jobs[0], iota(5));
  EXPECT_EQ(std::set<int64_t>(n.begin(), n.end()).size(), 5u);
  EXPECT_EQ(res.jobs[0].communicators[0].maxHops, 1); // K_5 = 2 rails
}

TEST(Placement, AllToAllFitsOneNode) {
  auto g = railx(1, 5, 2, 4);
  auto res = placeJobs(g,
                       {job("j", 8,
                            {comm("a", CommKind::AllToAll, iota(4)),
                             comm("b", CommKind::AllToAll, iota(4, 4))})},
                       {});
  ASSERT_TRUE(res.ok());
  for (int64_t r = 0; r < 4; ++r) {
    EXPECT_EQ(res.jobs[0].chips[r].node, 0);
    EXPECT_EQ(res.jobs[0].chips[r + 4].node, 1);
  }
  EXPECT_EQ(res.jobs[0].communicators[0].maxHops, 0);
}

TEST(Placement, RingFollowsARailCycle) {
  auto g = railx(1, 5, 2, 1);
  auto res =
      placeJobs(g, {job("j", 5, {comm("dp", CommKind::Ring, iota(5))})}, {});
  ASSERT_TRUE(res.ok());
  const auto &c = res.jobs[0].communicators[0];
  std::vector<int64_t> order = nodesOf(res.jobs[0], c.ringOrder);
  std::vector<int64_t> cyc0(g.row.circuits[0].ring.begin(),
                            g.row.circuits[0].ring.end());
  EXPECT_EQ(order, cyc0);
  EXPECT_EQ(c.maxHops, 1);
  EXPECT_EQ(c.rails, (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(c.axisIndex, 0);
}

TEST(Placement, FailedPortOnRailZeroUsesRailOne) {
  auto g = railx(1, 5, 2, 1);
  Faults f;
  f.ports.push_back({OcsAxis::Row, 0, 0, 2});
  auto res =
      placeJobs(g, {job("j", 5, {comm("dp", CommKind::Ring, iota(5))})}, f);
  ASSERT_TRUE(res.ok());
  const auto &c = res.jobs[0].communicators[0];
  std::vector<int64_t> order = nodesOf(res.jobs[0], c.ringOrder);
  std::vector<int64_t> cyc1(g.row.circuits[1].ring.begin(),
                            g.row.circuits[1].ring.end());
  EXPECT_EQ(order, cyc1);
  EXPECT_EQ(c.rails, (std::vector<int64_t>{1}));
  EXPECT_EQ(c.maxHops, 1);
}

TEST(Placement, RingOverSurvivorsAfterBypass) {
  // Node 2 lost its rail-0 port; a 4-member ring on the other nodes runs
  // over rail 0's bypassed cycle with every step one hop.
  auto g = railx(1, 5, 2, 1);
  Faults f;
  f.ports.push_back({OcsAxis::Row, 0, 0, 2});
  f.chips.push_back({2, 0});
  auto res =
      placeJobs(g, {job("j", 4, {comm("dp", CommKind::Ring, iota(4))})}, f);
  ASSERT_TRUE(res.ok());
  const auto &c = res.jobs[0].communicators[0];
  EXPECT_EQ(c.maxHops, 1);
  ASSERT_FALSE(c.rails.empty());
  EXPECT_EQ(c.rails[0], 0);
}

TEST(Placement, NodeCutOffOnAllRailsIsAnError) {
  auto g = railx(1, 5, 2, 1);
  Faults f;
  f.ports.push_back({OcsAxis::Row, 0, 0, 2});
  f.ports.push_back({OcsAxis::Row, 0, 1, 2});
  auto res =
      placeJobs(g, {job("j", 5, {comm("dp", CommKind::Ring, iota(5))})}, f);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.errors[0].communicator, "dp");
  EXPECT_TRUE(res.jobs.empty());
}

TEST(Placement, TwoJobsGetDisjointChips) {
  auto g = railx(1, 5, 2, 2);
  auto res = placeJobs(g,
                       {job("a", 4, {comm("sp", CommKind::AllToAll, iota(4))}),
                        job("b", 6, {comm("dp", CommKind::Ring, iota(6))})},
                       {});
  ASSERT_TRUE(res.ok());
  std::set<Chip> used;
  for (const auto &j : res.jobs)
    for (const Chip &c : j.chips)
      EXPECT_TRUE(used.insert(c).second);
  EXPECT_EQ(used.size(), 10u);
}

TEST(Placement, FailedChipsAreNeverUsed) {
  auto g = railx(1, 5, 2, 2);
  Faults f;
  f.chips = {{0, 0}, {3, 1}};
  auto res = placeJobs(g, {job("a", 8, {})}, f);
  ASSERT_TRUE(res.ok());
  for (const Chip &c : res.jobs[0].chips) {
    EXPECT_NE(c, (Chip{0, 0}));
    EXPECT_NE(c, (Chip{3, 1}));
  }
}

TEST(Placement, JobLargerThanHealthyChips) {
  auto g = railx(1, 5, 2, 2);
  Faults f;
  f.chips = {{0, 0}};
  auto res = placeJobs(g, {job("a", 2, {}), job("big", 8, {})}, f);
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.errors[0].job, "big");
  EXPECT_EQ(res.errors[0].needed, 8);
  EXPECT_EQ(res.errors[0].available, 7);
  EXPECT_NE(res.errors[0].message.find("needs 8"), std::string::npos);
  EXPECT_NE(res.errors[0].message.find("7 healthy"), std::string::npos);
}

TEST(Placement, AllToAllBeyondRowReach) {
  auto g = railx(2, 5, 2, 1);
  auto res = placeJobs(
      g, {job("j", 6, {comm("ep", CommKind::AllToAll, iota(6))})}, {});
  ASSERT_FALSE(res.ok());
  EXPECT_EQ(res.errors[0].communicator, "ep");
  EXPECT_EQ(res.errors[0].needed, 6);
  EXPECT_EQ(res.errors[0].available, 5);
}

TEST(Placement, AllToAllPrefersAFullRowOverASplit) {
  // Row 0 has a failed chip, so a 5-rank group takes row 1.
  auto g = railx(2, 5, 2, 1);
  Faults f;
  f.chips = {{1, 0}};
  auto res =
      placeJobs(g, {job("j", 5, {comm("sp", CommKind::AllToAll, iota(5))})}, f);
  ASSERT_TRUE(res.ok());
  for (const Chip &c : res.jobs[0].chips)
    EXPECT_EQ(c.node / 5, 1);
}

TEST(Placement, PipelineStagesOnAdjacentNodes) {
  auto g = railx(3, 3, 1, 1);
  auto res = placeJobs(
      g, {job("j", 9, {comm("pp", CommKind::Pipeline, iota(9))})}, {});
  ASSERT_TRUE(res.ok());
  const auto &j = res.jobs[0];
  for (int64_t s = 0; s + 1 < 9; ++s)
    EXPECT_EQ(g.linkHops(j.chips[s].node, j.chips[s + 1].node), 1) << s;
  EXPECT_EQ(j.communicators[0].maxHops, 1);
}

TEST(Placement, PipelineFillsANodeFirst) {
  auto g = railx(3, 3, 1, 2);
  auto res = placeJobs(
      g, {job("j", 4, {comm("pp", CommKind::Pipeline, iota(4))})}, {});
  ASSERT_TRUE(res.ok());
  const auto &j = res.jobs[0];
  EXPECT_EQ(j.chips[0].node, j.chips[1].node);
  EXPECT_EQ(j.communicators[0].maxHops, 1);
}

TEST(Placement, Deterministic) {
  auto g = railx(3, 3, 1, 2);
  std::vector<JobRequest> jobs = {
      job("a", 6,
          {comm("sp", CommKind::AllToAll, {0, 1, 2}),
           comm("dp", CommKind::Ring, {0, 3}),
           comm("pp", CommKind::Pipeline, {0, 4})}),
      job("b", 5, {comm("dp", CommKind::Ring, iota(5))})};
  auto r1 = placeJobs(g, jobs, {}), r2 = placeJobs(g, jobs, {});
  ASSERT_TRUE(r1.ok());
  for (size_t i = 0; i < r1.jobs.size(); ++i) {
    EXPECT_EQ(r1.jobs[i].chips, r2.jobs[i].chips);
    for (size_t c = 0; c < r1.jobs[i].communicators.size(); ++c)
      EXPECT_EQ(r1.jobs[i].communicators[c].ringOrder,
                r2.jobs[i].communicators[c].ringOrder);
  }
}

TEST(Placement, BadRequestsAreErrors) {
  auto g = railx(1, 5, 2, 1);
  EXPECT_FALSE(
      placeJobs(g, {job("j", 2, {comm("x", CommKind::Ring, {0, 2})})}, {})
          .ok());
  EXPECT_FALSE(
      placeJobs(g, {job("j", 2, {comm("x", CommKind::Ring, {0, 0})})}, {})
          .ok());
  Faults f;
  f.chips = {{9, 0}};
  EXPECT_FALSE(placeJobs(g, {job("j", 2, {})}, f).ok());
}

TEST(Placement, FatTreePacksByNode) {
  fabric::TopologyShape t;
  t.kind = fabric::TopologyKind::FatTree;
  t.linkBandwidth = 1e11;
  t.radix = 4;
  t.tiers = 2;
  fabric::FabricGraph g;
  ASSERT_TRUE(g.build(t, 4, 2).ok());
  auto res = placeJobs(g,
                       {job("a", 2, {comm("sp", CommKind::AllToAll, iota(2))}),
                        job("b", 6, {comm("dp", CommKind::Ring, iota(6))})},
                       {});
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res.jobs[0].chips[0].node, res.jobs[0].chips[1].node);
  EXPECT_EQ(res.jobs[0].communicators[0].maxHops, 0);
  std::set<Chip> used;
  for (const auto &j : res.jobs)
    for (const Chip &c : j.chips)
      EXPECT_TRUE(used.insert(c).second);
  EXPECT_GT(res.jobs[1].communicators[0].maxHops, 0);
}

TEST(CircuitTable, ThreeByThreeMatchesDecomposition) {
  auto g = railx(3, 3, 1, 1);
  auto t = buildCircuitTable(g, {});
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t.entries.size(), 6u);
  for (const CircuitEntry &e : t.entries) {
    const auto &ring = e.axis == OcsAxis::Row ? g.row.circuits[e.rail].ring
                                              : g.col.circuits[e.rail].ring;
    ASSERT_EQ(e.cycle.size(), ring.size());
    for (size_t p = 0; p < ring.size(); ++p)
      EXPECT_EQ(e.cycle[p], e.axis == OcsAxis::Row ? e.index * 3 + ring[p]
                                                   : ring[p] * 3 + e.index);
    EXPECT_TRUE(isPermutation(e.portPermutation));
    for (size_t p = 0; p < ring.size(); ++p)
      EXPECT_EQ(e.portPermutation[ring[p]], ring[(p + 1) % ring.size()]);
  }
  EXPECT_EQ(t.entries[0].axis, OcsAxis::Row);
  EXPECT_EQ(t.entries[3].axis, OcsAxis::Col);
}

TEST(CircuitTable, PermutationsAndBypass) {
  for (int64_t n : {2, 4, 5, 6, 7}) {
    auto g = railx(n, n, n / 2, 1);
    Faults f;
    f.ports.push_back({OcsAxis::Col, 1, 0, 1});
    auto t = buildCircuitTable(g, f);
    ASSERT_TRUE(t.ok()) << n;
    EXPECT_EQ(t.entries.size(), static_cast<size_t>(2 * n * (n / 2)));
    for (const CircuitEntry &e : t.entries) {
      EXPECT_TRUE(isPermutation(e.portPermutation)) << n;
      if (e.axis == OcsAxis::Col && e.index == 1 && e.rail == 0) {
        EXPECT_EQ(e.bypassed, (std::vector<int64_t>{1 * n + 1}));
        EXPECT_EQ(e.portPermutation[1], 1); // bypassed port idle
        for (int64_t v : e.cycle)
          EXPECT_NE(v, n + 1);
      }
    }
  }
  EXPECT_FALSE(isPermutation({0, 0}));
}

TEST(CircuitTable, NotRailX) {
  fabric::TopologyShape t;
  t.kind = fabric::TopologyKind::Torus;
  t.linkBandwidth = 1e11;
  t.dims = {2, 2};
  fabric::FabricGraph g;
  ASSERT_TRUE(g.build(t, 4, 1).ok());
  EXPECT_FALSE(buildCircuitTable(g, {}).ok());
}
