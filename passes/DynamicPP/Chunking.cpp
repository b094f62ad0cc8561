//===- Chunking.cpp - DPP's workload-balanced chunking --------------------===//
//
// The equal-time mesh and Alg. 1's best-fit-decreasing packing, and the
// baselines' even-token slicing and first-fit packing. See Chunking.h.
//
//===----------------------------------------------------------------------===//
#include "passes/DynamicPP/Chunking.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>

namespace plexus::dpp {

namespace {

/// The split chunks of sequence `id` cut at `cuts`: one per slice but the
/// last (its tail), in slice order.
std::vector<Chunk>
leadingSplitChunks(int64_t id,
                   const std::vector<std::pair<int64_t, int64_t>> &cuts) {
  std::vector<Chunk> out;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    Chunk c;
    c.kind = ChunkKind::Split;
    c.pieces.push_back({id, cuts[i].first, cuts[i].second});
    out.push_back(std::move(c));
  }
  return out;
}

/// a <= b up to rounding.
bool atMost(double a, double b) {
  return a <= b + 1e-9 * std::max(1.0, std::fabs(b));
}

/// A bucket of Alg. 1: a tail slice and/or whole short sequences.
struct Bucket {
  std::vector<SequencePiece> pieces; // the tail slice first, if any
  bool hasTail = false;
  double timeMs = 0;
  int64_t tokens = 0;
};

/// Empty when the batch can be chunked; else why not.
std::string batchProblem(const std::vector<int64_t> &lengths) {
  if (lengths.empty())
    return "the batch has no sequences";
  for (size_t i = 0; i < lengths.size(); ++i)
    if (lengths[i] < 1)
      return "sequence " + std::to_string(i) + " has " +
             std::to_string(lengths[i]) + " tokens; lengths must be positive";
  return "";
}

/// Sequence ids by descending length, ties by ascending id.
std::vector<int64_t> longestFirst(const std::vector<int64_t> &lengths) {
  std::vector<int64_t> order(lengths.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return lengths[static_cast<size_t>(a)] > lengths[static_cast<size_t>(b)];
  });
  return order;
}

/// The chunks of a chunking: each split sequence's non-tail slices, then
/// its tail's bucket (a hybrid chunk when it took short sequences, else a
/// split chunk); then the buckets without a tail as packed chunks. The
/// first splitChunks.size() buckets are the tails'.
void emitChunks(std::vector<std::vector<Chunk>> splitChunks,
                std::vector<Bucket> buckets, Chunking &out) {
  size_t tailBucket = 0;
  for (std::vector<Chunk> &own : splitChunks) {
    Bucket &b = buckets[tailBucket++];
    for (Chunk &c : own)
      out.chunks.push_back(std::move(c));
    Chunk tail;
    tail.kind = b.pieces.size() > 1 ? ChunkKind::Hybrid : ChunkKind::Split;
    tail.tail = true;
    tail.pieces = std::move(b.pieces);
    out.chunks.push_back(std::move(tail));
  }
  for (size_t i = tailBucket; i < buckets.size(); ++i) {
    Chunk c;
    c.kind = ChunkKind::Packed;
    c.pieces = std::move(buckets[i].pieces);
    out.chunks.push_back(std::move(c));
  }
}

} // namespace

Result<std::vector<int64_t>> equalTimeBoundaries(double quadratic,
                                                 double linear, int64_t length,
                                                 int64_t slices,
                                                 int64_t granule) {
  using R = Result<std::vector<int64_t>>;
  if (slices < 1)
    return R::fail("a sequence is cut into at least one slice");
  if (granule < 1)
    return R::fail("slices are cut on multiples of at least one token, not " +
                   std::to_string(granule));
  if (granule == 1 && length < slices)
    return R::fail("a " + std::to_string(length) + "-token sequence cannot " +
                   "be cut into " + std::to_string(slices) + " slices");
  if (length < slices || length / slices < granule)
    return R::fail("a " + std::to_string(length) + "-token sequence cannot " +
                   "be cut into " + std::to_string(slices) +
                   " slices of at least " + std::to_string(granule) +
                   " tokens");
  if (!(quadratic >= 0) || !(linear >= 0) || !(quadratic > 0 || linear > 0) ||
      !std::isfinite(quadratic + linear))
    return R::fail("slice cost coefficients must be finite, non-negative and "
                   "not both zero");
  const double len = static_cast<double>(length);
  const double whole = quadratic * len * len + linear * len;
  const double g = static_cast<double>(granule);
  std::vector<int64_t> cuts;
  for (int64_t j = 1; j < slices; ++j) {
    // The root of quadratic x^2 + linear x = c, in a form that is stable
    // when either coefficient is zero.
    const double c =
        whole * static_cast<double>(j) / static_cast<double>(slices);
    const double x =
        2.0 * c / (linear + std::sqrt(linear * linear + 4.0 * quadratic * c));
    // The nearest multiple of the granule, halves up (x / 1 is x: granule
    // 1 rounds to the nearest token exactly as before).
    cuts.push_back(std::llround(x / g) * granule);
  }
  // Every slice keeps at least a granule, and the cuts stay multiples of
  // it: the last cut lies at most at the last multiple that leaves the
  // final slice a granule (length >= slices * granule leaves room for all).
  for (size_t i = 0; i < cuts.size(); ++i)
    cuts[i] = std::max(cuts[i], (i ? cuts[i - 1] : 0) + granule);
  const int64_t lastCut = (length - granule) / granule * granule;
  for (size_t i = cuts.size(); i-- > 0;) {
    const int64_t highest =
        i + 1 < cuts.size() ? cuts[i + 1] - granule : lastCut;
    cuts[i] = std::min(cuts[i], highest);
  }
  return R::ok(std::move(cuts));
}

Result<SplitMesh> splitMesh(const DppModel &model, int64_t longest,
                            int64_t slices) {
  using R = Result<SplitMesh>;
  if (std::string why = dppModelProblem(model); !why.empty())
    return R::fail(why);
  const SliceCost cost = stageSliceCost(model);
  Result<std::vector<int64_t>> cuts = equalTimeBoundaries(
      cost.quadraticMs, cost.linearMs, longest, slices, model.sliceGranule);
  if (!cuts)
    return R::fail(cuts.error);
  SplitMesh mesh;
  mesh.longest = longest;
  mesh.slices = slices;
  mesh.boundaries = *cuts;
  for (const auto &[begin, end] : sliceOnMesh(mesh, longest)) {
    mesh.timeTargetMs =
        std::max(mesh.timeTargetMs,
                 cost.chunkMs + pieceWorkMs(cost, begin, end - begin));
    mesh.tokenTarget = std::max(mesh.tokenTarget, end - begin);
  }
  return R::ok(std::move(mesh));
}

std::vector<std::pair<int64_t, int64_t>> sliceOnMesh(const SplitMesh &mesh,
                                                     int64_t length) {
  std::vector<std::pair<int64_t, int64_t>> out;
  int64_t begin = 0;
  for (int64_t cut : mesh.boundaries) {
    if (cut >= length)
      break;
    out.emplace_back(begin, cut);
    begin = cut;
  }
  out.emplace_back(begin, length);
  return out;
}

Result<Chunking> chunkSequences(const DppModel &model,
                                const std::vector<int64_t> &lengths,
                                int64_t slices,
                                const ChunkingOptions &options) {
  using R = Result<Chunking>;
  if (std::string why = batchProblem(lengths); !why.empty())
    return R::fail(why);
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  Result<SplitMesh> mesh = splitMesh(model, longest, slices);
  if (!mesh)
    return R::fail(mesh.error);
  const SliceCost cost = stageSliceCost(model);

  const std::vector<int64_t> order = longestFirst(lengths);

  Chunking out;
  out.mesh = *mesh;
  // Split sequences: their non-tail slices, and a bucket per tail.
  std::vector<std::vector<Chunk>> splitChunks; // per split sequence
  std::vector<Bucket> buckets;
  std::vector<int64_t> shorts;
  for (int64_t id : order) {
    const int64_t len = lengths[static_cast<size_t>(id)];
    std::vector<std::pair<int64_t, int64_t>> cuts = sliceOnMesh(*mesh, len);
    if (cuts.size() == 1) {
      shorts.push_back(id);
      continue;
    }
    splitChunks.push_back(leadingSplitChunks(id, cuts));
    const auto [begin, end] = cuts.back();
    Bucket b;
    b.pieces.push_back({id, begin, end});
    b.hasTail = true;
    b.timeMs = cost.chunkMs + pieceWorkMs(cost, begin, end - begin);
    b.tokens = end - begin;
    buckets.push_back(std::move(b));
  }
  out.splitSequences = static_cast<int64_t>(splitChunks.size());

  // Short sequences, best fit decreasing (their time grows with length, so
  // the length order is the time order).
  double timeTarget = mesh->timeTargetMs;
  const int64_t tokenTarget = mesh->tokenTarget;
  for (int64_t id : shorts) {
    const int64_t s = lengths[static_cast<size_t>(id)];
    const double t = pieceWorkMs(cost, 0, s);
    auto open = [&] {
      Bucket b;
      b.pieces.push_back({id, 0, s});
      b.timeMs = cost.chunkMs + t;
      b.tokens = s;
      buckets.push_back(std::move(b));
    };
    int64_t emptiest = std::numeric_limits<int64_t>::max();
    for (const Bucket &b : buckets)
      emptiest = std::min(emptiest, b.tokens);
    if (buckets.empty() || emptiest + s > tokenTarget) {
      open();
      continue;
    }
    std::vector<size_t> byRatio(buckets.size());
    std::iota(byRatio.begin(), byRatio.end(), size_t{0});
    std::stable_sort(byRatio.begin(), byRatio.end(), [&](size_t a, size_t b) {
      return buckets[a].timeMs / static_cast<double>(buckets[a].tokens) <
             buckets[b].timeMs / static_cast<double>(buckets[b].tokens);
    });
    bool placed = false;
    for (int attempt = 0; attempt < 2 && !placed; ++attempt) {
      for (size_t i : byRatio) {
        Bucket &b = buckets[i];
        if (atMost(b.timeMs + t, timeTarget) && b.tokens + s <= tokenTarget) {
          b.pieces.push_back({id, 0, s});
          b.timeMs += t;
          b.tokens += s;
          placed = true;
          break;
        }
      }
      if (placed || !options.loosenTimeTarget)
        break;
      double loosest = std::numeric_limits<double>::infinity();
      for (const Bucket &b : buckets)
        if (b.tokens + s <= tokenTarget)
          loosest = std::min(loosest, b.timeMs + t);
      timeTarget = std::max(timeTarget, loosest);
      ++out.loosenings;
    }
    if (!placed)
      open();
  }
  out.timeTargetMs = timeTarget;

  // Split sequences with their tails' chunks, then the packed chunks.
  emitChunks(std::move(splitChunks), std::move(buckets), out);
  return R::ok(std::move(out));
}

const char *chunkingModeName(ChunkingMode m) {
  switch (m) {
  case ChunkingMode::WorkloadBalanced:
    return "workload-balanced";
  case ChunkingMode::EvenTokens:
    return "even-tokens";
  case ChunkingMode::Packed:
    return "packed";
  }
  return "?";
}

int64_t evenSliceTokens(int64_t longest, int64_t slices, int64_t granule) {
  if (longest < 1 || slices < 1 || granule < 1)
    return 0;
  const int64_t even = (longest + slices - 1) / slices;
  return (even + granule - 1) / granule * granule;
}

std::vector<std::pair<int64_t, int64_t>>
evenSlices(int64_t length, int64_t sliceTokens, int64_t granule) {
  std::vector<std::pair<int64_t, int64_t>> out;
  if (length < 1)
    return out;
  // Slices of at most sliceTokens rounded up to whole granules.
  const int64_t g = granule < 1 ? 1 : granule;
  const int64_t capacity = sliceTokens < 1 ? 0 : (sliceTokens + g - 1) / g * g;
  const int64_t count = capacity < 1 ? 1 : (length + capacity - 1) / capacity;
  // Whole granules, spread as evenly as they go (the longer slices first);
  // the last slice also takes the tokens short of a granule.
  const int64_t granules = length / g;
  const int64_t base = granules / count, longer = granules % count;
  int64_t begin = 0;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t end =
        i + 1 == count ? length : begin + (base + (i < longer ? 1 : 0)) * g;
    out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

Result<Chunking> chunkEvenTokens(const DppModel &model,
                                 const std::vector<int64_t> &lengths,
                                 int64_t slices) {
  using R = Result<Chunking>;
  if (std::string why = batchProblem(lengths); !why.empty())
    return R::fail(why);
  if (std::string why = dppModelProblem(model); !why.empty())
    return R::fail(why);
  const int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  if (slices < 1)
    return R::fail("a sequence is cut into at least one slice");
  if (longest < slices)
    return R::fail("a " + std::to_string(longest) + "-token sequence cannot " +
                   "be cut into " + std::to_string(slices) + " slices");
  const int64_t granule = model.sliceGranule;
  const int64_t capacity = evenSliceTokens(longest, slices, granule);
  const SliceCost cost = stageSliceCost(model);

  Chunking out;
  out.mesh.longest = longest;
  out.mesh.slices = slices;
  out.mesh.tokenTarget = capacity;
  for (const auto &[begin, end] : evenSlices(longest, capacity, granule)) {
    if (begin > 0)
      out.mesh.boundaries.push_back(begin);
    out.mesh.timeTargetMs =
        std::max(out.mesh.timeTargetMs,
                 cost.chunkMs + pieceWorkMs(cost, begin, end - begin));
  }
  out.timeTargetMs = out.mesh.timeTargetMs;

  const std::vector<int64_t> order = longestFirst(lengths);
  // Split sequences' non-tail slices; bins seeded by their tails, then the
  // bins short sequences open.
  std::vector<std::vector<Chunk>> splitChunks;
  std::vector<Bucket> bins;
  std::vector<int64_t> shorts;
  for (int64_t id : order) {
    const int64_t len = lengths[static_cast<size_t>(id)];
    const std::vector<std::pair<int64_t, int64_t>> cuts =
        evenSlices(len, capacity, granule);
    if (cuts.size() == 1) {
      shorts.push_back(id);
      continue;
    }
    splitChunks.push_back(leadingSplitChunks(id, cuts));
    Bucket b;
    b.pieces.push_back({id, cuts.back().first, cuts.back().second});
    b.hasTail = true;
    b.tokens = cuts.back().second - cuts.back().first;
    bins.push_back(std::move(b));
  }
  out.splitSequences = static_cast<int64_t>(splitChunks.size());
  for (int64_t id : shorts) {
    const int64_t s = lengths[static_cast<size_t>(id)];
    auto fit = std::find_if(bins.begin(), bins.end(), [&](const Bucket &b) {
      return b.tokens + s <= capacity;
    });
    if (fit == bins.end()) {
      bins.emplace_back();
      fit = std::prev(bins.end());
    }
    fit->pieces.push_back({id, 0, s});
    fit->tokens += s;
  }
  emitChunks(std::move(splitChunks), std::move(bins), out);
  return R::ok(std::move(out));
}

Result<Chunking> packSequences(const DppModel &model,
                               const std::vector<int64_t> &lengths) {
  return chunkEvenTokens(model, lengths, 1);
}

Result<Chunking> chunkBatch(const DppModel &model,
                            const std::vector<int64_t> &lengths, int64_t slices,
                            ChunkingMode mode, const ChunkingOptions &options) {
  switch (mode) {
  case ChunkingMode::WorkloadBalanced:
    return chunkSequences(model, lengths, slices, options);
  case ChunkingMode::EvenTokens:
    return chunkEvenTokens(model, lengths, slices);
  case ChunkingMode::Packed:
    if (slices != 1)
      return Result<Chunking>::fail(
          "packed chunking splits no sequence: it takes one slice, not " +
          std::to_string(slices));
    return packSequences(model, lengths);
  }
  return Result<Chunking>::fail("unknown chunking mode");
}

std::string chunkingViolation(const std::vector<Chunk> &chunks,
                              const std::vector<int64_t> &lengths) {
  const int64_t n = static_cast<int64_t>(lengths.size());
  std::vector<std::vector<std::pair<int64_t, int64_t>>> covered(lengths.size());
  for (size_t k = 0; k < chunks.size(); ++k) {
    const Chunk &c = chunks[k];
    const std::string at =
        "chunk " + std::to_string(k) + " (" + chunkKindName(c.kind) + ")";
    if (c.pieces.empty())
      return at + " is empty";
    if (c.kind == ChunkKind::Split && c.pieces.size() != 1)
      return at + " must hold exactly one slice";
    if (c.kind == ChunkKind::Hybrid && (c.pieces.size() < 2 || !c.tail))
      return at + " must hold a tail slice and at least one short sequence";
    if (c.kind == ChunkKind::Packed && c.tail)
      return at + " holds no tail slice";
    std::vector<int64_t> seen;
    int64_t partial = 0;
    for (size_t i = 0; i < c.pieces.size(); ++i) {
      const SequencePiece &p = c.pieces[i];
      if (p.sequence < 0 || p.sequence >= n)
        return at + " names sequence " + std::to_string(p.sequence) +
               " of only " + std::to_string(n);
      const int64_t len = lengths[static_cast<size_t>(p.sequence)];
      if (p.begin < 0 || p.end > len || p.begin >= p.end)
        return at + " holds tokens [" + std::to_string(p.begin) + ", " +
               std::to_string(p.end) + ") of a " + std::to_string(len) +
               "-token sequence";
      if (std::find(seen.begin(), seen.end(), p.sequence) != seen.end())
        return at + " holds sequence " + std::to_string(p.sequence) + " twice";
      seen.push_back(p.sequence);
      const bool whole = p.begin == 0 && p.end == len;
      if (!whole)
        ++partial;
      const bool slicePiece = i == 0 && c.hasSplitSlice();
      if (slicePiece == whole)
        return at + (slicePiece ? " must hold a proper slice first"
                                : " may hold only whole sequences beside "
                                  "its slice");
      if (slicePiece && c.tail != (p.end == len))
        return at + " marks its slice as a tail wrongly";
      covered[static_cast<size_t>(p.sequence)].emplace_back(p.begin, p.end);
    }
    if (partial > 1)
      return at + " holds two slices of split sequences";
  }
  for (int64_t s = 0; s < n; ++s) {
    auto &ranges = covered[static_cast<size_t>(s)];
    std::sort(ranges.begin(), ranges.end());
    int64_t next = 0;
    for (const auto &[begin, end] : ranges) {
      if (begin != next)
        return "sequence " + std::to_string(s) +
               (begin < next ? " repeats" : " misses") + " tokens at " +
               std::to_string(std::min(begin, next));
      next = end;
    }
    if (next != lengths[static_cast<size_t>(s)])
      return "sequence " + std::to_string(s) + " misses tokens from " +
             std::to_string(next);
  }
  return "";
}

} // namespace plexus::dpp
