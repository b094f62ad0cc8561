//===- ReplicasTest.cpp - A large job as data-parallel replicas -----------===//
//
// foldReplicas on hand-checked worlds (divisors, whole nodes, a planner's
// preference, the errors) and heaviestShare against a hand deal.
//
//===----------------------------------------------------------------------===//
#include "passes/Train/Replicas.h"

#include "passes/Baselines/StepPlanners.h"

#include <gtest/gtest.h>

using namespace plexus;
using namespace plexus::train;

TEST(Replicas, SmallJobsAreOneReplica) {
  ReplicaFold f = foldReplicas(4096, 8, 4096, 10);
  EXPECT_TRUE(f.ok());
  EXPECT_EQ(f.replicas, 1);
  EXPECT_EQ(f.ranks, 4096);
}

TEST(Replicas, TheFewestReplicasOfWholeNodes) {
  // 200,704 = 2^12 * 7^2 chips in 16-chip nodes: 49 replicas of 4,096.
  ReplicaFold f = foldReplicas(200704, 16, 4096, 16384);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_EQ(f.replicas, 49);
  EXPECT_EQ(f.ranks, 4096);
  // 96 chips of 8-chip nodes, at most 40 a replica: 3 replicas of 32 (4 of
  // 24 would also be whole nodes, but 3 is fewer; 96 / 3 = 32 <= 40).
  f = foldReplicas(96, 8, 40, 100);
  EXPECT_EQ(f.replicas, 3);
  // At most 20 a replica: 96 / 5 is no integer, 96 / 6 = 16 is two nodes.
  f = foldReplicas(96, 8, 20, 100);
  EXPECT_EQ(f.replicas, 6);
  EXPECT_EQ(f.ranks, 16);
}

TEST(Replicas, APlannerCanAskForItsLayouts) {
  // DPP with 16-chip stages over 126 layers: stages must divide 126, so of
  // 16 * {1, 2, 7, 14} (the stage counts whose replicas divide 200,704)
  // the largest under 4,096 is 16 * 14 = 224 ranks: 896 replicas.
  auto dpp = [](int64_t ranks) {
    return ranks % 16 == 0 && ranks / 16 <= 126 && 126 % (ranks / 16) == 0;
  };
  ReplicaFold f = foldReplicas(200704, 16, 4096, 16384, dpp);
  ASSERT_TRUE(f.ok()) << f.error;
  EXPECT_EQ(f.replicas, 896);
  EXPECT_EQ(f.ranks, 224);
  // No replica size it accepts: the fewest replicas, as without.
  f = foldReplicas(200704, 16, 4096, 16384, [](int64_t) { return false; });
  EXPECT_EQ(f.replicas, 49);
  // Its preferred size would need more replicas than sequences: also the
  // fewest.
  f = foldReplicas(200704, 16, 4096, 100, dpp);
  EXPECT_EQ(f.replicas, 49);
}

TEST(Replicas, WorldsThatDoNotFoldSayWhy) {
  // 13 nodes of 8: no replica of whole nodes has at most 64 ranks but 8,
  // i.e. 13 replicas, which needs 13 sequences.
  ReplicaFold f = foldReplicas(104, 8, 64, 12);
  EXPECT_FALSE(f.ok());
  EXPECT_NE(f.error.find("more than the step's 12 sequences"),
            std::string::npos)
      << f.error;
  EXPECT_EQ(foldReplicas(104, 8, 64, 13).replicas, 13);
  // Nodes larger than the replica cap.
  f = foldReplicas(128, 16, 8, 100);
  EXPECT_FALSE(f.ok());
  EXPECT_NE(f.error.find("whole 16-chip nodes"), std::string::npos) << f.error;
}

TEST(Replicas, TheHeaviestShareOfAGreedyDeal) {
  cost::TransformerShape shape;
  shape.layers = 2;
  shape.hidden = 64;
  shape.heads = 4;
  shape.kvHeads = 4;
  shape.ffn = 256;
  shape.vocab = 128;
  // Forward FLOPs grow with the length, so the deal goes longest first:
  // 8000 -> share 0, 4000 -> 1, 3000 -> 1 (7000 < 8000), 1000 -> 1, 500 ->
  // 0 (... whichever is lighter then). Computed with the model's FLOPs:
  const std::vector<int64_t> lengths = {1000, 8000, 500, 3000, 4000};
  auto flops = [&](int64_t n) {
    return baselines::sequenceForwardFlops(shape, n);
  };
  BatchShare s = heaviestShare(shape, lengths, 2);
  double a = flops(8000), b = flops(4000);
  std::vector<int64_t> idsA = {1}, idsB = {4};
  for (int64_t id : {3, 0, 2}) { // 3000, 1000, 500 in that order
    if (b < a) {
      b += flops(lengths[id]);
      idsB.push_back(id);
    } else {
      a += flops(lengths[id]);
      idsA.push_back(id);
    }
  }
  std::sort(idsA.begin(), idsA.end());
  std::sort(idsB.begin(), idsB.end());
  const bool firstHeavier = a >= b;
  EXPECT_EQ(s.ids, firstHeavier ? idsA : idsB);
  EXPECT_DOUBLE_EQ(s.flops, firstHeavier ? a : b);
  EXPECT_DOUBLE_EQ(s.meanFlops, (a + b) / 2);
  for (size_t i = 0; i < s.ids.size(); ++i)
    EXPECT_EQ(s.lengths[i], lengths[static_cast<size_t>(s.ids[i])]);
  EXPECT_EQ(s.fewestSequences + s.mostSequences, 5);
  // One share is the whole batch, in order.
  BatchShare all = heaviestShare(shape, lengths, 1);
  EXPECT_EQ(all.lengths, lengths);
  EXPECT_EQ(all.fewestSequences, 5);
}
