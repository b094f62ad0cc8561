//===- KernelsTest.cpp - Tensors and the reference CPU kernels ------------===//
//
// The blocked matmul against the naive triple loop (every transpose, odd and
// block-crossing sizes) and a 2 x 2 product by hand; every kernel's backward
// against central finite differences in double; attention against an
// explicit softmax; and the split-sequence property: a slice attending to
// the K/V of its earlier slices gives the same rows as the whole sequence.
//
//===----------------------------------------------------------------------===//
#include "runtime/cpu/Kernels.h"

#include "RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace plexus::runtime;
using namespace plexus::runtime::testutil;

namespace {

//===----------------------------------------------------------------------===//
// Tensors and initialisation
//===----------------------------------------------------------------------===//

TEST(RuntimeTensor, ShapesAndReshape) {
  Tensor t({2, 3, 4});
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.rows(), 2);
  EXPECT_EQ(t.rowSize(), 12);
  EXPECT_EQ(t.dim(2), 4);
  EXPECT_EQ(t.dim(5), 0);
  EXPECT_TRUE(t.reshape({6, 4}).ok());
  EXPECT_EQ(shapeString(t.shape()), "[6, 4]");
  Status bad = t.reshape({5, 5});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "cannot reshape [6, 4] to [5, 5]");
  Tensor negative({-3, 2});
  EXPECT_EQ(negative.numel(), 0);
}

TEST(RuntimeTensor, InitialisationIsDeterministicAndSeeded) {
  Tensor a({1000}), b({1000}), c({1000});
  fillUniform(a, streamKey(7, 3), 0.5f);
  fillUniform(b, streamKey(7, 3), 0.5f);
  fillUniform(c, streamKey(8, 3), 0.5f);
  EXPECT_TRUE(a.identical(b));
  EXPECT_FALSE(a.identical(c));
  double mean = 0, sq = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    EXPECT_GE(a[i], -0.5f);
    EXPECT_LT(a[i], 0.5f);
    mean += a[i];
    sq += a[i] * a[i];
  }
  mean /= 1000;
  // Uniform on [-0.5, 0.5): mean 0, variance 1/12.
  EXPECT_NEAR(mean, 0.0, 0.03);
  EXPECT_NEAR(sq / 1000, 1.0 / 12, 0.01);
  // fp32 and double tensors drawn from one key hold equal values.
  TensorD d({1000});
  fillUniform(d, streamKey(7, 3), 0.5f);
  for (int64_t i = 0; i < 1000; ++i)
    EXPECT_EQ(d[i], static_cast<double>(a[i]));
}

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

TEST(RuntimeMatmul, TwoByTwoByHand) {
  const float a[] = {1, 2, 3, 4}, b[] = {5, 6, 7, 8};
  float c[4];
  cpu::matmul(a, false, b, false, c, 2, 2, 2, false);
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{19, 22, 43, 50}));
  cpu::matmul(a, true, b, false, c, 2, 2, 2, false); // A^T B
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{26, 30, 38, 44}));
  cpu::matmul(a, false, b, true, c, 2, 2, 2, false); // A B^T
  EXPECT_EQ(std::vector<float>(c, c + 4), (std::vector<float>{17, 23, 39, 53}));
  cpu::matmul(a, false, b, false, c, 2, 2, 2, true); // accumulates
  EXPECT_EQ(std::vector<float>(c, c + 4),
            (std::vector<float>{36, 45, 82, 103}));
}

template <typename T> void checkAgainstNaive(double tolerance) {
  const int64_t sizes[][3] = {
      {1, 1, 1}, {5, 7, 3}, {37, 53, 29}, {4, 8, 300}, {130, 300, 270}};
  uint64_t stream = 0;
  for (const auto &s : sizes)
    for (int ta = 0; ta < 2; ++ta)
      for (int tb = 0; tb < 2; ++tb)
        for (int acc = 0; acc < 2; ++acc) {
          const int64_t m = s[0], n = s[1], k = s[2];
          auto a = randomTensor<T>({ta ? k : m, ta ? m : k}, ++stream);
          auto b = randomTensor<T>({tb ? n : k, tb ? k : n}, ++stream);
          auto c0 = randomTensor<T>({m, n}, ++stream);
          BasicTensor<T> fast = c0, slow = c0;
          cpu::matmul(a.data(), ta, b.data(), tb, fast.data(), m, n, k, acc);
          cpu::matmulNaive(a.data(), ta, b.data(), tb, slow.data(), m, n, k,
                           acc);
          EXPECT_LT(normRelativeError(fast, slow), tolerance)
              << m << "x" << n << "x" << k << " ta " << ta << " tb " << tb
              << " acc " << acc;
        }
}

TEST(RuntimeMatmul, MatchesNaiveLoopFp32) { checkAgainstNaive<float>(1e-5); }
TEST(RuntimeMatmul, MatchesNaiveLoopDouble) {
  checkAgainstNaive<double>(1e-13);
}

TEST(RuntimeMatmul, FastPathGivesThePortableBits) {
  // Where the CPU has AVX2, matmul takes a wider-tiled path; without fused
  // multiply-adds it rounds exactly like the portable one. (Elsewhere both
  // are the same code, and this holds trivially.)
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    const int64_t m = 131, n = 301, k = 270;
    auto a = randomTensor<float>({m * k}, 80 + t);
    auto b = randomTensor<float>({k * n}, 90 + t);
    Tensor fast({m, n}), portable({m, n});
    cpu::matmul(a.data(), ta, b.data(), tb, fast.data(), m, n, k, false);
    cpu::matmulPortable(a.data(), ta, b.data(), tb, portable.data(), m, n, k,
                        false);
    EXPECT_TRUE(fast.identical(portable)) << "ta " << ta << " tb " << tb;
  }
}

TEST(RuntimeMatmul, RowsDoNotDependOnTheOtherRows) {
  // Rows 5..12 of a 37-row product equal the product of those rows alone,
  // bit for bit: what the split-sequence equivalence rests on.
  const int64_t m = 37, n = 300, k = 270;
  auto a = randomTensor<float>({m, k}, 1);
  auto b = randomTensor<float>({k, n}, 2);
  Tensor whole({m, n}), part({8, n});
  cpu::matmul(a.data(), false, b.data(), false, whole.data(), m, n, k, false);
  cpu::matmul(a.row(5), false, b.data(), false, part.data(), 8, n, k, false);
  EXPECT_TRUE(rowRange(whole, 5, 13).identical(part));
}

//===----------------------------------------------------------------------===//
// Element-wise kernels and RMSNorm
//===----------------------------------------------------------------------===//

TEST(RuntimeKernels, RmsNormByHandAndByFiniteDifferences) {
  // x = (3, 4): mean square 12.5, so y = x / sqrt(12.5) * gain.
  const double x1[] = {3, 4}, g1[] = {1, 2};
  double y1[2], r1[1];
  cpu::rmsNormForward(x1, g1, 1, 2, 0.0, y1, r1);
  EXPECT_NEAR(y1[0], 3 / std::sqrt(12.5), 1e-15);
  EXPECT_NEAR(y1[1], 8 / std::sqrt(12.5), 1e-15);

  const int64_t rows = 3, width = 7;
  auto x = randomTensor<double>({rows, width}, 10);
  auto gain = randomTensor<double>({width}, 11);
  auto r = randomTensor<double>({rows, width}, 12);
  auto loss = [&] {
    TensorD y({rows, width}), rstd({rows});
    cpu::rmsNormForward(x.data(), gain.data(), rows, width, 1e-5, y.data(),
                        rstd.data());
    return dotAll(y, r);
  };
  TensorD y({rows, width}), rstd({rows}), dx({rows, width}), dg({width});
  cpu::rmsNormForward(x.data(), gain.data(), rows, width, 1e-5, y.data(),
                      rstd.data());
  cpu::rmsNormBackward(x.data(), gain.data(), rstd.data(), r.data(), rows,
                       width, dx.data(), dg.data());
  EXPECT_LT(gradientError(x, dx, loss), 1e-8);
  EXPECT_LT(gradientError(gain, dg, loss), 1e-8);
}

TEST(RuntimeKernels, RopeRotatesPairsAndInvertsExactly) {
  // One head of width 2 at position 1: frequency 1, a turn of one radian.
  double v[] = {1, 0};
  const int64_t one = 1;
  cpu::rope(v, 1, 1, 2, &one, 10000.0, false);
  EXPECT_NEAR(v[0], std::cos(1.0), 1e-15);
  EXPECT_NEAR(v[1], std::sin(1.0), 1e-15);
  // Position 0 is the identity; the inverse undoes the rotation; norms stay.
  auto x = randomTensor<double>({3, 2, 8}, 20);
  TensorD y = x;
  const std::vector<int64_t> positions = {0, 5, 1000};
  cpu::rope(y.data(), 3, 2, 8, positions.data(), 10000.0, false);
  for (int64_t i = 0; i < 16; ++i)
    EXPECT_EQ(y[i], x[i]);
  for (int64_t r = 1; r < 3; ++r)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t j = 0; j < 4; ++j) {
        const int64_t i = (r * 2 + h) * 8 + 2 * j;
        EXPECT_NEAR(std::hypot(y[i], y[i + 1]), std::hypot(x[i], x[i + 1]),
                    1e-14);
      }
  cpu::rope(y.data(), 3, 2, 8, positions.data(), 10000.0, true);
  EXPECT_LT(normRelativeError(y, x), 1e-14);
}

TEST(RuntimeKernels, ActivationsMatchFiniteDifferences) {
  const int64_t n = 50;
  auto u = randomTensor<double>({n}, 30, 4.0f);
  auto gate = randomTensor<double>({n}, 31, 4.0f);
  auto r = randomTensor<double>({n}, 32);
  // GeLU: gelu(0) = 0, gelu(x) ~ x for large x, ~ 0 for very negative x.
  double probe[] = {0, 10, -10}, out[3];
  cpu::geluForward(probe, out, 3);
  EXPECT_EQ(out[0], 0);
  EXPECT_NEAR(out[1], 10, 1e-9);
  EXPECT_NEAR(out[2], 0, 1e-9);
  auto geluLoss = [&] {
    TensorD g({n});
    cpu::geluForward(u.data(), g.data(), n);
    return dotAll(g, r);
  };
  TensorD du({n});
  cpu::geluBackward(u.data(), r.data(), du.data(), n);
  EXPECT_LT(gradientError(u, du, geluLoss), 1e-8);

  auto swigluLoss = [&] {
    TensorD a({n});
    cpu::swigluForward(gate.data(), u.data(), a.data(), n);
    return dotAll(a, r);
  };
  TensorD dgate({n}), dup({n});
  cpu::swigluBackward(gate.data(), u.data(), r.data(), dgate.data(), dup.data(),
                      n);
  EXPECT_LT(gradientError(gate, dgate, swigluLoss), 1e-8);
  EXPECT_LT(gradientError(u, dup, swigluLoss), 1e-8);
}

TEST(RuntimeKernels, CrossEntropyByHandAndByFiniteDifferences) {
  // Equal logits: every row's loss is log(vocab); an ignored row adds
  // nothing and gets no gradient.
  TensorD logits({3, 4});
  const std::vector<int32_t> targets = {2, -1, 0};
  TensorD d({3, 4});
  double sum =
      cpu::crossEntropy(logits.data(), targets.data(), 3, 4, 0.5, d.data());
  EXPECT_NEAR(sum, 2 * std::log(4.0), 1e-15);
  EXPECT_NEAR(d[2], 0.5 * (0.25 - 1), 1e-15);
  EXPECT_NEAR(d[0], 0.5 * 0.25, 1e-15);
  for (int64_t j = 4; j < 8; ++j)
    EXPECT_EQ(d[j], 0);

  auto x = randomTensor<double>({3, 4}, 40, 3.0f);
  auto loss = [&] {
    TensorD scratch({3, 4});
    return 0.5 * cpu::crossEntropy(x.data(), targets.data(), 3, 4, 0.5,
                                   scratch.data());
  };
  cpu::crossEntropy(x.data(), targets.data(), 3, 4, 0.5, d.data());
  EXPECT_LT(gradientError(x, d, loss), 1e-8);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The textbook: for every slice, head and query, an explicit softmax over
/// [context keys, own keys 0..i], in double.
TensorD naiveAttention(const std::vector<Slice> &slices, cpu::AttentionHeads s,
                       const TensorD &q, const TensorD &k, const TensorD &v,
                       const TensorD &ck, const TensorD &cv) {
  TensorD out(q.shape());
  int64_t qOff = 0, cOff = 0;
  const double scale = 1 / std::sqrt(static_cast<double>(s.headDim));
  for (const Slice &sl : slices) {
    for (int64_t h = 0; h < s.heads; ++h) {
      const int64_t hk = h / (s.heads / s.kvHeads);
      for (int64_t i = 0; i < sl.tokens; ++i) {
        std::vector<const double *> keys, values;
        for (int64_t j = 0; j < sl.context; ++j) {
          keys.push_back(ck.data() + ((cOff + j) * s.kvHeads + hk) * s.headDim);
          values.push_back(cv.data() +
                           ((cOff + j) * s.kvHeads + hk) * s.headDim);
        }
        for (int64_t j = 0; j <= i; ++j) {
          keys.push_back(k.data() + ((qOff + j) * s.kvHeads + hk) * s.headDim);
          values.push_back(v.data() +
                           ((qOff + j) * s.kvHeads + hk) * s.headDim);
        }
        const double *qi = q.data() + ((qOff + i) * s.heads + h) * s.headDim;
        std::vector<double> p;
        double mx = -1e300, sum = 0;
        for (const double *key : keys) {
          double dot = 0;
          for (int64_t x = 0; x < s.headDim; ++x)
            dot += qi[x] * key[x];
          p.push_back(dot * scale);
          mx = std::max(mx, p.back());
        }
        for (double &e : p)
          sum += (e = std::exp(e - mx));
        double *o = out.data() + ((qOff + i) * s.heads + h) * s.headDim;
        for (size_t j = 0; j < p.size(); ++j)
          for (int64_t x = 0; x < s.headDim; ++x)
            o[x] += p[j] / sum * values[j][x];
      }
    }
    qOff += sl.tokens;
    cOff += sl.context;
  }
  return out;
}

struct AttentionCase {
  std::vector<Slice> slices = {{5, 0}, {3, 4}, {70, 9}};
  cpu::AttentionHeads shape{4, 2, 6};
  int64_t tokens() const {
    int64_t t = 0;
    for (auto s : slices)
      t += s.tokens;
    return t;
  }
  int64_t context() const {
    int64_t t = 0;
    for (auto s : slices)
      t += s.context;
    return t;
  }
};

TEST(RuntimeAttention, MatchesExplicitSoftmaxWithGroupedHeadsAndContext) {
  AttentionCase c;
  const int64_t t = c.tokens(), ctx = c.context();
  const auto &s = c.shape;
  auto q = randomTensor<double>({t, s.heads, s.headDim}, 50, 2.0f);
  auto k = randomTensor<double>({t, s.kvHeads, s.headDim}, 51, 2.0f);
  auto v = randomTensor<double>({t, s.kvHeads, s.headDim}, 52);
  auto ck = randomTensor<double>({ctx, s.kvHeads, s.headDim}, 53, 2.0f);
  auto cv = randomTensor<double>({ctx, s.kvHeads, s.headDim}, 54);
  TensorD out(q.shape()), lse({t, s.heads});
  cpu::attentionForward(c.slices, s, q.data(), k.data(), v.data(), ck.data(),
                        cv.data(), out.data(), lse.data());
  EXPECT_LT(
      normRelativeError(out, naiveAttention(c.slices, s, q, k, v, ck, cv)),
      1e-13);
}

TEST(RuntimeAttention, BackwardMatchesFiniteDifferences) {
  AttentionCase c;
  c.slices = {{4, 0}, {3, 2}}; // small: every element is perturbed
  c.shape = {4, 2, 4};
  const int64_t t = c.tokens(), ctx = c.context();
  const auto &s = c.shape;
  auto q = randomTensor<double>({t, s.heads, s.headDim}, 60, 2.0f);
  auto k = randomTensor<double>({t, s.kvHeads, s.headDim}, 61, 2.0f);
  auto v = randomTensor<double>({t, s.kvHeads, s.headDim}, 62);
  auto ck = randomTensor<double>({ctx, s.kvHeads, s.headDim}, 63, 2.0f);
  auto cv = randomTensor<double>({ctx, s.kvHeads, s.headDim}, 64);
  auto r = randomTensor<double>({t, s.heads, s.headDim}, 65);
  auto loss = [&] {
    TensorD out(q.shape()), lse({t, s.heads});
    cpu::attentionForward(c.slices, s, q.data(), k.data(), v.data(), ck.data(),
                          cv.data(), out.data(), lse.data());
    return dotAll(out, r);
  };
  TensorD out(q.shape()), lse({t, s.heads});
  cpu::attentionForward(c.slices, s, q.data(), k.data(), v.data(), ck.data(),
                        cv.data(), out.data(), lse.data());
  TensorD dq(q.shape()), dk(k.shape()), dv(v.shape()), dck(ck.shape()),
      dcv(cv.shape());
  cpu::attentionBackward(c.slices, s, q.data(), k.data(), v.data(), ck.data(),
                         cv.data(), out.data(), lse.data(), r.data(), dq.data(),
                         dk.data(), dv.data(), dck.data(), dcv.data());
  EXPECT_LT(gradientError(q, dq, loss), 1e-8);
  EXPECT_LT(gradientError(k, dk, loss), 1e-8);
  EXPECT_LT(gradientError(v, dv, loss), 1e-8);
  EXPECT_LT(gradientError(ck, dck, loss), 1e-8);
  EXPECT_LT(gradientError(cv, dcv, loss), 1e-8);
}

TEST(RuntimeAttention, SliceWithContextEqualsTheWholeSequence) {
  // A 150-token sequence (three query blocks) against its two slices, 70
  // then 80 tokens, the second with the first's K/V as context: the rows
  // are equal in fp32, bit for bit (the keys come in the same order and
  // the masked tail of a block adds only zeros); the gradients agree to
  // fp32 rounding (the context's K/V gradients add up in another order).
  const cpu::AttentionHeads s{4, 2, 8};
  const int64_t t = 150, split = 70;
  auto q = randomTensor<float>({t, s.heads, s.headDim}, 70, 2.0f);
  auto k = randomTensor<float>({t, s.kvHeads, s.headDim}, 71, 2.0f);
  auto v = randomTensor<float>({t, s.kvHeads, s.headDim}, 72);
  auto r = randomTensor<float>({t, s.heads, s.headDim}, 73);
  Tensor out(q.shape()), lse({t, s.heads});
  cpu::attentionForward<float>({{t, 0}}, s, q.data(), k.data(), v.data(),
                               nullptr, nullptr, out.data(), lse.data());
  Tensor dq(q.shape()), dk(k.shape()), dv(v.shape());
  cpu::attentionBackward<float>(
      {{t, 0}}, s, q.data(), k.data(), v.data(), nullptr, nullptr, out.data(),
      lse.data(), r.data(), dq.data(), dk.data(), dv.data(), nullptr, nullptr);

  // Slice 1: tokens [0, 70); slice 2: tokens [70, 150) with context 70.
  Tensor q1 = rowRange(q, 0, split), k1 = rowRange(k, 0, split),
         v1 = rowRange(v, 0, split);
  Tensor q2 = rowRange(q, split, t), k2 = rowRange(k, split, t),
         v2 = rowRange(v, split, t);
  Tensor o1(q1.shape()), l1({split, s.heads}), o2(q2.shape()),
      l2({t - split, s.heads});
  cpu::attentionForward<float>({{split, 0}}, s, q1.data(), k1.data(), v1.data(),
                               nullptr, nullptr, o1.data(), l1.data());
  cpu::attentionForward<float>({{t - split, split}}, s, q2.data(), k2.data(),
                               v2.data(), k1.data(), v1.data(), o2.data(),
                               l2.data());
  for (int64_t i = 0; i < split * s.heads * s.headDim; ++i)
    ASSERT_EQ(o1[i], out[i]) << "element " << i;
  for (int64_t i = 0; i < o2.numel(); ++i)
    ASSERT_EQ(o2[i], out[split * s.heads * s.headDim + i]) << "element " << i;

  // Backward: the later slice first; its context gradient flows into the
  // earlier slice's K/V gradient.
  Tensor r1 = rowRange(r, 0, split), r2 = rowRange(r, split, t);
  Tensor dq2(q2.shape()), dk2(k2.shape()), dv2(v2.shape()), dck(k1.shape()),
      dcv(v1.shape());
  cpu::attentionBackward<float>({{t - split, split}}, s, q2.data(), k2.data(),
                                v2.data(), k1.data(), v1.data(), o2.data(),
                                l2.data(), r2.data(), dq2.data(), dk2.data(),
                                dv2.data(), dck.data(), dcv.data());
  Tensor dq1(q1.shape()), dk1(k1.shape()), dv1(v1.shape());
  cpu::attentionBackward<float>({{split, 0}}, s, q1.data(), k1.data(),
                                v1.data(), nullptr, nullptr, o1.data(),
                                l1.data(), r1.data(), dq1.data(), dk1.data(),
                                dv1.data(), nullptr, nullptr);
  for (int64_t i = 0; i < dk1.numel(); ++i) {
    dk1[i] += dck[i];
    dv1[i] += dcv[i];
  }
  EXPECT_LT(normRelativeError(dq1, rowRange(dq, 0, split)), 1e-5);
  EXPECT_LT(normRelativeError(dq2, rowRange(dq, split, t)), 1e-5);
  EXPECT_LT(normRelativeError(dk1, rowRange(dk, 0, split)), 1e-5);
  EXPECT_LT(normRelativeError(dk2, rowRange(dk, split, t)), 1e-5);
  EXPECT_LT(normRelativeError(dv1, rowRange(dv, 0, split)), 1e-5);
  EXPECT_LT(normRelativeError(dv2, rowRange(dv, split, t)), 1e-5);
}

} // namespace
