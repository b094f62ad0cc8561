//===- TransformerShapeTest.cpp - Parameter counts and shape rules --------===//
//
// Parameter counts on tiny shapes whose arithmetic is written out in the
// comments, two published models as sanity checks, and one test per rule of
// checkTransformerShape (each fails if its rule is removed).
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/TransformerShape.h"

#include "test/unit/Common/ShapeFixtures.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace plexus::cost;

using namespace plexus::cost::fixtures;

namespace {

TransformerShape glm45() {
  TransformerShape s;
  s.layers = 92;
  s.denseLayers = 3;
  s.hidden = 5120;
  s.heads = 96;
  s.kvHeads = 8;
  s.headDim = 128;
  s.ffn = 12288;
  s.vocab = 151552;
  s.experts = 160;
  s.topK = 8;
  s.sharedExperts = 1;
  s.moeFfn = 1536;
  s.mtpLayers = 1;
  return s;
}

// The fields of all problems, in order.
std::vector<std::string> fields(const std::vector<ShapeProblem> &problems) {
  std::vector<std::string> out;
  for (const ShapeProblem &p : problems)
    out.push_back(p.field);
  return out;
}

// Exactly one problem, on `field`; returns its message.
std::string onlyProblem(const TransformerShape &s, const std::string &field) {
  std::vector<ShapeProblem> problems = checkTransformerShape(s);
  EXPECT_EQ(fields(problems), std::vector<std::string>{field});
  return problems.empty() ? std::string() : problems.front().message;
}

//===----------------------------------------------------------------------===//
// Arithmetic
//===----------------------------------------------------------------------===//

TEST(TransformerShape, BytesPerElement) {
  EXPECT_EQ(bytesPerElement(DType::BF16), 2);
  EXPECT_EQ(bytesPerElement(DType::FP16), 2);
  EXPECT_EQ(bytesPerElement(DType::FP8), 1);
  EXPECT_EQ(bytesPerElement(DType::FP32), 4);
}

TEST(TransformerShape, HeadDimDerivedOrGiven) {
  TransformerShape s = tinyDense();
  EXPECT_EQ(effectiveHeadDim(s), 4); // 8 / 2
  s.headDim = 6;
  EXPECT_EQ(effectiveHeadDim(s), 6);
  s.headDim = 0;
  s.heads = 0; // invalid, but must not divide by zero
  EXPECT_EQ(effectiveHeadDim(s), 0);
}

TEST(TransformerShape, TinyDenseCounts) {
  TransformerShape s = tinyDense();
  // Q 8*(2*4) = 64, K+V 2*8*(1*4) = 64, O (2*4)*8 = 64.
  EXPECT_EQ(attentionParameters(s), 192);
  // SwiGLU: 3 * 8 * 16.
  EXPECT_EQ(mlpParameters(s, 16), 384);
  // 192 + 384 + norms 2*8.
  EXPECT_EQ(layerParameters(s, 0), 592);
  EXPECT_EQ(layerParameters(s, 1), 592);
  EXPECT_EQ(maxLayerParameters(s), 592);
  // Embedding 10*8 + LM head 10*8 + final norm 8 + 2 * 592.
  EXPECT_EQ(totalParameters(s), 1352);
  EXPECT_EQ(activeParameters(s), 1352); // dense: everything is active
}

TEST(TransformerShape, OutOfRangeLayerIsEmpty) {
  TransformerShape s = tinyDense();
  EXPECT_EQ(layerParameters(s, -1), 0);
  EXPECT_EQ(layerParameters(s, 2), 0);
}

TEST(TransformerShape, TiedEmbeddingsDropTheHead) {
  TransformerShape s = tinyDense();
  s.tiedEmbeddings = true;
  EXPECT_EQ(totalParameters(s), 1352 - 80);
}

TEST(TransformerShape, GeLUHasTwoMatrices) {
  TransformerShape s = tinyDense();
  s.mlp = MlpKind::GeLU;
  EXPECT_EQ(mlpParameters(s, 16), 256);  // 2 * 8 * 16
  EXPECT_EQ(layerParameters(s, 0), 464); // 192 + 256 + 16
  EXPECT_EQ(totalParameters(s), 1096);   // 80 + 80 + 8 + 2 * 464
}

TEST(TransformerShape, ExplicitHeadDim) {
  TransformerShape s = tinyDense();
  s.headDim = 8; // heads * headDim = 16 != hidden: allowed when explicit
  // Q 8*16 = 128, K+V 2*8*8 = 128, O 16*8 = 128.
  EXPECT_EQ(attentionParameters(s), 384);
  EXPECT_TRUE(checkTransformerShape(s).empty());
}

TEST(TransformerShape, TinyMoECounts) {
  TransformerShape s = tinyMoE();
  // Q 64, K+V 2*8*(2*4) = 128, O 64.
  EXPECT_EQ(attentionParameters(s), 256);
  // Layer 0 is dense: 256 + 3*8*16 (384) + 16.
  EXPECT_EQ(layerParameters(s, 0), 656);
  // Layers 1, 2: (4 routed + 1 shared) * 3*8*4 (96) = 480, router 8*4 = 32,
  // 256 + 480 + 32 + 16.
  EXPECT_EQ(layerParameters(s, 1), 784);
  EXPECT_EQ(layerParameters(s, 2), 784);
  EXPECT_EQ(maxLayerParameters(s), 784);
  // MTP: a MoE layer 784 + projection 2*8*8 = 128 + norms 16.
  EXPECT_EQ(mtpLayerParameters(s), 928);
  // 80 + 80 + 8 + 656 + 2*784 + 928.
  EXPECT_EQ(totalParameters(s), 3320);
  // Active MoE layer: (2 + 1) * 96 + router 32 + 256 + 16 = 592;
  // active MTP: 592 + 128 + 16 = 736; 168 + 656 + 2*592 + 736.
  EXPECT_EQ(activeParameters(s), 2744);
}

TEST(TransformerShape, MaxLayerIsDenseWhenDenseIsLarger) {
  TransformerShape s = tinyMoE();
  s.ffn = 64; // dense layer: 256 + 3*8*64 (1536) + 16 = 1808 > 784
  EXPECT_EQ(layerParameters(s, 0), 1808);
  EXPECT_EQ(maxLayerParameters(s), 1808);
}

TEST(TransformerShape, MoEWithoutDenseLayersNeedsNoFfn) {
  TransformerShape s = tinyMoE();
  s.denseLayers = 0;
  s.ffn = 0;
  s.mtpLayers = 0;
  EXPECT_TRUE(checkTransformerShape(s).empty());
  // 168 + 3 * 784.
  EXPECT_EQ(totalParameters(s), 2520);
}

TEST(TransformerShape, Llama7BSanity) {
  TransformerShape s = llama7B();
  EXPECT_TRUE(checkTransformerShape(s).empty());
  // Per layer: 4*4096^2 + 3*4096*11008 + 2*4096 = 202,383,360;
  // 32 layers + 2*32000*4096 + 4096 = 6,738,415,616 (published: 6.74e9).
  EXPECT_EQ(layerParameters(s, 0), 202383360);
  EXPECT_EQ(totalParameters(s), 6738415616LL);
  EXPECT_NEAR(double(totalParameters(s)), 6.74e9, 6.74e9 * 0.005);
}

TEST(TransformerShape, GLM45Sanity) {
  TransformerShape s = glm45();
  EXPECT_TRUE(checkTransformerShape(s).empty());
  // Attention: 2*5120*12288 + 2*5120*1024 = 136,314,880.
  EXPECT_EQ(attentionParameters(s), 136314880);
  // Dense layer: + 3*5120*12288 + 10240 = 325,068,800.
  EXPECT_EQ(layerParameters(s, 0), 325068800);
  // MoE layer: + 161*3*5120*1536 + 5120*160 + 10240 = 3,935,610,880.
  EXPECT_EQ(layerParameters(s, 91), 3935610880LL);
  // Total with the MTP layer and untied embeddings: 356,784,522,240
  // (published: 355B); active: 34,032,829,440 (published: 32B, which
  // matches our count without embeddings and MTP, see docs/cost-model.md).
  EXPECT_EQ(totalParameters(s), 356784522240LL);
  EXPECT_EQ(activeParameters(s), 34032829440LL);
  // docs/cost-model.md's breakdown: embedding + LM head 2*151552*5120 =
  // 1,551,892,480; the MTP layer is a MoE layer plus its 2h^2 projection
  // and two norms: 3,935,610,880 + 2*5120^2 + 2*5120 = 3,988,049,920.
  EXPECT_EQ(2LL * s.vocab * s.hidden, 1551892480LL);
  EXPECT_EQ(mtpLayerParameters(s), 3988049920LL);
  // Without the MTP layer: 352.8e9 total, 33.63e9 active, and 32.08e9
  // active without the embedding and LM head (GLM's published "32B").
  TransformerShape noMtp = s;
  noMtp.mtpLayers = 0;
  EXPECT_EQ(totalParameters(noMtp), 356784522240LL - 3988049920LL);
  EXPECT_NEAR(double(activeParameters(noMtp)) / 1e9, 33.63, 0.005);
  EXPECT_NEAR(double(activeParameters(noMtp) - 1551892480LL) / 1e9, 32.08,
              0.005);
  EXPECT_GE(totalParameters(s), 355e9);
  EXPECT_LE(totalParameters(s), 360e9);
  EXPECT_GE(activeParameters(s), 32e9);
  EXPECT_LE(activeParameters(s), 34.1e9);
}

//===----------------------------------------------------------------------===//
// Rules: each valid baseline is clean, each broken field gives one problem.
//===----------------------------------------------------------------------===//

TEST(TransformerShapeRules, BaselinesAreValid) {
  EXPECT_TRUE(checkTransformerShape(tinyDense()).empty());
  EXPECT_TRUE(checkTransformerShape(tinyMoE()).empty());
}

TEST(TransformerShapeRules, SizesMustBePositive) {
  struct Case {
    const char *field;
    int64_t TransformerShape::*member;
  };
  const Case cases[] = {{"layers", &TransformerShape::layers},
                        {"hidden", &TransformerShape::hidden},
                        {"heads", &TransformerShape::heads},
                        {"kv_heads", &TransformerShape::kvHeads},
                        {"ffn", &TransformerShape::ffn},
                        {"vocab", &TransformerShape::vocab}};
  for (const Case &c : cases) {
    for (int64_t bad : {int64_t(0), int64_t(-3)}) {
      SCOPED_TRACE(std::string(c.field) + " = " + std::to_string(bad));
      TransformerShape s = tinyDense();
      s.*c.member = bad;
      std::vector<ShapeProblem> problems = checkTransformerShape(s);
      // A zero size may trip a dependent rule too (heads = 0 cannot be
      // divided by kv_heads): only require the size's own problem.
      auto own = std::find_if(
          problems.begin(), problems.end(),
          [&](const ShapeProblem &p) { return p.field == c.field; });
      ASSERT_NE(own, problems.end());
      EXPECT_EQ(own->message.rfind(std::string(c.field) + " (" +
                                       std::to_string(bad) +
                                       ") must be positive",
                                   0),
                0u)
          << own->message;
    }
  }
}

TEST(TransformerShapeRules, NegativeHeadDim) {
  TransformerShape s = tinyDense();
  s.headDim = -4;
  EXPECT_EQ(
      onlyProblem(s, "head_dim").rfind("head_dim (-4) must be positive", 0),
      0u);
}

TEST(TransformerShapeRules, FfnNeededByDenseLayersOfMoE) {
  TransformerShape s = tinyMoE(); // dense_layers = 1
  s.ffn = 0;
  EXPECT_EQ(onlyProblem(s, "ffn"),
            "ffn (0) must be positive: the first dense_layers (1) layers use "
            "the dense MLP");
  s.denseLayers = 0;
  s.ffn = -1;
  EXPECT_EQ(onlyProblem(s, "ffn"), "ffn (-1) must not be negative");
}

TEST(TransformerShapeRules, HeadsDivideHiddenWhenHeadDimDerived) {
  TransformerShape s = tinyDense();
  s.hidden = 10; // 10 % 2 == 0 still fine
  EXPECT_TRUE(checkTransformerShape(s).empty());
  s.heads = 4;
  s.kvHeads = 2;
  EXPECT_EQ(onlyProblem(s, "heads"),
            "heads (4) must divide hidden (10) when head_dim is not given; "
            "give head_dim explicitly otherwise");
  s.headDim = 3; // explicit: 4 * 3 != 10 is allowed
  EXPECT_TRUE(checkTransformerShape(s).empty());
}

TEST(TransformerShapeRules, KvHeadsDivideHeads) {
  TransformerShape s = llama7B();
  s.kvHeads = 12;
  EXPECT_EQ(onlyProblem(s, "kv_heads"), "kv_heads (12) must divide heads (32)");
  s.kvHeads = 64; // more KV heads than query heads
  EXPECT_EQ(onlyProblem(s, "kv_heads"), "kv_heads (64) must divide heads (32)");
}

TEST(TransformerShapeRules, NegativeExperts) {
  TransformerShape s = tinyDense();
  s.experts = -2;
  EXPECT_EQ(onlyProblem(s, "experts"), "experts (-2) must not be negative");
}

TEST(TransformerShapeRules, MoEFieldsNeedExperts) {
  struct Case {
    const char *field;
    int64_t TransformerShape::*member;
  };
  const Case cases[] = {{"top_k", &TransformerShape::topK},
                        {"shared_experts", &TransformerShape::sharedExperts},
                        {"moe_ffn", &TransformerShape::moeFfn},
                        {"dense_layers", &TransformerShape::denseLayers}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.field);
    TransformerShape s = tinyDense();
    s.*c.member = 1;
    EXPECT_EQ(onlyProblem(s, c.field),
              std::string(c.field) +
                  " (1) needs a MoE model, but experts is 0");
  }
}

TEST(TransformerShapeRules, TopKBetweenOneAndExperts) {
  TransformerShape s = tinyMoE();
  s.topK = 0;
  EXPECT_EQ(onlyProblem(s, "top_k"),
            "top_k (0) must be between 1 and experts (4)");
  s.topK = 5;
  EXPECT_EQ(onlyProblem(s, "top_k"),
            "top_k (5) must be between 1 and experts (4)");
  s.topK = 4;
  EXPECT_TRUE(checkTransformerShape(s).empty());
}

TEST(TransformerShapeRules, MoEFfnPositive) {
  TransformerShape s = tinyMoE();
  s.moeFfn = 0;
  EXPECT_EQ(onlyProblem(s, "moe_ffn"),
            "moe_ffn (0) must be positive in a MoE model");
}

TEST(TransformerShapeRules, NegativeSharedExperts) {
  TransformerShape s = tinyMoE();
  s.sharedExperts = -1;
  EXPECT_EQ(onlyProblem(s, "shared_experts"),
            "shared_experts (-1) must not be negative");
}

TEST(TransformerShapeRules, DenseLayersBelowLayers) {
  TransformerShape s = tinyMoE(); // 3 layers
  s.denseLayers = 3;
  EXPECT_EQ(onlyProblem(s, "dense_layers"),
            "dense_layers (3) must be less than layers (3): a MoE model needs "
            "at least one MoE layer");
  s.denseLayers = -1;
  EXPECT_EQ(onlyProblem(s, "dense_layers"),
            "dense_layers (-1) must not be negative");
  s.denseLayers = 2;
  EXPECT_TRUE(checkTransformerShape(s).empty());
}

TEST(TransformerShapeRules, NegativeMtpLayers) {
  TransformerShape s = tinyDense();
  s.mtpLayers = -1;
  EXPECT_EQ(onlyProblem(s, "mtp_layers"),
            "mtp_layers (-1) must not be negative");
}

TEST(TransformerShapeRules, ModelTooLargeToCount) {
  TransformerShape s = tinyDense();
  // 2 * 10^9 * 10^9 embedding parameters alone: beyond the 1e15 limit that
  // keeps the 16-bytes-per-parameter arithmetic inside int64.
  s.hidden = 1000000000;
  s.vocab = 1000000000;
  s.heads = 1;
  s.kvHeads = 1;
  std::string message = onlyProblem(s, "model");
  EXPECT_NE(message.find("at most 1e+15"), std::string::npos) << message;
}

TEST(TransformerShapeRules, AllZeroShapeReportsWithoutCrashing) {
  TransformerShape s; // every field 0
  EXPECT_EQ(fields(checkTransformerShape(s)),
            (std::vector<std::string>{"layers", "hidden", "heads", "kv_heads",
                                      "ffn", "vocab"}));
  // The arithmetic stays defined on it.
  EXPECT_EQ(totalParameters(s), 0);
  EXPECT_EQ(maxLayerParameters(s), 0);
  EXPECT_EQ(mtpLayerParameters(s), 0);
}

} // namespace
