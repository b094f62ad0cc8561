//===- ChunkingTest.cpp - DPP's workload-balanced chunking ----------------===//
//
// The equal-time mesh (pure quadratic: K = 4, L = 1000 cuts at 500, 707,
// 866), its targets, Alg. 1's packing on tiny inputs, hybrid chunks and
// loosening, and reference flexsp_dpp.md section 4 item 11 on Wikipedia
// batches: decreasing slice lengths, never two tail slices in a chunk, and
// every token in exactly one chunk.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/Chunking.h"

#include "DppTestModels.h"

#include <gtest/gtest.h>

using namespace plexus::dpp;

namespace {

using Cuts = std::vector<int64_t>;
using Pieces = std::vector<std::pair<int64_t, int64_t>>;

Chunking chunk(const DppModel &m, const std::vector<int64_t> &lengths,
               int64_t slices, const ChunkingOptions &o = {}) {
  Result<Chunking> r = chunkSequences(m, lengths, slices, o);
  EXPECT_TRUE(r) << r.error;
  return r ? *r : Chunking{};
}

/// (sequence, tokens) of each piece of a chunk.
Pieces piecesOf(const Chunk &c) {
  Pieces out;
  for (const SequencePiece &p : c.pieces)
    out.emplace_back(p.sequence, p.tokens());
  return out;
}

} // namespace

TEST(EqualTimeBoundaries, PureQuadraticSquareRoots) {
  // Slice j of K spans [L sqrt((j-1)/K), L sqrt(j/K)): 500, 707.1, 866.03,
  // rounded to the nearest token.
  Result<Cuts> c = equalTimeBoundaries(1.0, 0.0, 1000, 4);
  ASSERT_TRUE(c) << c.error;
  EXPECT_EQ(*c, (Cuts{500, 707, 866}));
  EXPECT_EQ(*equalTimeBoundaries(3.5, 0.0, 1000, 2), (Cuts{707}));
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 1), Cuts{});
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 100, 4), (Cuts{50, 71, 87}));
}

TEST(EqualTimeBoundaries, LinearOnlyCutsEvenly) {
  EXPECT_EQ(*equalTimeBoundaries(0.0, 2.0, 1000, 4), (Cuts{250, 500, 750}));
}

TEST(EqualTimeBoundaries, WithTheLinearTermSlicesCostTheSame) {
  // Attention and linear work of the same size at s = l / q = 32K tokens.
  const double q = 1e-6, l = 32768e-6;
  const int64_t len = 131072;
  for (int64_t k : {2, 3, 5, 8, 16}) {
    Result<Cuts> cuts = equalTimeBoundaries(q, l, len, k);
    ASSERT_TRUE(cuts) << cuts.error;
    ASSERT_EQ(cuts->size(), static_cast<size_t>(k - 1));
    const double target = (q * len * len + l * len) / static_cast<double>(k);
    int64_t begin = 0, previous = len + 1;
    for (size_t j = 0; j <= cuts->size(); ++j) {
      const int64_t end = j < cuts->size() ? (*cuts)[j] : len;
      const double c = static_cast<double>(begin),
                   s = static_cast<double>(end - begin);
      const double cost = q * ((c + s) * (c + s) - c * c) + l * s;
      // Rounding moves a cut by at most half a token: at most one token's
      // marginal cost at the sequence's end.
      EXPECT_NEAR(cost, target, q * 2.0 * len + l) << "K=" << k << " j=" << j;
      // Later slices are shorter (the linear term only evens them out).
      EXPECT_LT(end - begin, previous);
      previous = end - begin;
      begin = end;
    }
  }
}

TEST(EqualTimeBoundaries, RoundingKeepsATokenPerSlice) {
  // 3 tokens in 3 slices: the exact cuts 1.73 and 2.45 both round to 2.
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 3, 3), (Cuts{1, 2}));
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 5, 5), (Cuts{1, 2, 3, 4}));
}

TEST(EqualTimeBoundaries, Errors) {
  EXPECT_FALSE(equalTimeBoundaries(1, 0, 1000, 0));
  EXPECT_FALSE(equalTimeBoundaries(1, 0, 3, 4));
  EXPECT_FALSE(equalTimeBoundaries(0, 0, 1000, 2));
  EXPECT_FALSE(equalTimeBoundaries(-1, 0, 1000, 2));
}

TEST(EqualTimeBoundaries, GranuleRoundsToItsMultiples) {
  // Pure quadratic, L = 1000, K = 2: the exact cut 707.1 lies between 704
  // and 708, nearer 708.
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 2, 4), (Cuts{708}));
  // K = 4: 500, 707.1, 866.03 -> 500, 708, 868 (866.03 / 4 = 216.5).
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 4, 4), (Cuts{500, 708, 868}));
  // Granule 8: 500 / 8 = 62.5 exactly, rounded half up to 504; 707.1 ->
  // 704 (88.4 granules), 866.03 -> 864 (108.3).
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 4, 8), (Cuts{504, 704, 864}));
  // Linear only: 250.75, 501.5, 752.25 -> 252, 500, 752.
  EXPECT_EQ(*equalTimeBoundaries(0.0, 1.0, 1003, 4, 4), (Cuts{252, 500, 752}));
  // One slice: no cut, whatever the granule.
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 1, 64), Cuts{});
}

TEST(EqualTimeBoundaries, GranuleKeepsAGranulePerSlice) {
  // 12 tokens in 3 slices of at least 4: the exact cuts 6.93 and 9.80
  // both round to 8; moved apart on multiples of 4 they are 4 and 8.
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 12, 3, 4), (Cuts{4, 8}));
  // 14 tokens: 8.08 -> 8 and 11.43 -> 12, but the final slice keeps 4
  // tokens only below the last multiple of 4 that leaves them (8).
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 14, 3, 4), (Cuts{4, 8}));
  // A length that is no multiple: the cuts are, the final slice is not.
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1003, 2, 4), (Cuts{708}));
}

TEST(EqualTimeBoundaries, GranuleOneIsTheDefault) {
  // Granule 1 rounds to the nearest token exactly as before.
  for (int64_t len : {3, 5, 100, 1000, 1003, 131072})
    for (int64_t k : {1, 2, 3, 4, 5, 8, 16}) {
      if (k > len)
        continue;
      for (auto [q, l] : {std::pair{1.0, 0.0}, std::pair{0.0, 2.0},
                          std::pair{1e-6, 32768e-6}, std::pair{3.5, 0.25}})
        EXPECT_EQ(*equalTimeBoundaries(q, l, len, k, 1),
                  *equalTimeBoundaries(q, l, len, k))
            << "L=" << len << " K=" << k;
    }
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 1000, 4, 1), (Cuts{500, 707, 866}));
  EXPECT_EQ(*equalTimeBoundaries(1.0, 0.0, 3, 3, 1), (Cuts{1, 2}));
}

TEST(EqualTimeBoundaries, GranuleCutsStayBalanced) {
  // Every cut is a multiple of the granule, and every slice costs the
  // target within a granule's marginal cost at the sequence's end.
  const double q = 1e-6, l = 32768e-6;
  for (int64_t len : {131072, 131075})
    for (int64_t g : {2, 4, 8})
      for (int64_t k : {2, 3, 5, 8, 16}) {
        Result<Cuts> cuts = equalTimeBoundaries(q, l, len, k, g);
        ASSERT_TRUE(cuts) << cuts.error;
        ASSERT_EQ(cuts->size(), static_cast<size_t>(k - 1));
        const double target =
            (q * static_cast<double>(len) * static_cast<double>(len) +
             l * static_cast<double>(len)) /
            static_cast<double>(k);
        const double granuleMs =
            static_cast<double>(g) * (q * 2.0 * static_cast<double>(len) + l);
        int64_t begin = 0;
        for (size_t j = 0; j <= cuts->size(); ++j) {
          const int64_t end = j < cuts->size() ? (*cuts)[j] : len;
          if (j < cuts->size()) {
            EXPECT_EQ(end % g, 0) << "G=" << g << " K=" << k;
          }
          const double c = static_cast<double>(begin),
                       s = static_cast<double>(end - begin);
          EXPECT_NEAR(q * ((c + s) * (c + s) - c * c) + l * s, target,
                      granuleMs)
              << "L=" << len << " G=" << g << " K=" << k << " j=" << j;
          begin = end;
        }
      }
}

TEST(EqualTimeBoundaries, GranuleErrors) {
  Result<Cuts> r = equalTimeBoundaries(1.0, 0.0, 11, 3, 4);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error, "a 11-token sequence cannot be cut into 3 slices of at "
                     "least 4 tokens");
  EXPECT_TRUE(equalTimeBoundaries(1.0, 0.0, 12, 3, 4));
  EXPECT_FALSE(equalTimeBoundaries(1.0, 0.0, 1000, 2, 0));
  EXPECT_FALSE(equalTimeBoundaries(1.0, 0.0, 1000, 2, -4));
  EXPECT_FALSE(equalTimeBoundaries(1.0, 0.0, 1000, 0, 4));
}

TEST(SplitMesh, TargetsOfThePureQuadraticMesh) {
  Result<SplitMesh> mesh = splitMesh(handModel(1.0, 0.0), 1000, 4);
  ASSERT_TRUE(mesh) << mesh.error;
  EXPECT_EQ(mesh->boundaries, (Cuts{500, 707, 866}));
  // Slice costs after rounding: 250000, 249849, 250107, 250044.
  EXPECT_DOUBLE_EQ(mesh->timeTargetMs, 250107.0);
  EXPECT_EQ(mesh->tokenTarget, 500);
  EXPECT_EQ(sliceOnMesh(*mesh, 800), (std::vector<std::pair<int64_t, int64_t>>{
                                         {0, 500}, {500, 707}, {707, 800}}));
  EXPECT_EQ(sliceOnMesh(*mesh, 500).size(), 1u);
  EXPECT_EQ(sliceOnMesh(*mesh, 501).size(), 2u);
  // The per-chunk part counts in the time target.
  EXPECT_DOUBLE_EQ(splitMesh(handModel(1.0, 0.0, 7.0), 1000, 4)->timeTargetMs,
                   250114.0);
}

TEST(SplitMesh, CutsOnTheModelsGranule) {
  DppModel m = handModel(1.0, 0.0);
  m.sliceGranule = 4;
  Result<SplitMesh> mesh = splitMesh(m, 1000, 4);
  ASSERT_TRUE(mesh) << mesh.error;
  EXPECT_EQ(mesh->boundaries, (Cuts{500, 708, 868}));
  // Slice costs: 250000, 251264, 252160, 246576.
  EXPECT_DOUBLE_EQ(mesh->timeTargetMs, 252160.0);
  EXPECT_EQ(mesh->tokenTarget, 500);
  // A shorter sequence is cut on the same multiples; only its end is not.
  EXPECT_EQ(sliceOnMesh(*mesh, 801), (std::vector<std::pair<int64_t, int64_t>>{
                                         {0, 500}, {500, 708}, {708, 801}}));
  m.sliceGranule = 0;
  EXPECT_FALSE(splitMesh(m, 1000, 4));
  m.sliceGranule = 300;
  Result<SplitMesh> tooFine = splitMesh(m, 1000, 4);
  ASSERT_FALSE(tooFine);
  EXPECT_NE(tooFine.error.find("slices of at least 300 tokens"),
            std::string::npos);
}

TEST(Chunking, GranuleAlignsEverySplit) {
  // The 13B model with 8-way SP on Wikipedia batches: every slice of a
  // split sequence starts on a multiple of 8, and ends on one or at its
  // sequence's end.
  DppModel m = gpt13b(80);
  m.sliceGranule = 8;
  const std::vector<int64_t> lengths = wikipediaLengths(3, 512);
  for (int64_t k : {2, 4, 8, 16}) {
    SCOPED_TRACE("K " + std::to_string(k));
    const Chunking c = chunk(m, lengths, k);
    EXPECT_EQ(chunkingViolation(c.chunks, lengths), "");
    EXPECT_GT(c.splitSequences, 0);
    for (int64_t cut : c.mesh.boundaries)
      EXPECT_EQ(cut % 8, 0);
    for (const Chunk &ch : c.chunks) {
      if (!ch.hasSplitSlice())
        continue;
      const SequencePiece &p = ch.pieces.front();
      EXPECT_EQ(p.begin % 8, 0);
      EXPECT_TRUE(p.end % 8 == 0 ||
                  p.end == lengths[static_cast<size_t>(p.sequence)]);
    }
  }
}

TEST(Chunking, PackingTinyInputs) {
  // K = 1, 1 ms per token: T_m = 6 tokens, T_t = 6 ms. Best fit
  // decreasing: 6, 5, 4, 3 each open a bucket; 2 joins the 4.
  const Chunking c = chunk(handModel(0.0, 1.0), {6, 5, 4, 3, 2}, 1);
  EXPECT_EQ(c.mesh.tokenTarget, 6);
  EXPECT_DOUBLE_EQ(c.mesh.timeTargetMs, 6.0);
  ASSERT_EQ(c.chunks.size(), 4u);
  EXPECT_EQ(piecesOf(c.chunks[0]), (Pieces{{0, 6}}));
  EXPECT_EQ(piecesOf(c.chunks[1]), (Pieces{{1, 5}}));
  EXPECT_EQ(piecesOf(c.chunks[2]), (Pieces{{2, 4}, {4, 2}}));
  EXPECT_EQ(piecesOf(c.chunks[3]), (Pieces{{3, 3}}));
  for (const Chunk &k : c.chunks)
    EXPECT_EQ(k.kind, ChunkKind::Packed);
  EXPECT_EQ(c.splitSequences, 0);
  EXPECT_EQ(c.loosenings, 0);
}

TEST(Chunking, TailsSeedHybridChunks) {
  // Pure quadratic, K = 4 on 1000 tokens: mesh 500, 707, 866. The 600
  // token sequence is cut at 500; its tail [500, 600) (110000 of 250107)
  // takes both short sequences.
  const Chunking c = chunk(handModel(1.0, 0.0), {1000, 600, 100, 50}, 4);
  EXPECT_EQ(c.splitSequences, 2);
  ASSERT_EQ(c.chunks.size(), 6u);
  EXPECT_EQ(c.chunks[0].kind, ChunkKind::Split);
  EXPECT_EQ(c.chunks[0].context(), 0);
  EXPECT_EQ(c.chunks[1].context(), 500);
  EXPECT_EQ(c.chunks[2].context(), 707);
  // The longest's tail has no room left: a split chunk, marked tail.
  EXPECT_EQ(c.chunks[3].kind, ChunkKind::Split);
  EXPECT_TRUE(c.chunks[3].tail);
  EXPECT_EQ(c.chunks[3].context(), 866);
  EXPECT_EQ(c.chunks[4].kind, ChunkKind::Split);
  EXPECT_FALSE(c.chunks[4].tail);
  EXPECT_EQ(c.chunks[5].kind, ChunkKind::Hybrid);
  EXPECT_TRUE(c.chunks[5].tail);
  EXPECT_EQ(c.chunks[5].context(), 500);
  EXPECT_EQ(piecesOf(c.chunks[5]), (Pieces{{1, 100}, {2, 100}, {3, 50}}));
  EXPECT_EQ(chunkingViolation(c.chunks, {1000, 600, 100, 50}), "");
}

TEST(Chunking, LoosensTheTimeTargetOrOpensABucket) {
  // The 300-token sequence fits the 1000's tail bucket in tokens
  // (134 + 300 <= 500) but not in time (250044 + 90000 > 250107).
  const std::vector<int64_t> lengths = {1000, 300};
  const Chunking loose = chunk(handModel(1.0, 0.0), lengths, 4);
  EXPECT_EQ(loose.loosenings, 1);
  EXPECT_DOUBLE_EQ(loose.timeTargetMs, 250044.0 + 90000.0);
  ASSERT_EQ(loose.chunks.size(), 4u);
  EXPECT_EQ(loose.chunks[3].kind, ChunkKind::Hybrid);
  EXPECT_EQ(piecesOf(loose.chunks[3]), (Pieces{{0, 134}, {1, 300}}));

  ChunkingOptions strict;
  strict.loosenTimeTarget = false;
  const Chunking tight = chunk(handModel(1.0, 0.0), lengths, 4, strict);
  EXPECT_EQ(tight.loosenings, 0);
  ASSERT_EQ(tight.chunks.size(), 5u);
  EXPECT_EQ(tight.chunks[3].kind, ChunkKind::Split);
  EXPECT_EQ(tight.chunks[4].kind, ChunkKind::Packed);
  for (const Chunk &c : tight.chunks)
    EXPECT_LE(chunkStageMs(handModel(1.0, 0.0), c),
              tight.mesh.timeTargetMs + 1e-9);
}

TEST(Chunking, Item11OnWikipediaBatches) {
  const DppModel m = gpt13b(80);
  for (int64_t batch : {3, 8}) {
    const std::vector<int64_t> lengths = wikipediaLengths(batch, 512);
    ASSERT_EQ(lengths.size(), 512u);
    int64_t total = 0;
    for (int64_t l : lengths)
      total += l;
    for (int64_t k : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE("batch " + std::to_string(batch) + " K " +
                   std::to_string(k));
      const Chunking c = chunk(m, lengths, k);
      EXPECT_EQ(chunkingViolation(c.chunks, lengths), "");
      int64_t tokens = 0;
      for (const Chunk &ch : c.chunks) {
        tokens += ch.tokens();
        // Never two tail slices (or any two slices) in one chunk.
        int64_t partial = 0;
        for (const SequencePiece &p : ch.pieces)
          partial += p.tokens() != lengths[static_cast<size_t>(p.sequence)];
        EXPECT_LE(partial, 1);
        EXPECT_LE(ch.tokens(), c.mesh.tokenTarget);
      }
      EXPECT_EQ(tokens, total);
      // The longest sequence's slices get shorter, and every non-tail
      // split chunk costs the time target within a token's rounding.
      const SliceCost cost = stageSliceCost(m);
      const double tokenMs =
          cost.quadraticMs * 2.0 * static_cast<double>(c.mesh.longest) +
          cost.linearMs;
      int64_t previous = c.mesh.longest + 1;
      for (const auto &[begin, end] : sliceOnMesh(c.mesh, c.mesh.longest)) {
        EXPECT_LT(end - begin, previous);
        previous = end - begin;
      }
      for (const Chunk &ch : c.chunks) {
        if (ch.kind == ChunkKind::Split && !ch.tail) {
          EXPECT_NEAR(chunkStageMs(m, ch), c.mesh.timeTargetMs, 2 * tokenMs);
        }
      }
    }
  }
}

TEST(Chunking, ViolationsAreFound) {
  const std::vector<int64_t> lengths = {1000, 600, 100, 50};
  const std::vector<Chunk> good = chunk(handModel(1.0, 0.0), lengths, 4).chunks;
  ASSERT_EQ(chunkingViolation(good, lengths), "");
  std::vector<Chunk> bad = good;
  bad[5].pieces.push_back({0, 0, 10}); // a second slice beside the tail
  EXPECT_NE(chunkingViolation(bad, lengths), "");
  bad = good;
  Chunk again; // sequence 3 a second time
  again.pieces.push_back({3, 0, 50});
  bad.push_back(again);
  EXPECT_NE(chunkingViolation(bad, lengths).find("repeats"), std::string::npos);
  bad = good;
  bad[2].pieces[0].end -= 1; // tokens 865 of sequence 0 missing
  EXPECT_NE(chunkingViolation(bad, lengths).find("misses"), std::string::npos);
  bad = good;
  bad[3].tail = false;
  EXPECT_NE(chunkingViolation(bad, lengths).find("tail"), std::string::npos);
  bad = good;
  bad[0].kind = ChunkKind::Packed;
  EXPECT_NE(chunkingViolation(bad, lengths), "");
}

TEST(Chunking, Errors) {
  const DppModel m = handModel(1.0, 0.0);
  EXPECT_FALSE(chunkSequences(m, {}, 1));
  EXPECT_FALSE(chunkSequences(m, {10, 0}, 1));
  EXPECT_FALSE(chunkSequences(m, {3}, 4));
  DppModel broken = m;
  broken.memoryMB = 0;
  EXPECT_FALSE(chunkSequences(broken, {10}, 1));
}
