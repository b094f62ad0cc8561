//===- CommTest.cpp - The Comm interface on the in-process loopback -------===//
//
// Every collective's result by formula, on groups in non-sorted ring order
// and with counts that do not split evenly; the group-order sum shown on
// values where float addition is not associative; tagged messages received
// out of order; and misuse reported as errors rather than hangs.
//
//===----------------------------------------------------------------------===//
#include "runtime/LoopbackComm.h"

#include <gtest/gtest.h>

#include <atomic>

using namespace plexus::runtime;

namespace {

TEST(RuntimeLoopback, CollectivesByFormula) {
  LoopbackWorld world(3);
  const Group ring = {2, 0, 1};
  Status st = world.run([&](Comm &comm) -> Status {
    const int me = comm.rank();
    const int idx = comm.indexIn(ring);
    const int64_t n = 3, count = 4;
    // all_to_all: element e of the block for group[j] is 100 me + 10 j + e.
    std::vector<float> in(n * count), out(n * count);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t e = 0; e < count; ++e)
        in[j * count + e] = static_cast<float>(100 * me + 10 * j + e);
    PLXRT_TRY(comm.allToAll(ring, in.data(), out.data(), count));
    for (int64_t i = 0; i < n; ++i)
      for (int64_t e = 0; e < count; ++e)
        if (out[i * count + e] != 100 * ring[i] + 10 * idx + e)
          return Status::error("all_to_all: wrong element");
    // all_gather: block i holds group[i]'s buffer.
    std::vector<double> mine = {1.0 * me, 2.0 * me}, all(6);
    PLXRT_TRY(comm.allGather(ring, mine.data(), all.data(), 2));
    for (int64_t i = 0; i < n; ++i)
      if (all[i * 2] != ring[i] || all[i * 2 + 1] != 2 * ring[i])
        return Status::error("all_gather: wrong element");
    // reduce_scatter: group[j] gets the sum of block j, (me + 1) (j + e).
    std::vector<float> blocks(n * count), sum(count);
    for (int64_t j = 0; j < n; ++j)
      for (int64_t e = 0; e < count; ++e)
        blocks[j * count + e] = static_cast<float>((me + 1) * (j + e));
    PLXRT_TRY(comm.reduceScatter(ring, blocks.data(), sum.data(), count));
    for (int64_t e = 0; e < count; ++e)
      if (sum[e] != 6 * (idx + e)) // (1 + 2 + 3) (idx + e)
        return Status::error("reduce_scatter: wrong element");
    // all_reduce of 7 elements (not a multiple of 3).
    std::vector<float> data(7);
    for (int64_t e = 0; e < 7; ++e)
      data[e] = static_cast<float>(me * 7 + e);
    PLXRT_TRY(comm.allReduce(ring, data.data(), 7));
    for (int64_t e = 0; e < 7; ++e)
      if (data[e] != 21 + 3 * e) // 7 (0 + 1 + 2) + 3 e
        return Status::error("all_reduce: wrong element");
    return Status::success();
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(RuntimeLoopback, AllReduceAddsInGroupOrder) {
  // x = 1e8, -1e8, 1 on ranks 0, 1, 2. In fp32, (1e8 + -1e8) + 1 = 1 but
  // (1 + 1e8) + -1e8 = 0: the group's order decides, on every rank.
  LoopbackWorld world(3);
  for (const Group &ring : {Group{0, 1, 2}, Group{2, 0, 1}}) {
    const float expected = ring[0] == 0 ? 1.0f : 0.0f;
    Status st = world.run([&](Comm &comm) -> Status {
      const float values[] = {1e8f, -1e8f, 1.0f};
      float x = values[comm.rank()];
      PLXRT_TRY(comm.allReduce(ring, &x, 1));
      if (x != expected)
        return Status::error("got " + std::to_string(x));
      return Status::success();
    });
    EXPECT_TRUE(st.ok()) << st.message();
  }
}

TEST(RuntimeLoopback, DisjointGroupsRunSideBySide) {
  LoopbackWorld world(4);
  Status st = world.run([&](Comm &comm) -> Status {
    const Group pair = comm.rank() < 2 ? Group{0, 1} : Group{3, 2};
    for (int round = 0; round < 3; ++round) {
      double x = comm.rank() + round;
      PLXRT_TRY(comm.allReduce(pair, &x, 1));
      const double expected = (comm.rank() < 2 ? 1 : 5) + 2 * round;
      if (x != expected)
        return Status::error("round " + std::to_string(round));
    }
    return Status::success();
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(RuntimeLoopback, TaggedMessagesMatchByTag) {
  LoopbackWorld world(2);
  Status st = world.run([&](Comm &comm) -> Status {
    if (comm.rank() == 0) {
      float a[] = {1, 2, 3}, b[] = {4, 5};
      PLXRT_TRY(comm.send(1, a, 3, /*tag=*/1));
      PLXRT_TRY(comm.send(1, b, 2, /*tag=*/2));
      return Status::success();
    }
    float b[2], a[3];
    PLXRT_TRY(comm.recv(0, b, 2, 2));
    PLXRT_TRY(comm.recv(0, a, 3, 1));
    if (a[0] != 1 || a[2] != 3 || b[0] != 4 || b[1] != 5)
      return Status::error("wrong payload");
    return Status::success();
  });
  EXPECT_TRUE(st.ok()) << st.message();
}

TEST(RuntimeLoopback, BadArgumentsAreErrors) {
  LoopbackWorld world(2);
  std::vector<std::string> messages(2);
  Status st = world.run([&](Comm &comm) -> Status {
    float x[4] = {};
    std::string &out = messages[static_cast<size_t>(comm.rank())];
    out += comm.allReduce({1 - comm.rank()}, x, 1).message() + "\n";
    out += comm.allReduce({0, 1, 0}, x, 1).message() + "\n";
    out += comm.allGather({0, 5}, x, x, 1).message() + "\n";
    out += comm.send(comm.rank(), x, 1, 0).message() + "\n";
    out += comm.recv(1 - comm.rank(), x, 1, -3).message() + "\n";
    return Status::success();
  });
  ASSERT_TRUE(st.ok()) << st.message();
  EXPECT_EQ(messages[1],
            "all_reduce on rank 1 over [0]: this rank is not in the group\n"
            "all_reduce on rank 1 over [0, 1, 0]: rank 0 appears twice\n"
            "all_gather on rank 1 over [0, 5]: rank 5 is outside the world "
            "of 2\n"
            "send on rank 1 to 1 (tag 0): a rank cannot message itself\n"
            "recv on rank 1 from 0 (tag -3): negative tag\n");
}

TEST(RuntimeLoopback, MisuseFailsInsteadOfHanging) {
  LoopbackWorld world(2);
  // Members disagree on the count.
  Status st = world.run([&](Comm &comm) -> Status {
    float x[5] = {};
    return comm.allReduce({0, 1}, x, 4 + comm.rank());
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "rank 0: all_reduce on rank 0 over [0, 1]: members "
                          "disagree: rank 0 issued all_reduce of 4 f32 but "
                          "rank 1 issued all_reduce of 5 f32");
  // A member returns without joining.
  st = world.run([&](Comm &comm) -> Status {
    float x = 1;
    if (comm.rank() == 1)
      return Status::success();
    return comm.allReduce({0, 1}, &x, 1);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "rank 0: all_reduce on rank 0 over [0, 1]: rank 1 "
                          "returned without joining it");
  // A failing rank releases the peer waiting for it; its own error wins.
  st = world.run([&](Comm &comm) -> Status {
    float x = 1;
    if (comm.rank() == 1)
      return Status::error("boom");
    return comm.recv(1, &x, 1, 0);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "rank 1: boom");
  // A message of the wrong size, and one nobody receives.
  st = world.run([&](Comm &comm) -> Status {
    float x[3] = {};
    if (comm.rank() == 0)
      return comm.send(1, x, 3, 0);
    return comm.recv(0, x, 2, 0);
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "rank 1: recv on rank 1 from 0 (tag 0): expected 2 "
                          "f32, got a message of 3 f32");
  st = world.run([&](Comm &comm) -> Status {
    float x = 0;
    return comm.rank() == 0 ? comm.send(1, &x, 1, 9) : Status::success();
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "rank 0 sent 1 message(s) to rank 1 with tag 9 that nobody "
            "received");
}

} // namespace
