//===- MpiCommTest.cpp - MpiComm under mpirun -----------------------------===//
//
// Run by ctest as `mpirun -np N RuntimeMpiTests` (N = 2, 3, 4). Every rank
// runs every test; results are checked exactly (integer-valued floats, and
// the group-order sum recomputed on the spot), a failed MPI call must come
// back as an error value, and a 2-way Ulysses step over MPI must give the
// single-rank loss and gradients. Only rank 0 prints; the exit status is
// the same on every rank.
//
//===----------------------------------------------------------------------===//
#include "runtime/MpiComm.h"
#include "runtime/Model.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <cstdio>

using namespace plexus::runtime;

namespace {

MpiComm *gComm = nullptr;

Group worldGroup(bool reversed) {
  Group g;
  for (int r = 0; r < gComm->size(); ++r)
    g.push_back(reversed ? gComm->size() - 1 - r : r);
  return g;
}

TEST(RuntimeMpi, AllReduceAddsInGroupOrder) {
  Comm &comm = *gComm;
  const int n = comm.size();
  for (bool reversed : {false, true}) {
    const Group ring = worldGroup(reversed);
    // 13 elements (uneven blocks), integer-valued: exact.
    std::vector<float> x(13);
    for (int e = 0; e < 13; ++e)
      x[static_cast<size_t>(e)] = static_cast<float>(1000 * comm.rank() + e);
    ASSERT_TRUE(comm.allReduce(ring, x.data(), 13).ok());
    for (int e = 0; e < 13; ++e)
      EXPECT_EQ(x[static_cast<size_t>(e)], 1000.0f * n * (n - 1) / 2 + n * e);
    // Where fp32 addition does not associate, the group's order decides:
    // the expected value is that order's sum, recomputed here.
    auto value = [](int r) { return r == 0 ? 1e8f : r == 1 ? -1e8f : 1.0f; };
    float y = value(comm.rank()), expected = value(ring[0]);
    for (size_t i = 1; i < ring.size(); ++i)
      expected += value(ring[i]);
    ASSERT_TRUE(comm.allReduce(ring, &y, 1).ok());
    EXPECT_EQ(y, expected) << (reversed ? "reversed" : "in order");
    double z = 0.25 * comm.rank();
    ASSERT_TRUE(comm.allReduce(ring, &z, 1).ok());
    EXPECT_EQ(z, 0.125 * n * (n - 1));
  }
}

TEST(RuntimeMpi, AllToAllAllGatherReduceScatterExact) {
  Comm &comm = *gComm;
  const int n = comm.size(), me = comm.rank();
  const Group ring = worldGroup(true);
  const int idx = comm.indexIn(ring);
  const int64_t count = 3;
  std::vector<float> in(static_cast<size_t>(n * count)),
      out(static_cast<size_t>(n * count));
  for (int j = 0; j < n; ++j)
    for (int e = 0; e < count; ++e)
      in[static_cast<size_t>(j * count + e)] =
          static_cast<float>(100 * me + 10 * j + e);
  ASSERT_TRUE(comm.allToAll(ring, in.data(), out.data(), count).ok());
  for (int i = 0; i < n; ++i)
    for (int e = 0; e < count; ++e)
      EXPECT_EQ(out[static_cast<size_t>(i * count + e)],
                100 * ring[static_cast<size_t>(i)] + 10 * idx + e);
  std::vector<double> mine = {1.0 * me, -2.0 * me},
                      all(static_cast<size_t>(2 * n));
  ASSERT_TRUE(comm.allGather(ring, mine.data(), all.data(), 2).ok());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(all[static_cast<size_t>(2 * i)], ring[static_cast<size_t>(i)]);
    EXPECT_EQ(all[static_cast<size_t>(2 * i + 1)],
              -2 * ring[static_cast<size_t>(i)]);
  }
  std::vector<float> sum(static_cast<size_t>(count));
  for (int j = 0; j < n; ++j)
    for (int e = 0; e < count; ++e)
      in[static_cast<size_t>(j * count + e)] =
          static_cast<float>((me + 1) * (j + e));
  ASSERT_TRUE(comm.reduceScatter(ring, in.data(), sum.data(), count).ok());
  for (int e = 0; e < count; ++e)
    EXPECT_EQ(sum[static_cast<size_t>(e)], n * (n + 1) / 2 * (idx + e));
}

TEST(RuntimeMpi, SubGroupsGetOneCommunicatorEach) {
  // Pairs (0, 1), (2, 3): an odd rank out works alone.
  Comm &comm = *gComm;
  const int me = comm.rank(), n = comm.size();
  const int first = me / 2 * 2;
  Group pair = first + 1 < n ? Group{first + 1, first} : Group{first};
  const int64_t before = gComm->communicatorCount();
  int64_t afterFirst = 0;
  for (int round = 0; round < 3; ++round) {
    float x = static_cast<float>(me + round);
    ASSERT_TRUE(comm.allReduce(pair, &x, 1).ok());
    float expected = 0;
    for (int r : pair)
      expected += static_cast<float>(r + round);
    EXPECT_EQ(x, expected);
    if (round == 0)
      afterFirst = gComm->communicatorCount();
  }
  // At most one new communicator (none when an earlier test already used
  // this ordered rank list, or for a lone rank), and none on reuse.
  EXPECT_LE(afterFirst - before, pair.size() > 1 ? 1 : 0);
  EXPECT_EQ(gComm->communicatorCount(), afterFirst);
}

TEST(RuntimeMpi, TaggedSendRecvAroundTheRing) {
  Comm &comm = *gComm;
  const int me = comm.rank(), n = comm.size();
  const int next = (me + 1) % n, prev = (me + n - 1) % n;
  std::vector<float> a(16), b(8), ra(16), rb(8);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = static_cast<float>(me * 100 + static_cast<int>(i));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = static_cast<float>(-me * 100 - static_cast<int>(i));
  // Even ranks send first; odd ranks receive first (in the other tag
  // order). With an odd ring, the last rank is even and sends to rank 0,
  // which is also sending: small messages go out eagerly.
  auto sendBoth = [&] {
    ASSERT_TRUE(comm.send(next, a.data(), 16, 5).ok());
    ASSERT_TRUE(comm.send(next, b.data(), 8, 6).ok());
  };
  auto recvBoth = [&] {
    ASSERT_TRUE(comm.recv(prev, rb.data(), 8, 6).ok());
    ASSERT_TRUE(comm.recv(prev, ra.data(), 16, 5).ok());
  };
  if (me % 2 == 0) {
    sendBoth();
    recvBoth();
  } else {
    recvBoth();
    sendBoth();
  }
  for (size_t i = 0; i < ra.size(); ++i)
    EXPECT_EQ(ra[i], prev * 100 + static_cast<int>(i));
  for (size_t i = 0; i < rb.size(); ++i)
    EXPECT_EQ(rb[i], -prev * 100 - static_cast<int>(i));
}

TEST(RuntimeMpi, FailedCallsComeBackAsErrors) {
  Comm &comm = *gComm;
  const int me = comm.rank();
  float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  // MPI itself fails: rank 1 posts a receive too small for rank 0's
  // message (MPI_ERR_TRUNCATE, returned, not fatal).
  if (me == 0) {
    EXPECT_TRUE(comm.send(1, x, 8, 3).ok());
  } else if (me == 1) {
    Status st = comm.recv(0, x, 4, 3);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message().rfind("recv on rank 1 from 0 (tag 3): MPI_Recv "
                                 "failed: ",
                                 0),
              0u)
        << st.message();
    EXPECT_NE(st.message().find("MPI_ERR_TRUNCATE"), std::string::npos)
        << st.message();
  }
  // Checked before MPI is called.
  EXPECT_EQ(comm.allReduce(Group{(me + 1) % comm.size()}, x, 1).message(),
            "all_reduce on rank " + std::to_string(me) + " over [" +
                std::to_string((me + 1) % comm.size()) +
                "]: this rank is not in the group");
  if (gComm->tagUpperBound() < INT_MAX) {
    Status tag =
        comm.send((me + 1) % comm.size(), x, 1, gComm->tagUpperBound() + 1);
    EXPECT_NE(tag.message().find("tag above MPI_TAG_UB"), std::string::npos)
        << tag.message();
  }
  // Everyone is still in step afterwards.
  float one = 1;
  ASSERT_TRUE(comm.allReduce(worldGroup(false), &one, 1).ok());
  EXPECT_EQ(one, comm.size());
}

TEST(RuntimeMpi, UlyssesStepMatchesSingleRank) {
  // The world in pairs (an odd rank out runs alone, which is the
  // single-rank case): each pair runs a 2-way Ulysses step; every rank
  // compares with the single-rank step it computes itself.
  Comm &comm = *gComm;
  const int me = comm.rank(), n = comm.size();
  const int first = me / 2 * 2;
  const Group ring = first + 1 < n ? Group{first, first + 1} : Group{first};
  ModelConfig c;
  c.layers = 2;
  c.hidden = 32;
  c.heads = 4;
  c.kvHeads = 2;
  c.headDim = 8;
  c.ffn = 48;
  c.vocab = 40;
  c.initStd = 0.2f;
  auto w = initWeights<float>(c, wholeModel(c), 31);
  ASSERT_TRUE(w.ok());
  const std::vector<std::vector<int32_t>> seqs = {
      syntheticTokens(31, 0, 12, c.vocab), syntheticTokens(31, 1, 8, c.vocab)};
  ModelWeights<float> refGrads = zerosLike(*w);
  Result<double> refLoss = referenceStep(c, *w, seqs, refGrads);
  ASSERT_TRUE(refLoss.ok());

  const std::vector<Slice> slices = {{12, 0}, {8, 0}};
  std::vector<int32_t> tokens = seqs[0],
                       targets = nextTokenTargets(seqs[0], 0, 12);
  tokens.insert(tokens.end(), seqs[1].begin(), seqs[1].end());
  auto t1 = nextTokenTargets(seqs[1], 0, 8);
  targets.insert(targets.end(), t1.begin(), t1.end());
  UlyssesGroup sp{&comm, ring};
  const int64_t degree = static_cast<int64_t>(ring.size());
  std::vector<int32_t> myTokens, myTargets;
  for (int64_t r : localRows(slices, degree, comm.indexIn(ring))) {
    myTokens.push_back(tokens[static_cast<size_t>(r)]);
    myTargets.push_back(targets[static_cast<size_t>(r)]);
  }
  ModelWeights<float> grads = zerosLike(*w);
  Tensor x, y, dy, dx;
  std::vector<LayerActivations<float>> acts;
  HeadActivations<float> head;
  ASSERT_TRUE(embedForward(c, *w, myTokens, x).ok());
  Status st = layersForward(c, *w, 0, c.layers, slices, &sp, x, nullptr,
                            Checkpoint::Full, acts, y);
  ASSERT_TRUE(st.ok()) << st.message();
  Result<double> loss = headForward(c, *w, y, myTargets, 1.0 / 18, head);
  ASSERT_TRUE(loss.ok());
  ASSERT_TRUE(headBackward(c, *w, head, dy, grads).ok());
  st = layersBackward(c, *w, 0, c.layers, slices, &sp, nullptr, acts, dy,
                      nullptr, dx, grads, nullptr);
  ASSERT_TRUE(st.ok()) << st.message();
  ASSERT_TRUE(embedBackward(c, myTokens, dx, grads).ok());
  ASSERT_TRUE(allReduceGradients(comm, ring, grads).ok());
  double total = *loss;
  ASSERT_TRUE(comm.allReduce(ring, &total, 1).ok());
  EXPECT_LT(std::fabs(total - *refLoss) / *refLoss, 1e-5);
  std::vector<std::pair<std::string, const Tensor *>> got, want;
  grads.forEach([&](const std::string &name, const Tensor &t) {
    got.push_back({name, &t});
  });
  refGrads.forEach([&](const std::string &name, const Tensor &t) {
    want.push_back({name, &t});
  });
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LT(normRelativeError(*got[i].second, *want[i].second), 1e-5)
        << got[i].first;
}

} // namespace

int main(int argc, char **argv) {
  Result<std::unique_ptr<MpiComm>> comm = MpiComm::create(&argc, &argv);
  if (!comm.ok()) {
    std::fprintf(stderr, "%s\n", comm.message().c_str());
    return 1;
  }
  gComm = comm->get();
  ::testing::InitGoogleTest(&argc, argv);
  if (gComm->rank() != 0) {
    auto &listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  // Every rank exits with the same status: any rank's failure fails all.
  float anyFailed = static_cast<float>(failed);
  Status st = gComm->allReduce(worldGroup(false), &anyFailed, 1);
  if (!st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  if (anyFailed > 0 && !failed)
    std::fprintf(stderr, "rank %d: another rank failed\n", gComm->rank());
  Status done = gComm->finalize();
  if (!done.ok()) {
    std::fprintf(stderr, "%s\n", done.message().c_str());
    return 1;
  }
  return anyFailed > 0 ? 1 : 0;
}
