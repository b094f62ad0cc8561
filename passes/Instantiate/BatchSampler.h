//===- BatchSampler.h - Deterministic batches of a dataset ------*- C++ -*-===//
//
// The sequence lengths of one training step's global batch, drawn from a
// dataset description: a lengths file (the FlexSP protocol: filter the whole
// file once, batch i is the i-th block of GBS kept lengths, in file order) or
// a synthetic source (log-normal or histogram) drawn with a self-contained
// PRNG and self-contained transforms, so that a batch is bit-identical on
// every standard library. A synthetic step is a function of (seed, step)
// alone. Plain C++, errors as values. See docs/batches.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_INSTANTIATE_BATCHSAMPLER_H
#define PLEXUS_PASSES_INSTANTIATE_BATCHSAMPLER_H

#include "passes/Support/Result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace plexus::instantiate {

enum class LengthSource { Lognormal, Histogram, Lengths };
enum class Overlong { Drop, Truncate };

/// A dataset, as plain values (mirrors frontend DatasetSpec).
struct DatasetDesc {
  LengthSource source = LengthSource::Lognormal;
  double mu = 0, sigma = 0;     // Lognormal: ln(length) ~ N(mu, sigma^2)
  std::vector<int64_t> bounds;  // Histogram: bin i is (bounds[i-1], bounds[i]]
  std::vector<double> weights;  // Histogram: one per bin, not all zero
  std::vector<int64_t> lengths; // Lengths: already read, or empty to read...
  std::string path;             // ...this file, one integer a line
  int64_t clamp = 0;            // 0: no limit
  int64_t padding = 1;          // lengths round up to a multiple of this
  Overlong overlong = Overlong::Drop;
};

/// One step's global batch, in dataset (draw) order. Every length is >= 1,
/// a multiple of `padding`, and at most `clamp` when clamp > 0.
struct Batch {
  std::vector<int64_t> lengths;
  /// Lengths file: lines skipped as overlong between the previous batch's
  /// last kept line and this batch's last kept line. Synthetic: rejected
  /// draws (they are redrawn, so the batch is still full).
  int64_t dropped = 0;
  int64_t truncated = 0; // members of this batch cut down to the clamp
  std::string error;     // empty on success
  bool ok() const { return error.empty(); }
};

/// xoshiro256** seeded through splitmix64; the stream of one step.
class StepRng {
public:
  StepRng(uint64_t seed, uint64_t step);
  uint64_t next();
  double uniform();               // [0, 1), 53 bits
  uint64_t below(uint64_t bound); // [0, bound), unbiased; bound > 0
  double normal();                // N(0, 1), Marsaglia's polar Box-Muller

private:
  uint64_t s[4];
};

/// Deterministic exp and natural log built from IEEE-exact operations only
/// (+, -, *, /, sqrt, frexp, ldexp), so they agree on every libm.
double portableExp(double x);
double portableLog(double x); // x > 0

class BatchSampler;
/// The sampler, or why the description cannot be sampled.
using SamplerOrError = Result<BatchSampler>;

class BatchSampler {
public:
  /// Checks the description; a lengths source is read (if given by path)
  /// and filtered once here.
  static SamplerOrError create(DatasetDesc desc);

  /// The batch of `step` (0-based) with `globalBatch` sequences. Errors: a
  /// non-positive batch size, a negative step, or a lengths source with
  /// fewer than (step + 1) * globalBatch usable lengths.
  Batch draw(int64_t globalBatch, int64_t step, uint64_t seed) const;

  /// Lengths source: how many lines survive filtering.
  int64_t usable() const { return int64_t(kept.size()); }

private:
  explicit BatchSampler(DatasetDesc d) : desc(std::move(d)) {}
  /// Pads and applies the clamp: the kept length, or nullopt when dropped.
  std::optional<int64_t> fit(int64_t length, bool &truncated) const;
  int64_t drawOne(StepRng &rng) const;

  DatasetDesc desc;
  std::vector<double> cumulative; // histogram: running sums of weights
  std::vector<int64_t> kept;      // lengths source, after filtering
  std::vector<int64_t> keptLine;  // index (among lengths) of each kept one
  std::vector<uint8_t> keptCut;   // 1 where a kept length was truncated
};

/// One-shot convenience: create() then draw().
Batch drawBatch(const DatasetDesc &desc, int64_t globalBatch, int64_t step,
                uint64_t seed);

} // namespace plexus::instantiate

#endif // PLEXUS_PASSES_INSTANTIATE_BATCHSAMPLER_H
