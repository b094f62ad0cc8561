//===- JobGroupsTest.cpp - Communicators of a static layout ---------------===//
#include "passes/Instantiate/JobGroups.h"

#include <gtest/gtest.h>

using namespace plexus::instantiate;

namespace {
std::vector<int64_t> ranksOf(const GroupsResult &r, const std::string &name) {
  for (const JobGroup &g : r.groups)
    if (g.name == name)
      return g.ranks;
  return {};
}
} // namespace

TEST(JobGroups, TrainGridOfSixteen) {
  // 16 ranks = dp 2 x pp 2 x sp 2 x tensor 2; rank = ((d*2 + p)*2 + s)*2 + t:
  // each replica (d) holds 8 consecutive ranks.
  auto r = trainGroups({16, 2, 2, 2});
  ASSERT_TRUE(r.ok()) << r.error;
  // 8 groups of each kind (16 / 2).
  EXPECT_EQ(r.groups.size(), 32u);
  EXPECT_EQ(ranksOf(r, "tp0"), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(ranksOf(r, "sp0"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(ranksOf(r, "sp1"), (std::vector<int64_t>{1, 3}));
  // Data-parallel rings stride by P*S*T = 8 (one rank per replica).
  EXPECT_EQ(ranksOf(r, "dp0"), (std::vector<int64_t>{0, 8}));
  // Pipeline chains stride by S*T = 4 inside a replica; pp7 is replica 1,
  // s 1, t 1: ranks ((1*2 + 0)*2 + 1)*2 + 1 = 11 and 15.
  EXPECT_EQ(ranksOf(r, "pp0"), (std::vector<int64_t>{0, 4}));
  EXPECT_EQ(ranksOf(r, "pp7"), (std::vector<int64_t>{11, 15}));
  for (const JobGroup &g : r.groups)
    EXPECT_EQ(g.kind, g.name[0] == 's'   ? GroupKind::AllToAll
                      : g.name[0] == 'p' ? GroupKind::Pipeline
                                         : GroupKind::Ring);
}

TEST(JobGroups, SizeOneGroupsAreOmitted) {
  // 8 ranks of pure SP 8: one all-to-all group, nothing else.
  auto r = trainGroups({8, 1, 8, 1});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].ranks, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(JobGroups, DegreesMustDivideRanks) {
  auto r = trainGroups({12, 1, 8, 1});
  EXPECT_EQ(r.error, "tensor x sp x pp = 1 x 8 x 1 = 8 does not divide the "
                     "job's 12 ranks");
  EXPECT_FALSE(trainGroups({0, 1, 1, 1}).ok());
  EXPECT_EQ(serveGroups({12, 8, 2}).error,
            "pp x ep = 2 x 8 = 16 does not divide the job's 12 ranks");
}

TEST(JobGroups, ServeInstances) {
  // 32 ranks = 2 instances of PP2 x EP8; rank = (i*2 + p)*8 + e.
  auto r = serveGroups({32, 8, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.groups.size(), 4u + 16u); // 2*2 EP groups, 2*8 chains
  EXPECT_EQ(ranksOf(r, "ep1"),
            (std::vector<int64_t>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(ranksOf(r, "pp0"), (std::vector<int64_t>{0, 8}));
  EXPECT_EQ(ranksOf(r, "pp8"), (std::vector<int64_t>{16, 24}));
}

TEST(JobGroups, NodeLocalSpDegree) {
  EXPECT_EQ(nodeLocalSpDegree(8, 64, 64, 1), 8); // FlexSP: 8 per node
  EXPECT_EQ(nodeLocalSpDegree(8, 40, 32, 1), 8); // 40 heads: 8 divides
  EXPECT_EQ(nodeLocalSpDegree(8, 12, 64, 1), 4); // 12 heads: 4 is largest
  EXPECT_EQ(nodeLocalSpDegree(8, 64, 12, 1), 4); // 12 ranks: 4 divides
  EXPECT_EQ(nodeLocalSpDegree(1, 64, 64, 1), 1);
  EXPECT_EQ(nodeLocalSpDegree(16, 128, 64, 2), 16);
}
