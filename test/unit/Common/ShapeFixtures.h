//===- ShapeFixtures.h - Transformer shapes for the cost tests --*- C++ -*-===//
//
// Small shapes whose parameter counts are worked out by hand in
// TransformerShapeTest, and LLaMA-7B, shared by the cost model's tests.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_TEST_UNIT_COMMON_SHAPEFIXTURES_H
#define PLEXUS_TEST_UNIT_COMMON_SHAPEFIXTURES_H

#include "dialects/Common/TransformerShape.h"

namespace plexus::cost::fixtures {

/// Dense: 2 layers, h = 8, 2 query heads, 1 KV head, head_dim derived = 4,
/// SwiGLU ffn 16, vocab 10, untied embeddings. A layer is 192 (attention)
/// + 384 (MLP) + 16 (norms) = 592 parameters; the whole model 1352.
inline TransformerShape tinyDense() {
  TransformerShape s;
  s.layers = 2;
  s.hidden = 8;
  s.heads = 2;
  s.kvHeads = 1;
  s.ffn = 16;
  s.vocab = 10;
  return s;
}

/// MoE: 3 layers of which the first is dense, h = 8, 2 heads, 2 KV heads,
/// head_dim 4, dense ffn 16, 4 experts top-2, 1 shared, moe_ffn 4, 1 MTP
/// layer. The largest (MoE) layer is 784 parameters, the model 3320.
inline TransformerShape tinyMoE() {
  TransformerShape s;
  s.layers = 3;
  s.hidden = 8;
  s.heads = 2;
  s.kvHeads = 2;
  s.ffn = 16;
  s.vocab = 10;
  s.experts = 4;
  s.topK = 2;
  s.sharedExperts = 1;
  s.moeFfn = 4;
  s.denseLayers = 1;
  s.mtpLayers = 1;
  return s;
}

/// LLaMA-7B: 32 layers, h = 4096, 32 heads, SwiGLU ffn 11008, vocab 32000;
/// the largest layer has 202,383,360 parameters.
inline TransformerShape llama7B() {
  TransformerShape s;
  s.layers = 32;
  s.hidden = 4096;
  s.heads = 32;
  s.kvHeads = 32;
  s.ffn = 11008;
  s.vocab = 32000;
  return s;
}

} // namespace plexus::cost::fixtures

#endif // PLEXUS_TEST_UNIT_COMMON_SHAPEFIXTURES_H
