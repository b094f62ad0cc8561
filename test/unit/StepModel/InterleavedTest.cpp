//===- InterleavedTest.cpp - Interleaved 1F1B orders and their timing ----===//
//
// Hand-checked cases of step::interleavedStageOrder (Megatron-LM's
// interleaved 1F1B, SC'21 Fig. 4) and step::timePasses, which times any
// pipeline of virtual stages and orders its events for the lowering.
//
//===----------------------------------------------------------------------===//
#include "passes/StepModel/OneFOneB.h"

#include <gtest/gtest.h>

#include <vector>

using namespace plexus::step;

namespace {

VirtualPass F(int64_t chunk, int64_t mb) { return {chunk, mb, false}; }
VirtualPass B(int64_t chunk, int64_t mb) { return {chunk, mb, true}; }

std::vector<std::vector<VirtualPass>> orders(int64_t p, int64_t v, int64_t m) {
  std::vector<std::vector<VirtualPass>> out(static_cast<size_t>(p));
  for (int64_t s = 0; s < p; ++s)
    EXPECT_EQ(interleavedStageOrder(p, s, v, m, out[static_cast<size_t>(s)]),
              "");
  return out;
}

// SC'21 Fig. 4: 4 stages, 2 chunks each, 8 micro-batches. Device 1 warms
// up with (4 - 0 - 1) * 2 + (2 - 1) * 4 = 10 forwards: micro-batches 0-3
// through chunk 0, 0-3 through chunk 1, then 4 and 5 through chunk 0; the
// steady phase's backwards start with chunk 1 (the pipeline's last virtual
// stages) and take micro-batches in groups of 4.
TEST(Interleaved, FirstStageOfSc21Figure4) {
  std::vector<VirtualPass> ops;
  ASSERT_EQ(interleavedStageOrder(4, 0, 2, 8, ops), "");
  const std::vector<VirtualPass> want = {
      F(0, 0), F(0, 1), F(0, 2), F(0, 3), F(1, 0), F(1, 1), F(1, 2), F(1, 3),
      F(0, 4), F(0, 5),
      // steady: forward k = 10.., backward k = 0..
      F(0, 6), B(1, 0), F(0, 7), B(1, 1), F(1, 4), B(1, 2), F(1, 5), B(1, 3),
      F(1, 6), B(0, 0), F(1, 7), B(0, 1),
      // cool-down: backwards k = 6..15
      B(0, 2), B(0, 3), B(1, 4), B(1, 5), B(1, 6), B(1, 7), B(0, 4), B(0, 5),
      B(0, 6), B(0, 7)};
  EXPECT_EQ(ops, want);
  // The last stage warms up with (2 - 1) * 4 = 4 forwards.
  ASSERT_EQ(interleavedStageOrder(4, 3, 2, 8, ops), "");
  EXPECT_EQ(ops[4], F(1, 0));
  EXPECT_EQ(ops[5], B(1, 0));
}

// Every pass of every micro-batch and chunk, once each, on every stage.
TEST(Interleaved, EveryPassOnce) {
  for (int64_t p = 2; p <= 5; ++p)
    for (int64_t v = 1; v <= 3; ++v)
      for (int64_t m = p; m <= 3 * p; m += p) {
        auto all = orders(p, v, m);
        for (const auto &ops : all) {
          ASSERT_EQ(static_cast<int64_t>(ops.size()), 2 * m * v);
          std::vector<int> seen(static_cast<size_t>(2 * m * v), 0);
          for (const VirtualPass &x : ops)
            ++seen[static_cast<size_t>((x.chunk * m + x.position) * 2 +
                                       x.backward)];
          for (int c : seen)
            EXPECT_EQ(c, 1);
        }
      }
}

// With every virtual stage taking f forward and b backward, the pipeline
// runs m * v * (f + b) on each stage plus a bubble of (p - 1) * (f + b):
// Megatron's (p - 1) * (t_f + t_b) / v with t_f = v * f, t_b = v * b, the
// stage's whole forward and backward. p = 4, v = 2, m = 8, f = 1, b = 2:
// 8 * 2 * 3 + 3 * 3 = 57 (plain 1F1B over the same stages: (8 + 3) * 6 =
// 66).
TEST(Interleaved, MakespanIsTheClosedForm) {
  auto unit = [](int64_t, int64_t, bool backward) {
    return backward ? 2.0 : 1.0;
  };
  PassTiming t;
  ASSERT_EQ(timePasses(4, 2, 8, orders(4, 2, 8), unit, t), "");
  EXPECT_DOUBLE_EQ(t.makespan, 57.0);
  for (int64_t p = 2; p <= 6; ++p)
    for (int64_t v = 1; v <= 4; ++v)
      for (int64_t m = p; m <= 4 * p; m += p) {
        ASSERT_EQ(timePasses(p, v, m, orders(p, v, m), unit, t), "");
        EXPECT_DOUBLE_EQ(t.makespan,
                         static_cast<double>(m * v * 3 + (p - 1) * 3))
            << p << " stages, " << v << " chunks, " << m << " micro-batches";
      }
}

// A message's time delays its consumer: two stages, one chunk, one
// micro-batch, f = 1 and b = 2 everywhere, messages 0.5 each way. F0 ends
// at 1, F1 starts at 1.5 and ends at 2.5, B1 runs 2.5-4.5, B0 starts at 5
// and ends at 7 (without messages: 6).
TEST(Interleaved, MessagesDelayTheirConsumers) {
  auto unit = [](int64_t, int64_t, bool backward) {
    return backward ? 2.0 : 1.0;
  };
  auto half = [](int64_t, int64_t, bool) { return 0.5; };
  const std::vector<std::vector<VirtualPass>> plain = {{F(0, 0), B(0, 0)},
                                                       {F(0, 0), B(0, 0)}};
  PassTiming t;
  ASSERT_EQ(timePasses(2, 1, 1, plain, unit, t), "");
  EXPECT_DOUBLE_EQ(t.makespan, 6.0);
  ASSERT_EQ(timePasses(2, 1, 1, plain, unit, t, half), "");
  EXPECT_DOUBLE_EQ(t.makespan, 7.0);
  EXPECT_DOUBLE_EQ(t.start[1][0], 1.5);
  EXPECT_DOUBLE_EQ(t.start[0][1], 5.0);
}

// The event order puts every pass's input before it: a forward after the
// forward of the virtual stage before, a backward after its own forward
// and the backward of the virtual stage after, and each stage's passes in
// its order.
TEST(Interleaved, EventOrderKeepsDependencies) {
  const int64_t p = 3, v = 2, m = 6;
  auto all = orders(p, v, m);
  // Uneven stages, so ties and waits both happen.
  auto seconds = [](int64_t j, int64_t, bool backward) {
    return (backward ? 2.0 : 1.0) * (j == 4 ? 1.5 : 1.0);
  };
  PassTiming t;
  ASSERT_EQ(timePasses(p, v, m, all, seconds, t), "");
  std::vector<int64_t> endOf(static_cast<size_t>(p * v * m * 2), -1);
  std::vector<int64_t> startOf(endOf.size(), -1);
  auto key = [&](int64_t j, int64_t mb, bool backward) {
    return static_cast<size_t>((j * m + mb) * 2 + backward);
  };
  for (int64_t s = 0; s < p; ++s) {
    const auto &ops = all[static_cast<size_t>(s)];
    for (size_t i = 0; i < ops.size(); ++i) {
      const int64_t j = ops[i].chunk * p + s;
      endOf[key(j, ops[i].position, ops[i].backward)] =
          t.endRank[static_cast<size_t>(s)][i];
      startOf[key(j, ops[i].position, ops[i].backward)] =
          t.startRank[static_cast<size_t>(s)][i];
      EXPECT_LT(t.startRank[static_cast<size_t>(s)][i],
                t.endRank[static_cast<size_t>(s)][i]);
      if (i > 0) {
        EXPECT_LT(t.endRank[static_cast<size_t>(s)][i - 1],
                  t.startRank[static_cast<size_t>(s)][i]);
      }
    }
  }
  for (int64_t j = 0; j < p * v; ++j)
    for (int64_t mb = 0; mb < m; ++mb) {
      if (j > 0) {
        EXPECT_LT(endOf[key(j - 1, mb, false)], startOf[key(j, mb, false)]);
      }
      EXPECT_LT(endOf[key(j, mb, false)], startOf[key(j, mb, true)]);
      if (j + 1 < p * v) {
        EXPECT_LT(endOf[key(j + 1, mb, true)], startOf[key(j, mb, true)]);
      }
    }
}

TEST(Interleaved, BadShapesAndOrdersAreErrors) {
  std::vector<VirtualPass> ops;
  EXPECT_NE(interleavedStageOrder(1, 0, 2, 4, ops), "");
  EXPECT_NE(interleavedStageOrder(4, 4, 2, 8, ops), "");
  EXPECT_NE(interleavedStageOrder(4, 0, 0, 8, ops), "");
  const std::string odd = interleavedStageOrder(4, 0, 2, 6, ops);
  EXPECT_NE(odd.find("6 is not a positive multiple of 4"), std::string::npos)
      << odd;
  EXPECT_TRUE(ops.empty());
  // A backward before the forward it needs never starts.
  auto unit = [](int64_t, int64_t, bool) { return 1.0; };
  PassTiming t;
  const std::string stuck =
      timePasses(2, 1, 1, {{B(0, 0), F(0, 0)}, {F(0, 0), B(0, 0)}}, unit, t);
  EXPECT_NE(stuck.find("waits forever"), std::string::npos) << stuck;
  EXPECT_NE(timePasses(2, 1, 1,
                       {{F(0, 0), F(0, 0), B(0, 0)}, {F(0, 0), B(0, 0)}}, unit,
                       t),
            "");
  EXPECT_NE(timePasses(2, 1, 1, {{F(1, 0)}, {}}, unit, t), "");
  auto negative = [](int64_t, int64_t, bool) { return -1.0; };
  EXPECT_NE(timePasses(2, 1, 1, {{F(0, 0), B(0, 0)}, {F(0, 0), B(0, 0)}},
                       negative, t),
            "");
}

} // namespace
