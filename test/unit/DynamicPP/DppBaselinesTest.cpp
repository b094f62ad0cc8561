//===- DppBaselinesTest.cpp - The baselines of the DPP planner ------------===//
//
// The two competitors the reference measures DPP against, planned by the
// same planner (DppOptions::chunkingMode): token-level slicing of equal
// tokens with fixed-length packing (Seq1F1B-like, the ablation "w/o wbc")
// and batch-level packing of whole sequences (DAPPLE-like). Hand-checked
// chunkings first, then whole plans: valid, the searched K and its slice
// length, packed plans with K = 1 only, and the error when the longest
// sequence cannot be held unsplit.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/DynamicPp.h"

#include "DppTestModels.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace plexus;
using namespace plexus::dpp;

namespace {

using Slices = std::vector<std::pair<int64_t, int64_t>>;
using Pieces = std::vector<std::pair<int64_t, int64_t>>;

/// (sequence, tokens) of each piece of a chunk.
Pieces piecesOf(const Chunk &c) {
  Pieces out;
  for (const SequencePiece &p : c.pieces)
    out.emplace_back(p.sequence, p.tokens());
  return out;
}

Chunking even(const std::vector<int64_t> &lengths, int64_t slices) {
  Result<Chunking> r = chunkEvenTokens(handModel(1.0, 1.0), lengths, slices);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : Chunking{};
}

DppOptions
withMode(ChunkingMode mode,
         ckpt::CheckpointStrategy s = ckpt::CheckpointStrategy::Adaptive) {
  DppOptions o;
  o.chunkingMode = mode;
  o.checkpointing = s;
  return o;
}

} // namespace

TEST(EvenTokens, SliceLengthAndSlices) {
  EXPECT_EQ(evenSliceTokens(10, 1), 10);
  EXPECT_EQ(evenSliceTokens(10, 3), 4);
  EXPECT_EQ(evenSliceTokens(10, 10), 1);
  EXPECT_EQ(evenSliceTokens(0, 3), 0);
  // ceil(10 / 4) = 3 slices of 4, 3, 3 tokens: the longer ones first.
  EXPECT_EQ(evenSlices(10, 4), (Slices{{0, 4}, {4, 7}, {7, 10}}));
  EXPECT_EQ(evenSlices(10, 3), (Slices{{0, 3}, {3, 6}, {6, 8}, {8, 10}}));
  EXPECT_EQ(evenSlices(10, 5), (Slices{{0, 5}, {5, 10}}));
  EXPECT_EQ(evenSlices(5, 5), (Slices{{0, 5}}));
  EXPECT_EQ(evenSlices(3, 5), (Slices{{0, 3}}));
  EXPECT_TRUE(evenSlices(0, 5).empty());
}

TEST(EvenTokens, SlicesOfWholeGranules) {
  // T rounds up to a multiple of the granule.
  EXPECT_EQ(evenSliceTokens(10, 3, 2), 4);
  EXPECT_EQ(evenSliceTokens(10, 4, 2), 4); // ceil(10 / 4) = 3 -> 4
  EXPECT_EQ(evenSliceTokens(10, 4, 4), 4);
  EXPECT_EQ(evenSliceTokens(1000, 3, 4), 336); // 334 -> 336
  EXPECT_EQ(evenSliceTokens(1001, 4, 4), 252); // 251 -> 252
  EXPECT_EQ(evenSliceTokens(10, 3, 0), 0);
  // Granule 2, T = 4: 5 granules over 3 slices, the longer ones first.
  EXPECT_EQ(evenSlices(10, 4, 2), (Slices{{0, 4}, {4, 8}, {8, 10}}));
  // Granule 2, T = 6: 12 tokens in two slices of 3 granules.
  EXPECT_EQ(evenSlices(12, 5, 2), (Slices{{0, 6}, {6, 12}}));
  // Granule 4: 10 tokens are 2 granules and 2 tokens over 3 slices; the
  // last slice takes the 2 (granule 1 would cut 4, 3, 3).
  EXPECT_EQ(evenSlices(10, 4, 4), (Slices{{0, 4}, {4, 8}, {8, 10}}));
  // T = 3 rounds up to 4 first.
  EXPECT_EQ(evenSlices(10, 3, 4), (Slices{{0, 4}, {4, 8}, {8, 10}}));
  // 1000 tokens, T = 336: 250 granules as 84, 83, 83 (granule 1 with
  // T = 334: 334, 333, 333).
  EXPECT_EQ(evenSlices(1000, 336, 4),
            (Slices{{0, 336}, {336, 668}, {668, 1000}}));
  // 1003 tokens: the last slice also takes the 3 left over.
  EXPECT_EQ(evenSlices(1003, 336, 4),
            (Slices{{0, 336}, {336, 668}, {668, 1003}}));
  // 13 tokens, T = 4: 3 granules and a last slice of 1 token.
  EXPECT_EQ(evenSlices(13, 4, 4), (Slices{{0, 4}, {4, 8}, {8, 12}, {12, 13}}));
  EXPECT_EQ(evenSlices(4, 4, 4), (Slices{{0, 4}}));
}

TEST(EvenTokens, GranuleOneIsTheDefault) {
  for (int64_t longest : {1, 7, 10, 1000, 1003})
    for (int64_t k : {1, 2, 3, 4, 7}) {
      EXPECT_EQ(evenSliceTokens(longest, k, 1), evenSliceTokens(longest, k));
      for (int64_t len : {1, 5, 10, 999, 1003})
        EXPECT_EQ(evenSlices(len, evenSliceTokens(longest, k), 1),
                  evenSlices(len, evenSliceTokens(longest, k)));
    }
}

TEST(EvenTokens, ChunkingOnTheGranule) {
  // K = 3 on 1000 tokens with granule 4: T = 336, the longest cut at 336
  // and 668; a 500-token sequence in 252 + 248. The 100 tokens fit
  // neither the longest's tail (332 + 100 > 336) nor the 500's
  // (248 + 100 > 336): a bin of their own.
  DppModel m = handModel(1.0, 1.0);
  m.sliceGranule = 4;
  const std::vector<int64_t> lengths = {1000, 500, 100};
  Result<Chunking> c = chunkEvenTokens(m, lengths, 3);
  ASSERT_TRUE(c) << c.error;
  EXPECT_EQ(c->mesh.tokenTarget, 336);
  EXPECT_EQ(c->mesh.boundaries, (std::vector<int64_t>{336, 668}));
  EXPECT_EQ(chunkingViolation(c->chunks, lengths), "");
  ASSERT_EQ(c->chunks.size(), 6u);
  EXPECT_EQ(piecesOf(c->chunks[0]), (Pieces{{0, 336}}));
  EXPECT_EQ(piecesOf(c->chunks[1]), (Pieces{{0, 332}}));
  EXPECT_EQ(piecesOf(c->chunks[2]), (Pieces{{0, 332}}));
  EXPECT_EQ(piecesOf(c->chunks[3]), (Pieces{{1, 252}}));
  EXPECT_EQ(piecesOf(c->chunks[4]), (Pieces{{1, 248}}));
  EXPECT_EQ(piecesOf(c->chunks[5]), (Pieces{{2, 100}}));
}

TEST(EvenTokens, HandCheckedChunking) {
  // K = 2 on a 10-token longest: T = 5. Sequence 0 is cut 5 + 5, sequence
  // 1 (7 tokens) 4 + 3. First fit decreasing over the bins in creation
  // order (the two tails, then new ones): 3 fits neither tail (5 + 3,
  // 3 + 3 > 5) and opens a bin; 2 fills sequence 1's tail to 5; 1 joins
  // the 3.
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  const Chunking c = even(lengths, 2);
  EXPECT_EQ(c.mesh.tokenTarget, 5);
  EXPECT_EQ(c.mesh.boundaries, (std::vector<int64_t>{5}));
  EXPECT_EQ(c.splitSequences, 2);
  ASSERT_EQ(c.chunks.size(), 5u);
  EXPECT_EQ(c.chunks[0].kind, ChunkKind::Split);
  EXPECT_EQ(c.chunks[0].context(), 0);
  EXPECT_EQ(piecesOf(c.chunks[0]), (Pieces{{0, 5}}));
  EXPECT_EQ(c.chunks[1].kind, ChunkKind::Split);
  EXPECT_TRUE(c.chunks[1].tail);
  EXPECT_EQ(c.chunks[1].context(), 5);
  EXPECT_EQ(piecesOf(c.chunks[2]), (Pieces{{1, 4}}));
  EXPECT_FALSE(c.chunks[2].tail);
  EXPECT_EQ(c.chunks[3].kind, ChunkKind::Hybrid);
  EXPECT_TRUE(c.chunks[3].tail);
  EXPECT_EQ(c.chunks[3].context(), 4);
  EXPECT_EQ(piecesOf(c.chunks[3]), (Pieces{{1, 3}, {3, 2}}));
  EXPECT_EQ(c.chunks[4].kind, ChunkKind::Packed);
  EXPECT_EQ(piecesOf(c.chunks[4]), (Pieces{{2, 3}, {4, 1}}));
  // Every chunk within T tokens; the chunking is valid.
  for (const Chunk &ch : c.chunks)
    EXPECT_LE(ch.tokens(), 5);
  EXPECT_EQ(chunkingViolation(c.chunks, lengths), "");
  // The time target is the longest's costliest slice: its second, which
  // attends to the first (q ((5 + 5)^2 - 5^2) + l 5 = 75 + 5).
  EXPECT_DOUBLE_EQ(c.mesh.timeTargetMs, 80.0);
}

TEST(EvenTokens, EqualTokensNotEqualTime) {
  // Pure quadratic: an even cut of 1000 tokens into 4 gives 250-token
  // slices whose cost grows with their context (62500, 187500, ...),
  // where workload-balanced slices all cost the same.
  const DppModel m = handModel(1.0, 0.0);
  Result<Chunking> c = chunkEvenTokens(m, {1000}, 4);
  ASSERT_TRUE(c) << c.error;
  ASSERT_EQ(c->chunks.size(), 4u);
  double previous = 0;
  for (const Chunk &ch : c->chunks) {
    EXPECT_EQ(ch.tokens(), 250);
    EXPECT_GT(chunkStageMs(m, ch), previous);
    previous = chunkStageMs(m, ch);
  }
  EXPECT_DOUBLE_EQ(chunkStageMs(m, c->chunks[0]), 62500.0);
  EXPECT_DOUBLE_EQ(chunkStageMs(m, c->chunks[3]), 1000000.0 - 562500.0);
  EXPECT_DOUBLE_EQ(c->mesh.timeTargetMs, 437500.0);
}

TEST(EvenTokens, NeverTwoTailsInAChunk) {
  // Four sequences of 6 tokens with K = 2 (T = 3): four tails with room
  // for nothing; the short ones go into new bins only.
  const std::vector<int64_t> lengths = {6, 6, 5, 5, 1, 1, 1};
  const Chunking c = even(lengths, 2);
  EXPECT_EQ(chunkingViolation(c.chunks, lengths), "");
  for (const Chunk &ch : c.chunks) {
    int64_t partial = 0;
    for (const SequencePiece &p : ch.pieces)
      partial += p.tokens() != lengths[static_cast<size_t>(p.sequence)];
    EXPECT_LE(partial, 1);
    EXPECT_LE(ch.tokens(), 3);
  }
}

TEST(EvenTokens, OnAWikipediaBatch) {
  const DppModel m = gpt13b(80);
  const std::vector<int64_t> lengths = wikipediaLengths(6, 512, 98304);
  for (int64_t k : {1, 3, 8, 16}) {
    Result<Chunking> c = chunkEvenTokens(m, lengths, k);
    ASSERT_TRUE(c) << c.error;
    EXPECT_EQ(chunkingViolation(c->chunks, lengths), "");
    const int64_t t = evenSliceTokens(c->mesh.longest, k);
    for (const Chunk &ch : c->chunks) {
      EXPECT_LE(ch.tokens(), t);
      if (ch.hasSplitSlice()) {
        // Slices of one sequence differ by at most one token.
        const int64_t len = lengths[static_cast<size_t>(ch.splitSequence())];
        const int64_t count = (len + t - 1) / t;
        EXPECT_GE(ch.splitTokens(), len / count);
        EXPECT_LE(ch.splitTokens(), len / count + 1);
      }
    }
  }
}

TEST(PackedChunking, WholeSequencesFirstFitDecreasing) {
  // Capacity 10 (the longest): 10 | 7 + 3 | 2 + 1.
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  Result<Chunking> c = packSequences(handModel(1.0, 1.0), lengths);
  ASSERT_TRUE(c) << c.error;
  ASSERT_EQ(c->chunks.size(), 3u);
  EXPECT_EQ(piecesOf(c->chunks[0]), (Pieces{{0, 10}}));
  EXPECT_EQ(piecesOf(c->chunks[1]), (Pieces{{1, 7}, {2, 3}}));
  EXPECT_EQ(piecesOf(c->chunks[2]), (Pieces{{3, 2}, {4, 1}}));
  for (const Chunk &ch : c->chunks)
    EXPECT_EQ(ch.kind, ChunkKind::Packed);
  EXPECT_EQ(c->splitSequences, 0);
  EXPECT_EQ(chunkingViolation(c->chunks, lengths), "");
}

TEST(ChunkBatch, DispatchesAndRejects) {
  const DppModel m = handModel(1.0, 1.0);
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  EXPECT_EQ(chunkBatch(m, lengths, 2, ChunkingMode::EvenTokens)->chunks.size(),
            5u);
  EXPECT_EQ(chunkBatch(m, lengths, 1, ChunkingMode::Packed)->chunks.size(), 3u);
  EXPECT_EQ(
      chunkBatch(m, lengths, 2, ChunkingMode::WorkloadBalanced)->mesh.slices,
      2);
  EXPECT_FALSE(chunkBatch(m, lengths, 2, ChunkingMode::Packed));
  EXPECT_FALSE(chunkEvenTokens(m, {}, 1));
  EXPECT_FALSE(chunkEvenTokens(m, {4, 0}, 1));
  EXPECT_FALSE(chunkEvenTokens(m, {3}, 4));
  EXPECT_FALSE(chunkEvenTokens(m, {3}, 0));
  EXPECT_STREQ(chunkingModeName(ChunkingMode::EvenTokens), "even-tokens");
  EXPECT_STREQ(chunkingModeName(ChunkingMode::Packed), "packed");
  EXPECT_STREQ(chunkingModeName(ChunkingMode::WorkloadBalanced),
               "workload-balanced");
}

TEST(DppBaselines, EvenTokensPlanSearchesTheSliceLength) {
  // On the hand model K = 5 and 6 both give T = 2 for the 10-token
  // sequence: K = 6 reuses K = 5's outcome.
  const DppModel m = handModel(1.0, 1.0, 3.0);
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  DppOptions o = withMode(ChunkingMode::EvenTokens);
  o.maxSlices = 6;
  o.pruneByBound = false;
  Result<DppPlan> p = planDynamicPipeline(m, lengths, o);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  ASSERT_EQ(p->trials.size(), 6u);
  EXPECT_EQ(p->trials[5].sameChunksAs, 5);
  EXPECT_EQ(p->trials[5].iterationMs, p->trials[4].iterationMs);
  for (size_t i = 0; i < 5; ++i)
    EXPECT_EQ(p->trials[i].sameChunksAs, 0);
  // The plan's chunks are the even chunking of its K.
  Result<Chunking> c = chunkEvenTokens(m, lengths, p->slices);
  ASSERT_TRUE(c);
  ASSERT_EQ(c->chunks.size(), p->chunking.chunks.size());
  for (size_t i = 0; i < c->chunks.size(); ++i)
    EXPECT_EQ(piecesOf(c->chunks[i]), piecesOf(p->chunking.chunks[i]));
  EXPECT_EQ(p->chunking.mesh.tokenTarget, evenSliceTokens(10, p->slices));
  // planForSlices plans one K the same way.
  Result<DppPlan> two = planForSlices(m, lengths, 2, o);
  ASSERT_TRUE(two) << two.error;
  EXPECT_EQ(two->chunking.chunks.size(), 5u);
  EXPECT_EQ(dppPlanViolation(m, *two, lengths), "");
}

TEST(DppBaselines, EvenTokensSearchesTheGranulesSliceLength) {
  // Granule 4 on a 16-token longest: T = 16, 8, 8 (6 rounded up), 4 for
  // K = 1..4, so K = 3 reuses K = 2's outcome.
  DppModel m = handModel(1.0, 1.0, 3.0);
  m.sliceGranule = 4;
  const std::vector<int64_t> lengths = {16, 12, 6, 4, 2};
  DppOptions o = withMode(ChunkingMode::EvenTokens);
  o.maxSlices = 4;
  o.pruneByBound = false;
  Result<DppPlan> p = planDynamicPipeline(m, lengths, o);
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  ASSERT_EQ(p->trials.size(), 4u);
  EXPECT_EQ(p->trials[0].sameChunksAs, 0);
  EXPECT_EQ(p->trials[1].sameChunksAs, 0);
  EXPECT_EQ(p->trials[2].sameChunksAs, 2);
  EXPECT_EQ(p->trials[3].sameChunksAs, 0);
  EXPECT_EQ(p->chunking.mesh.tokenTarget, evenSliceTokens(16, p->slices, 4));
  // Every slice starts on a multiple of 4 and ends on one or at its
  // sequence's end (the 6 tokens are cut 4 + 2 when T = 4).
  for (const Chunk &c : p->chunking.chunks) {
    if (!c.hasSplitSlice())
      continue;
    const SequencePiece &s = c.pieces.front();
    EXPECT_EQ(s.begin % 4, 0);
    EXPECT_TRUE(s.end % 4 == 0 ||
                s.end == lengths[static_cast<size_t>(s.sequence)]);
  }
}

TEST(DppBaselines, PackedPlansOneSliceOnly) {
  const DppModel m = handModel(1.0, 1.0, 3.0);
  const std::vector<int64_t> lengths = {10, 7, 3, 2, 1};
  Result<DppPlan> p =
      planDynamicPipeline(m, lengths, withMode(ChunkingMode::Packed));
  ASSERT_TRUE(p) << p.error;
  EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  EXPECT_EQ(p->slices, 1);
  ASSERT_EQ(p->trials.size(), 1u);
  EXPECT_EQ(p->chunking.chunks.size(), 3u);
  // One chunk-count class: one pipeline.
  EXPECT_EQ(p->pipelines.size(), 1u);
  for (const Chunk &c : p->chunking.chunks)
    EXPECT_EQ(c.kind, ChunkKind::Packed);
  EXPECT_FALSE(planForSlices(m, lengths, 2, withMode(ChunkingMode::Packed)));
}

TEST(DppBaselines, PackedErrorNamesTheSequenceAndTheMegabytes) {
  // Half a GB beside the model states: a 64K sequence held whole keeps
  // 800 MB of layer inputs even fully checkpointed.
  const DppModel full = gpt13b(80);
  const DppModel m = gpt13b(full.modelStatesMB[0] / 1024 + 0.5);
  const std::vector<int64_t> lengths = {1024, 65536, 2048};
  Result<DppPlan> r = planDynamicPipeline(
      m, lengths,
      withMode(ChunkingMode::Packed, ckpt::CheckpointStrategy::Uniform));
  ASSERT_FALSE(r);
  ckpt::ChunkFootprint f;
  f.tokens = 65536;
  char need[32], free[32];
  std::snprintf(need, sizeof need, "%.1f MB",
                ckpt::fullyCheckpointedMB(m.activation, 0, f));
  std::snprintf(free, sizeof free, "%.1f MB", m.memoryMB - m.modelStatesMB[0]);
  EXPECT_NE(r.error.find("sequence 1 (65536 tokens)"), std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find(need), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(free), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("every layer checkpointed"), std::string::npos);
  // Without checkpointing the message says so.
  Result<DppPlan> none = planDynamicPipeline(
      m, lengths,
      withMode(ChunkingMode::Packed, ckpt::CheckpointStrategy::None));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error.find("without checkpointing"), std::string::npos);
  // planForSlices checks the same.
  EXPECT_FALSE(planForSlices(m, lengths, 1, withMode(ChunkingMode::Packed)));
  // With room for it alone the check passes.
  const DppModel roomy = gpt13b(full.modelStatesMB[0] / 1024 + 1);
  EXPECT_TRUE(
      planDynamicPipeline(roomy, {65536}, withMode(ChunkingMode::Packed)));
}

TEST(DppBaselines, SameMachineryOnATightWikipediaBatch) {
  // 13B at 16 GB: DPP (adaptive) against Seq1F1B-like even slicing with a
  // uniform layer count and DAPPLE-like packing; all valid, and DPP is the
  // fastest.
  const DppModel m = gpt13b(16);
  const std::vector<int64_t> lengths = wikipediaLengths(8, 256);
  Result<DppPlan> dpp = planDynamicPipeline(m, lengths);
  Result<DppPlan> seq1f1b = planDynamicPipeline(
      m, lengths,
      withMode(ChunkingMode::EvenTokens, ckpt::CheckpointStrategy::Uniform));
  Result<DppPlan> dapple = planDynamicPipeline(
      m, lengths,
      withMode(ChunkingMode::Packed, ckpt::CheckpointStrategy::Uniform));
  ASSERT_TRUE(dpp) << dpp.error;
  ASSERT_TRUE(seq1f1b) << seq1f1b.error;
  ASSERT_TRUE(dapple) << dapple.error;
  for (const DppPlan *p : {&*dpp, &*seq1f1b, &*dapple})
    EXPECT_EQ(dppPlanViolation(m, *p, lengths), "");
  EXPECT_EQ(dapple->slices, 1);
  EXPECT_LT(dpp->iterationMs, seq1f1b->iterationMs);
  EXPECT_LT(dpp->iterationMs, dapple->iterationMs);
  // Uniform checkpointing: one layer count per pipeline.
  for (const DppPipeline &pipe : seq1f1b->pipelines)
    for (const std::vector<int64_t> &row : pipe.checkpointing.layers)
      for (int64_t l : row)
        EXPECT_EQ(l, pipe.checkpointing.layers[0][0]);
}
