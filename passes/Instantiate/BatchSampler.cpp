//===- BatchSampler.cpp - Deterministic global batches of a dataset -------===//
#include "passes/Instantiate/BatchSampler.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>

// Every floating-point result below must be the same on every platform, so
// a * b + c must never become a fused multiply-add.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace plexus::instantiate {

namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;
// Lengths at or above this are treated as this (no int64 overflow later).
constexpr int64_t kLengthCap = int64_t(1) << 61;

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

std::string str(int64_t v) { return std::to_string(v); }

/// Reads one positive integer a line; blank lines and surrounding spaces or
/// tabs are skipped, CRLF accepted.
std::string readLengths(const std::string &path, std::vector<int64_t> &out) {
  std::ifstream in(path);
  if (!in)
    return "cannot open lengths file '" + path + "'";
  std::string line;
  int64_t lineNo = 0;
  while (std::getline(in, line)) {
    ++lineNo;
    size_t b = 0, e = line.size();
    auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (b < e && blank(line[b]))
      ++b;
    while (e > b && blank(line[e - 1]))
      --e;
    if (b == e)
      continue;
    if (e - b > 12)
      return path + ":" + str(lineNo) + ": length has more than 12 digits";
    int64_t v = 0;
    for (size_t i = b; i < e; ++i) {
      if (line[i] < '0' || line[i] > '9')
        return path + ":" + str(lineNo) + ": expected a positive integer";
      v = v * 10 + (line[i] - '0');
    }
    if (v < 1)
      return path + ":" + str(lineNo) + ": length must be at least 1";
    out.push_back(v);
  }
  if (out.empty())
    return "lengths file '" + path + "' has no lengths";
  return "";
}

} // namespace

//===----------------------------------------------------------------------===//
// PRNG and transforms
//===----------------------------------------------------------------------===//

StepRng::StepRng(uint64_t seed, uint64_t step) {
  // One independent stream per (seed, step): hash both into a splitmix64
  // state, then take four splitmix64 outputs as the xoshiro256** state.
  uint64_t state = mix64(seed ^ mix64(step + kGolden));
  for (uint64_t &w : s) {
    state += kGolden;
    w = mix64(state);
  }
}

uint64_t StepRng::next() {
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double StepRng::uniform() { return double(next() >> 11) * 0x1.0p-53; }

uint64_t StepRng::below(uint64_t bound) {
  uint64_t threshold = (0 - bound) % bound; // 2^64 mod bound
  for (;;) {
    uint64_t x = next();
    if (x >= threshold)
      return x % bound;
  }
}

double StepRng::normal() {
  double u, v, q;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    q = u * u + v * v;
  } while (q >= 1.0 || q == 0.0);
  return u * std::sqrt(-2.0 * portableLog(q) / q);
}

// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (fdlibm's values).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;

double portableExp(double x) {
  if (std::isnan(x))
    return x;
  if (x > 709.78)
    return std::numeric_limits<double>::infinity();
  if (x < -745.2)
    return 0.0;
  double k = std::floor(x * kInvLn2 + 0.5);
  double r = (x - k * kLn2Hi) - k * kLn2Lo; // |r| <= ~0.35
  // Taylor series to r^14 / 14!, Horner form.
  double p = 1.0;
  for (int n = 14; n >= 1; --n)
    p = 1.0 + p * r / double(n);
  return std::ldexp(p, int(k));
}

double portableLog(double x) {
  if (!(x > 0.0))
    return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(x))
    return x;
  int e = 0;
  double m = std::frexp(x, &e); // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --e;
  }
  // log(m) = 2 atanh(t), t = (m - 1) / (m + 1), |t| <= 0.1716.
  double t = (m - 1.0) / (m + 1.0);
  double t2 = t * t;
  double sum = 0.0;
  for (int n = 25; n >= 3; n -= 2)
    sum = (sum + 1.0 / double(n)) * t2;
  double logM = 2.0 * t * (1.0 + sum);
  return double(e) * kLn2Hi + (logM + double(e) * kLn2Lo);
}

//===----------------------------------------------------------------------===//
// BatchSampler
//===----------------------------------------------------------------------===//

std::optional<int64_t> BatchSampler::fit(int64_t length,
                                         bool &truncated) const {
  truncated = false;
  int64_t v =
      roundUp(std::max<int64_t>(1, std::min(length, kLengthCap)), desc.padding);
  if (desc.clamp == 0 || v <= desc.clamp)
    return v;
  if (desc.overlong == Overlong::Drop)
    return std::nullopt;
  truncated = true;
  return desc.clamp / desc.padding * desc.padding; // >= padding >= 1
}

SamplerOrError BatchSampler::create(DatasetDesc desc) {
  SamplerOrError out;
  auto fail = [&](std::string msg) {
    out.error = std::move(msg);
    return out;
  };
  if (desc.padding < 1)
    return fail("padding must be at least 1, got " + str(desc.padding));
  if (desc.clamp < 0)
    return fail("clamp must not be negative, got " + str(desc.clamp));
  if (desc.clamp > 0 && desc.padding > desc.clamp)
    return fail("padding (" + str(desc.padding) + ") exceeds clamp (" +
                str(desc.clamp) + ")");

  BatchSampler bs(std::move(desc));
  const DatasetDesc &d = bs.desc;
  switch (d.source) {
  case LengthSource::Lognormal:
    if (!std::isfinite(d.mu) || !std::isfinite(d.sigma) || d.sigma < 0)
      return fail("lognormal needs a finite mu and a finite sigma >= 0");
    break;
  case LengthSource::Histogram: {
    if (d.bounds.empty() || d.bounds.size() != d.weights.size())
      return fail("histogram needs as many weights as bounds, at least one");
    double total = 0;
    bool reachable = false; // some bin with weight can yield a kept length
    for (size_t i = 0; i < d.bounds.size(); ++i) {
      int64_t lo = i == 0 ? 1 : d.bounds[i - 1] + 1;
      if (d.bounds[i] < lo || d.bounds[i] > kLengthCap)
        return fail("histogram bounds must be positive and strictly "
                    "increasing");
      double w = d.weights[i];
      if (!std::isfinite(w) || w < 0)
        return fail("histogram weights must be finite and non-negative");
      total += w;
      bs.cumulative.push_back(total);
      bool cut = false;
      if (w > 0 && bs.fit(lo, cut))
        reachable = true;
    }
    if (!(total > 0))
      return fail("histogram weights must not all be zero");
    if (!reachable)
      return fail("every histogram bin with weight lies above the clamp");
    break;
  }
  case LengthSource::Lengths: {
    std::vector<int64_t> read;
    const std::vector<int64_t> *src = &d.lengths;
    if (d.lengths.empty()) {
      if (d.path.empty())
        return fail("lengths source has neither lengths nor a path");
      std::string err = readLengths(d.path, read);
      if (!err.empty())
        return fail(err);
      src = &read;
    }
    for (size_t i = 0; i < src->size(); ++i) {
      if ((*src)[i] < 1)
        return fail("length " + str(int64_t(i)) + " is " + str((*src)[i]) +
                    "; lengths must be at least 1");
      bool cut = false;
      if (std::optional<int64_t> v = bs.fit((*src)[i], cut)) {
        bs.kept.push_back(*v);
        bs.keptLine.push_back(int64_t(i));
        bs.keptCut.push_back(cut ? 1 : 0);
      }
    }
    break;
  }
  }
  out.value = std::move(bs);
  return out;
}

int64_t BatchSampler::drawOne(StepRng &rng) const {
  if (desc.source == LengthSource::Lognormal) {
    double v = portableExp(desc.mu + desc.sigma * rng.normal());
    if (!(v < double(kLengthCap)))
      return kLengthCap;
    return std::max<int64_t>(1, int64_t(std::ceil(v)));
  }
  // Histogram: inverse CDF over the running weight sums, then uniform
  // within the chosen bin.
  double u = rng.uniform() * cumulative.back();
  size_t bin = 0;
  while (bin + 1 < cumulative.size() &&
         (u >= cumulative[bin] || desc.weights[bin] == 0))
    ++bin;
  while (desc.weights[bin] == 0) // rounding at the top: last weighted bin
    --bin;
  int64_t lo = bin == 0 ? 1 : desc.bounds[bin - 1] + 1;
  return lo + int64_t(rng.below(uint64_t(desc.bounds[bin] - lo + 1)));
}

Batch BatchSampler::draw(int64_t globalBatch, int64_t step,
                         uint64_t seed) const {
  Batch b;
  if (globalBatch < 1) {
    b.error = "global batch size must be at least 1, got " + str(globalBatch);
    return b;
  }
  if (step < 0) {
    b.error = "step must not be negative, got " + str(step);
    return b;
  }

  if (desc.source == LengthSource::Lengths) {
    int64_t have = int64_t(kept.size());
    if (step >= have / globalBatch) {
      b.error = "step " + str(step) + " needs " +
                ((step + 1 > std::numeric_limits<int64_t>::max() / globalBatch)
                     ? std::string("more than 2^63")
                     : str((step + 1) * globalBatch)) +
                " usable lengths; the dataset has " + str(have);
      return b;
    }
    int64_t first = step * globalBatch, last = first + globalBatch - 1;
    b.lengths.assign(kept.begin() + first, kept.begin() + last + 1);
    for (int64_t i = first; i <= last; ++i)
      b.truncated += keptCut[size_t(i)];
    int64_t prevLine = first == 0 ? -1 : keptLine[size_t(first - 1)];
    b.dropped = keptLine[size_t(last)] - prevLine - globalBatch;
    return b;
  }

  StepRng rng(seed, uint64_t(step));
  // Rejection (overlong = drop) is redrawn; give up when hopeless.
  const int64_t maxRejects =
      1000000 + std::min<int64_t>(globalBatch, 1 << 30) * 100;
  b.lengths.reserve(size_t(globalBatch));
  while (int64_t(b.lengths.size()) < globalBatch) {
    bool cut = false;
    std::optional<int64_t> v = fit(drawOne(rng), cut);
    if (!v) {
      if (++b.dropped > maxRejects) {
        b.error = "gave up after " + str(b.dropped) +
                  " draws above the clamp; the source rarely fits it";
        b.lengths.clear();
        return b;
      }
      continue;
    }
    b.truncated += cut ? 1 : 0;
    b.lengths.push_back(*v);
  }
  return b;
}

Batch drawBatch(const DatasetDesc &desc, int64_t globalBatch, int64_t step,
                uint64_t seed) {
  SamplerOrError s = BatchSampler::create(desc);
  if (!s.value.has_value()) {
    Batch b;
    b.error = s.error;
    return b;
  }
  return s->draw(globalBatch, step, seed);
}

} // namespace plexus::instantiate
