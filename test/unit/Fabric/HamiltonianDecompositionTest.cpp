//===- HamiltonianDecompositionTest.cpp - Decompositions and validator ----===//
//
// Golden small cases a reader can check by hand, every order up to 80 (66
// for the searched directed case) through the validator, the error values,
// and property tests: the validator rejects corrupted decompositions.
//
//===----------------------------------------------------------------------===//

#include "passes/Fabric/HamiltonianDecomposition.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace plexus::fabric;

namespace {

using Cycle = std::vector<int32_t>;

HamiltonianDecomposition build(DecompositionGraph g, int64_t n) {
  DecompositionResult r = decompose(g, n);
  EXPECT_TRUE(r.ok()) << decompositionGraphName(g) << " n=" << n << ": "
                      << r.message;
  return r.decomposition;
}

void expectValid(const HamiltonianDecomposition &d) {
  DecompositionCheck c = validateDecomposition(d);
  EXPECT_TRUE(c.ok) << decompositionGraphName(d.graph) << " n=" << d.order
                    << ": " << c.message;
}

void expectInvalid(const HamiltonianDecomposition &d, const std::string &why) {
  DecompositionCheck c = validateDecomposition(d);
  EXPECT_FALSE(c.ok) << why << " (" << decompositionGraphName(d.graph)
                     << " n=" << d.order << ")";
  EXPECT_FALSE(c.message.empty());
}

/// Tiny deterministic generator for the property tests.
struct Lcg {
  uint64_t s;
  uint32_t next(uint32_t bound) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>((s >> 33) % bound);
  }
};

} // namespace

// ---- golden cases ----------------------------------------------------------

TEST(HamiltonianDecomposition, WaleckiK5AndK7Golden) {
  HamiltonianDecomposition d5 = build(DecompositionGraph::Complete, 5);
  ASSERT_EQ(d5.cycles.size(), 2u);
  EXPECT_EQ(d5.cycles[0], (Cycle{4, 0, 1, 3, 2}));
  EXPECT_EQ(d5.cycles[1], (Cycle{4, 1, 2, 0, 3}));
  EXPECT_TRUE(d5.matching.empty());

  HamiltonianDecomposition d7 = build(DecompositionGraph::Complete, 7);
  ASSERT_EQ(d7.cycles.size(), 3u);
  EXPECT_EQ(d7.cycles[0], (Cycle{6, 0, 1, 5, 2, 4, 3}));
  EXPECT_EQ(d7.cycles[1], (Cycle{6, 1, 2, 0, 3, 5, 4}));
  EXPECT_EQ(d7.cycles[2], (Cycle{6, 2, 3, 1, 4, 0, 5}));
}

TEST(HamiltonianDecomposition, EvenK4AndK6Golden) {
  // K_4: one 4-cycle, hubs 2 and 3 around the path 0-1, plus {0,1},{2,3}.
  HamiltonianDecomposition d4 = build(DecompositionGraph::Complete, 4);
  ASSERT_EQ(d4.cycles.size(), 1u);
  EXPECT_EQ(d4.cycles[0], (Cycle{2, 0, 3, 1}));
  using E = std::pair<int32_t, int32_t>;
  EXPECT_EQ(d4.matching, (std::vector<E>{{0, 1}, {2, 3}}));
  // K_6: paths 0,1,3,2 and 1,2,0,3 on Z_4; antipodal edges 1-3 and 2-0.
  HamiltonianDecomposition d6 = build(DecompositionGraph::Complete, 6);
  ASSERT_EQ(d6.cycles.size(), 2u);
  EXPECT_EQ(d6.cycles[0], (Cycle{4, 0, 1, 5, 3, 2}));
  EXPECT_EQ(d6.cycles[1], (Cycle{4, 1, 2, 5, 0, 3}));
  EXPECT_EQ(d6.matching.size(), 3u);
  expectValid(d4);
  expectValid(d6);
}

TEST(HamiltonianDecomposition, BipartiteGolden) {
  HamiltonianDecomposition d2 = build(DecompositionGraph::CompleteBipartite, 2);
  ASSERT_EQ(d2.cycles.size(), 1u);
  EXPECT_EQ(d2.cycles[0], (Cycle{0, 2, 1, 3}));
  EXPECT_TRUE(d2.matching.empty());
  // K_{3,3}: differences 0 and 1 form the cycle, difference 2 the matching.
  HamiltonianDecomposition d3 = build(DecompositionGraph::CompleteBipartite, 3);
  ASSERT_EQ(d3.cycles.size(), 1u);
  EXPECT_EQ(d3.cycles[0], (Cycle{0, 3, 2, 5, 1, 4}));
  using E = std::pair<int32_t, int32_t>;
  EXPECT_EQ(d3.matching, (std::vector<E>{{0, 5}, {1, 3}, {2, 4}}));
  expectValid(d3);
}

TEST(HamiltonianDecomposition, DirectedOddIsBothOrientations) {
  HamiltonianDecomposition d = build(DecompositionGraph::CompleteDirected, 5);
  ASSERT_EQ(d.cycles.size(), 4u);
  EXPECT_EQ(d.cycles[0], (Cycle{4, 0, 1, 3, 2}));
  EXPECT_EQ(d.cycles[1], (Cycle{2, 3, 1, 0, 4}));
  HamiltonianDecomposition d3 = build(DecompositionGraph::CompleteDirected, 3);
  ASSERT_EQ(d3.cycles.size(), 2u);
  EXPECT_EQ(d3.cycles[0], (Cycle{2, 0, 1}));
  EXPECT_EQ(d3.cycles[1], (Cycle{1, 0, 2}));
}

TEST(HamiltonianDecomposition, TrivialOrders) {
  EXPECT_TRUE(build(DecompositionGraph::Complete, 1).cycles.empty());
  HamiltonianDecomposition k2 = build(DecompositionGraph::Complete, 2);
  EXPECT_TRUE(k2.cycles.empty());
  ASSERT_EQ(k2.matching.size(), 1u);
  HamiltonianDecomposition k11 =
      build(DecompositionGraph::CompleteBipartite, 1);
  EXPECT_TRUE(k11.cycles.empty());
  EXPECT_EQ(k11.matching.size(), 1u);
  HamiltonianDecomposition d2 = build(DecompositionGraph::CompleteDirected, 2);
  ASSERT_EQ(d2.cycles.size(), 1u);
  EXPECT_EQ(d2.cycles[0], (Cycle{0, 1}));
  EXPECT_TRUE(build(DecompositionGraph::CompleteDirected, 1).cycles.empty());
  for (auto g :
       {DecompositionGraph::Complete, DecompositionGraph::CompleteBipartite,
        DecompositionGraph::CompleteDirected})
    for (int64_t n : {1, 2, 3})
      expectValid(build(g, n));
}

// ---- every size ------------------------------------------------------------

TEST(HamiltonianDecomposition, CompleteEveryOrderTo80) {
  for (int64_t n = 1; n <= 80; ++n) {
    HamiltonianDecomposition d = build(DecompositionGraph::Complete, n);
    EXPECT_EQ(static_cast<int64_t>(d.cycles.size()),
              n % 2 ? (n - 1) / 2 : (n - 2) / 2);
    EXPECT_EQ(d.matching.size(), n % 2 ? 0u : size_t(n / 2));
    expectValid(d);
  }
}

TEST(HamiltonianDecomposition, BipartiteEveryOrderTo80) {
  for (int64_t n = 1; n <= 80; ++n) {
    HamiltonianDecomposition d =
        build(DecompositionGraph::CompleteBipartite, n);
    EXPECT_EQ(static_cast<int64_t>(d.cycles.size()),
              n % 2 ? (n - 1) / 2 : n / 2);
    EXPECT_EQ(d.matching.size(), n % 2 ? size_t(n) : 0u);
    expectValid(d);
  }
}

TEST(HamiltonianDecomposition, DirectedEveryOrderTo66) {
  for (int64_t n = 1; n <= 66; ++n) {
    if (n == 4 || n == 6)
      continue;
    DecompositionResult r = decomposeCompleteDirected(n);
    ASSERT_TRUE(r.ok()) << "n=" << n << ": " << r.message;
    EXPECT_EQ(static_cast<int64_t>(r.decomposition.cycles.size()), n - 1);
    EXPECT_TRUE(r.decomposition.matching.empty());
    expectValid(r.decomposition);
    if (n % 2 == 1 || n == 2) {
      EXPECT_EQ(r.searchSteps, 0);
    }
  }
}

TEST(HamiltonianDecomposition, LargerOrdersSpotChecks) {
  for (int64_t n : {127, 128, 255, 256, 513})
    expectValid(build(DecompositionGraph::Complete, n));
  for (int64_t n : {127, 128, 255, 256})
    expectValid(build(DecompositionGraph::CompleteBipartite, n));
  for (int64_t n : {99, 255, 80})
    expectValid(build(DecompositionGraph::CompleteDirected, n));
}

TEST(HamiltonianDecomposition, DirectedSearchIsDeterministic) {
  DecompositionResult a = decomposeCompleteDirected(40);
  DecompositionResult b = decomposeCompleteDirected(40);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.decomposition.cycles, b.decomposition.cycles);
  EXPECT_EQ(a.searchSteps, b.searchSteps);
}

TEST(HamiltonianDecomposition, DirectedEvenPassesThroughTheExtraVertex) {
  // Even n: the last cycle starts at the extra vertex n-1 and follows the
  // searched path; every other cycle has n-1 spliced into one arc.
  HamiltonianDecomposition d = build(DecompositionGraph::CompleteDirected, 8);
  ASSERT_EQ(d.cycles.size(), 7u);
  EXPECT_EQ(d.cycles.back().front(), 7);
  for (const Cycle &c : d.cycles)
    EXPECT_EQ(std::count(c.begin(), c.end(), 7), 1);
}

// ---- errors as values ------------------------------------------------------

TEST(HamiltonianDecomposition, DirectedFourAndSixHaveNone) {
  for (int64_t n : {4, 6}) {
    DecompositionResult r = decomposeCompleteDirected(n);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.status, DecompositionStatus::NoDirectedDecomposition);
    EXPECT_EQ(r.message, "K*_" + std::to_string(n) +
                             " has no decomposition into directed "
                             "Hamiltonian cycles (only n = 4 and n = 6 lack "
                             "one)");
    EXPECT_TRUE(r.decomposition.cycles.empty());
  }
}

TEST(HamiltonianDecomposition, InvalidOrders) {
  for (auto g :
       {DecompositionGraph::Complete, DecompositionGraph::CompleteBipartite,
        DecompositionGraph::CompleteDirected})
    for (int64_t n : {int64_t(0), int64_t(-3), kMaxDecompositionOrder + 1}) {
      DecompositionResult r = decompose(g, n);
      EXPECT_EQ(r.status, DecompositionStatus::InvalidOrder);
      EXPECT_NE(r.message.find("order must be in [1, 4096]"), std::string::npos)
          << r.message;
    }
}

TEST(HamiltonianDecomposition, TinyBudgetGivesUpAsAValue) {
  DecompositionResult r = decomposeCompleteDirected(64, 5);
  EXPECT_EQ(r.status, DecompositionStatus::SearchBudgetExhausted);
  EXPECT_NE(r.message.find("gave up after 5 steps"), std::string::npos)
      << r.message;
}

// ---- validator: hand-made corruptions --------------------------------------

TEST(HamiltonianDecompositionValidator, RejectsRepeatedEdge) {
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 7);
  d.cycles[1] = d.cycles[0];
  DecompositionCheck c = validateDecomposition(d);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message, "cycle 1 reuses edge 6 - 0");
  // Directed: a cycle repeated in the same orientation reuses an arc.
  HamiltonianDecomposition e = build(DecompositionGraph::CompleteDirected, 5);
  e.cycles[1] = e.cycles[0];
  c = validateDecomposition(e);
  EXPECT_EQ(c.message, "cycle 1 reuses arc 4 -> 0");
}

TEST(HamiltonianDecompositionValidator, RejectsShortCycle) {
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 7);
  d.cycles[2].pop_back();
  DecompositionCheck c = validateDecomposition(d);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message, "cycle 2 has 6 vertices, a Hamiltonian cycle needs 7");
}

TEST(HamiltonianDecompositionValidator, RejectsMissingVertex) {
  // Same length, but vertex 3 replaced by a second 5: 3 is never visited.
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 7);
  std::replace(d.cycles[0].begin(), d.cycles[0].end(), 3, 5);
  DecompositionCheck c = validateDecomposition(d);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.message, "cycle 0 visits vertex 5 twice");
}

TEST(HamiltonianDecompositionValidator, RejectsOutOfRangeVertex) {
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 5);
  d.cycles[0][2] = 9;
  EXPECT_EQ(validateDecomposition(d).message,
            "cycle 0 names vertex 9, outside 0..4");
}

TEST(HamiltonianDecompositionValidator, RejectsWrongCycleCount) {
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 9);
  d.cycles.pop_back();
  EXPECT_EQ(validateDecomposition(d).message,
            "K_n with n = 9 needs 4 Hamiltonian cycles, got 3");
}

TEST(HamiltonianDecompositionValidator, RejectsNonEdgeInBipartite) {
  // 0 and 1 are on the same side of K_{2,2}.
  HamiltonianDecomposition d = build(DecompositionGraph::CompleteBipartite, 2);
  d.cycles[0] = {0, 1, 2, 3};
  EXPECT_EQ(validateDecomposition(d).message,
            "cycle 0 steps 0 - 1, which is not an edge");
}

TEST(HamiltonianDecompositionValidator, RejectsBadMatchings) {
  HamiltonianDecomposition d = build(DecompositionGraph::Complete, 6);
  HamiltonianDecomposition missing = d;
  missing.matching.pop_back();
  EXPECT_EQ(validateDecomposition(missing).message,
            "the perfect matching needs 3 edges, got 2");
  HamiltonianDecomposition twice = d;
  twice.matching[1] = twice.matching[0];
  expectInvalid(twice, "matching covers a vertex twice");
  HamiltonianDecomposition extra = build(DecompositionGraph::Complete, 5);
  extra.matching.push_back({0, 1});
  EXPECT_EQ(validateDecomposition(extra).message,
            "this decomposition has no matching, got 1 edges");
  // A matching edge that a cycle already uses: an edge goes uncovered.
  HamiltonianDecomposition k4 = build(DecompositionGraph::Complete, 4);
  k4.matching = {{2, 0}, {3, 1}};
  EXPECT_EQ(validateDecomposition(k4).message,
            "the matching reuses edge 2 - 0");
}

TEST(HamiltonianDecompositionValidator, RejectsUndirectedTwoCycle) {
  HamiltonianDecomposition d;
  d.graph = DecompositionGraph::CompleteBipartite;
  d.order = 1;
  d.cycles = {{0, 1}};
  expectInvalid(d, "K_{1,1} has no cycle");
}

// ---- validator: property tests ---------------------------------------------

// For many orders and seeds: swapping two vertices of a cycle (n >= 5, so
// the edge set always changes), duplicating one vertex over another, and
// dropping one vertex must each be rejected.
TEST(HamiltonianDecompositionValidator, RejectsRandomCorruptions) {
  Lcg rng{42};
  for (auto g :
       {DecompositionGraph::Complete, DecompositionGraph::CompleteBipartite,
        DecompositionGraph::CompleteDirected}) {
    for (int64_t n = 5; n <= 33; ++n) {
      if (g == DecompositionGraph::CompleteDirected && n == 6)
        continue;
      HamiltonianDecomposition good = build(g, n);
      ASSERT_FALSE(good.cycles.empty());
      expectValid(good);
      for (int trial = 0; trial < 8; ++trial) {
        uint32_t ci = rng.next(good.cycles.size());
        uint32_t len = good.cycles[ci].size();
        uint32_t i = rng.next(len), j = (i + 1 + rng.next(len - 1)) % len;

        HamiltonianDecomposition swapped = good;
        std::swap(swapped.cycles[ci][i], swapped.cycles[ci][j]);
        expectInvalid(swapped, "swapped two vertices");

        HamiltonianDecomposition duplicated = good;
        duplicated.cycles[ci][i] = duplicated.cycles[ci][j];
        expectInvalid(duplicated, "duplicated a vertex");

        HamiltonianDecomposition shortened = good;
        shortened.cycles[ci].erase(shortened.cycles[ci].begin() + i);
        expectInvalid(shortened, "dropped a vertex");

        // Reversing a directed cycle turns each arc into one that another
        // cycle already uses.
        if (g == DecompositionGraph::CompleteDirected) {
          HamiltonianDecomposition reversed = good;
          std::reverse(reversed.cycles[ci].begin(), reversed.cycles[ci].end());
          expectInvalid(reversed, "reversed a directed cycle");
        }
      }
    }
  }
}
