//===- SliceOrderTest.cpp - The order of a split sequence's slices --------===//
//
// checkSliceOrder on hand-written programs: the chunked schedule a split
// sequence runs (slices forward 0, 1, 2, then backward 2, 1, 0) passes; each
// rule, broken once, is reported on the op at fault with the op it
// conflicts with.
//
//===----------------------------------------------------------------------===//
#include "passes/Simulate/SliceOrder.h"

#include <gtest/gtest.h>

using namespace plexus::sim;

namespace {

/// A compute op over layers [begin, end) of sequences `seqs`, slices
/// `slices` (empty: whole sequences).
Op pass(ComputeKind kind, std::vector<int64_t> seqs,
        std::vector<int64_t> slices, int64_t begin = 0, int64_t end = 8) {
  Op op = Op::compute(toString(kind), kind, 1.0);
  op.layerBegin = begin;
  op.layerEnd = end;
  op.seqs = std::move(seqs);
  op.slices = std::move(slices);
  return op;
}

Op fwd(std::vector<int64_t> seqs, std::vector<int64_t> slices,
       int64_t begin = 0, int64_t end = 8) {
  return pass(ComputeKind::Fwd, std::move(seqs), std::move(slices), begin, end);
}
Op bwd(std::vector<int64_t> seqs, std::vector<int64_t> slices,
       int64_t begin = 0, int64_t end = 8) {
  return pass(ComputeKind::Bwd, std::move(seqs), std::move(slices), begin, end);
}
Op rec(std::vector<int64_t> seqs, std::vector<int64_t> slices,
       int64_t begin = 0, int64_t end = 8) {
  return pass(ComputeKind::Recompute, std::move(seqs), std::move(slices), begin,
              end);
}

Program program(std::vector<Op> ops) {
  Program p;
  p.ops = std::move(ops);
  return p;
}

} // namespace

TEST(SliceOrder, AChunkedScheduleIsInOrder) {
  // Two layer ranges (two ops per pass), sequence 4 in three slices,
  // sequence 7 unsplit alongside (slice 0); some recomputes; the
  // all-reduce between passes does not take part.
  Program p = program({
      fwd({4}, {0}, 0, 4),
      fwd({4}, {0}, 4, 8),
      fwd({4, 7}, {1, 0}, 0, 4),
      fwd({4, 7}, {1, 0}, 4, 8),
      Op::collective(CommKind::AllReduce, GroupKind::Dp, "dp", {0, 1}, 64),
      fwd({4}, {2}, 0, 4),
      fwd({4}, {2}, 4, 8),
      rec({4}, {2}, 4, 8),
      bwd({4}, {2}, 4, 8),
      rec({4}, {2}, 0, 4),
      bwd({4}, {2}, 0, 4),
      rec({4, 7}, {1, 0}, 4, 8),
      bwd({4, 7}, {1, 0}, 4, 8),
      bwd({4, 7}, {1, 0}, 0, 4),
      bwd({4}, {0}, 4, 8),
      bwd({4}, {0}, 0, 4),
  });
  EXPECT_FALSE(checkSliceOrder(p).has_value());
}

TEST(SliceOrder, OpsWithoutSlicesDoNotTakePart) {
  // Unsplit sequences may go in any order: there is nothing to check.
  Program p = program({bwd({4}, {}), fwd({4}, {}), fwd({4}, {})});
  EXPECT_FALSE(checkSliceOrder(p).has_value());
}

TEST(SliceOrder, ForwardOutOfOrder) {
  Program p = program({fwd({4}, {0}), fwd({4}, {2}), fwd({4}, {1})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 2u);
  EXPECT_EQ(v->other, 1u);
  EXPECT_EQ(v->message,
            "runs the forward of slice 1 of sequence 4 (layers [0, 8)) after "
            "slice 2; a sequence's slices go forward in order");
  EXPECT_EQ(v->note, "slice 2 of sequence 4 went forward here");
}

TEST(SliceOrder, ForwardOfTheSameSliceTwice) {
  Program p = program({fwd({3, 4}, {0, 1}), fwd({4}, {1})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 1u);
  EXPECT_EQ(v->other, 0u);
  EXPECT_EQ(v->message,
            "runs the forward of slice 1 of sequence 4 (layers [0, 8)) a "
            "second time; a sequence's slices go forward in order");
}

TEST(SliceOrder, EachSequenceAndLayerRangeIsItsOwnOrder) {
  // Slice 0 of layers [4, 8) after slice 1 of layers [0, 4) is fine, and so
  // is sequence 5's slice 0 after sequence 4's slice 1.
  Program p =
      program({fwd({4}, {0}, 0, 4), fwd({4}, {1}, 0, 4), fwd({4}, {0}, 4, 8),
               fwd({5}, {0}, 0, 4), fwd({4}, {1}, 4, 8)});
  EXPECT_FALSE(checkSliceOrder(p).has_value());
  // But a layer range is compared as a whole: [0, 4) is not [0, 8).
  p.ops.push_back(fwd({4}, {0}, 0, 4));
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 5u);
  EXPECT_EQ(v->other, 1u);
  EXPECT_EQ(v->message,
            "runs the forward of slice 0 of sequence 4 (layers [0, 4)) after "
            "slice 1; a sequence's slices go forward in order");
}

TEST(SliceOrder, BackwardInIncreasingOrder) {
  Program p =
      program({fwd({4}, {0}), fwd({4}, {1}), bwd({4}, {0}), bwd({4}, {1})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 3u);
  EXPECT_EQ(v->other, 2u);
  EXPECT_EQ(v->message,
            "runs the backward of slice 1 of sequence 4 (layers [0, 8)) after "
            "slice 0; a sequence's slices go backward in reverse order");
  EXPECT_EQ(v->note, "slice 0 of sequence 4 went backward here");
}

TEST(SliceOrder, RecomputeInIncreasingOrder) {
  // The backward passes are in order; the recomputes are not.
  Program p = program({fwd({4}, {0}), fwd({4}, {1}), rec({4}, {0}),
                       bwd({4}, {1}), rec({4}, {1}), bwd({4}, {0})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 4u);
  EXPECT_EQ(v->other, 2u);
  EXPECT_EQ(v->message,
            "runs the recompute of slice 1 of sequence 4 (layers [0, 8)) "
            "after slice 0; a sequence's slices are recomputed in reverse "
            "order");
  EXPECT_EQ(v->note, "slice 0 of sequence 4 was recomputed here");
}

TEST(SliceOrder, BackwardBeforeItsForward) {
  // Slice 1's backward comes before slice 1's forward: both orders hold
  // on their own, the pair does not.
  Program p =
      program({fwd({4}, {0}), bwd({4}, {1}), fwd({4}, {1}), bwd({4}, {0})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 1u);
  EXPECT_EQ(v->other, 2u);
  EXPECT_EQ(v->message,
            "runs the backward of slice 1 of sequence 4 (layers [0, 8)) "
            "before its forward; a slice goes backward after its forward");
  EXPECT_EQ(v->note, "the forward of slice 1 of sequence 4 runs here");
}

TEST(SliceOrder, BackwardOfASliceNeverRunForward) {
  Program p = program({fwd({4}, {0}), bwd({4}, {1}), bwd({4}, {0})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 1u);
  EXPECT_EQ(v->other, 0u);
  EXPECT_EQ(v->message,
            "runs the backward of slice 1 of sequence 4 (layers [0, 8)) but "
            "never its forward, though it runs other slices of the sequence "
            "forward; a slice goes backward after its forward");
  EXPECT_EQ(v->note,
            "the first forward of sequence 4 (layers [0, 8)) on this rank");
}

TEST(SliceOrder, ABackwardOnlyRankIsNotCheckedAgainstForwards) {
  // This rank runs no forward of sequence 4 over layers [0, 8) (its
  // forward is over another range): only the backward order applies.
  Program p = program({fwd({4}, {0}, 0, 4), bwd({4}, {1}), bwd({4}, {0})});
  EXPECT_FALSE(checkSliceOrder(p).has_value());
}

TEST(SliceOrder, TheFirstViolationInProgramOrderIsReported) {
  // Op 2 breaks the forward order of sequence 5 before op 3 breaks the
  // backward order of sequence 4; within op 2, sequence 5 is listed first.
  Program p = program(
      {fwd({4, 5}, {0, 1}), bwd({4}, {0}), fwd({5, 4}, {0, 0}), bwd({4}, {1})});
  std::optional<SliceOrderViolation> v = checkSliceOrder(p);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->op, 2u);
  EXPECT_EQ(v->other, 0u);
  EXPECT_EQ(v->message,
            "runs the forward of slice 0 of sequence 5 (layers [0, 8)) after "
            "slice 1; a sequence's slices go forward in order");
}
