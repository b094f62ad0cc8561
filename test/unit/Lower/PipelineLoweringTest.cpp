//===- PipelineLoweringTest.cpp - DPP pipelines into per-rank programs ----===//
//
// The pipelined lowering on a 4-layer toy model whose numbers are worked
// out by hand below, and run through the event simulator: op counts and
// FLOPs of one chunk, the context's share of attention, checkpointing and
// the K/V it cannot drop, the 1F1B order of every stage (DPP's rule), no
// deadlock for many pipeline shapes, the slice order rule, the closed-form
// bubble of a 1F1B pipeline, and every rejected plan.
//
// The toy model (as StepLoweringTest): h = 16, 4 heads of 4, 2 KV heads,
// GeLU ffn 64, vocab 32, bf16. A layer has 768 attention + 2048 MLP + 32
// norm = 2848 parameters; the embedding and the untied head 32 x 16 = 512
// each, the final norm 16 (carried with layer 0 and the last layer by the
// collectives that move parameters or gradients). Per token and layer:
// 2 * (768 + 2048) = 5632 linear forward FLOPs; a slice of s tokens after
// C context tokens adds 2 * 2 * 4 * 4 * ((C + s)^2 - C^2) / 2 =
// 32 ((C + s)^2 - C^2) of attention core. A backward costs twice the
// forward plus the core once more (flash attention recomputes its scores):
// 2 * forward + 32 ((C + s)^2 - C^2). Activations kept by a layer that is
// not checkpointed, the selective accounting (the scores are never
// stored): 2 * 32 (norm inputs) + 144 (attention: 32 input, 48 Q and K,
// 16 V, 32 O input, 16 mask) + 304 (MLP: 32 input, 2 * 128 inner, 16 mask)
// = 512 bytes per token, whatever the context; the input 32 and K and V 32
// bytes per token. The output head runs after the model's last layer:
// 2 * 16 * 32 = 1024 forward FLOPs per token, twice that in the backward,
// never recomputed; the loss keeps the fp32 softmax of its logits, 32 * 4 =
// 128 bytes per token, from forward to backward, checkpointed or not.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/StepLowering.h"

#include "passes/DynamicPP/PipelineSchedule.h"
#include "passes/Simulate/SliceOrder.h"
#include "passes/StepModel/LayerWork.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <numeric>
#include <random>
#include <set>
#include <tuple>
#include <utility>

using namespace plexus;
using namespace plexus::lower;
using namespace plexus::step;

namespace {

cost::TransformerShape toyShape(int64_t layers = 4) {
  cost::TransformerShape s;
  s.layers = layers;
  s.hidden = 16;
  s.heads = 4;
  s.kvHeads = 2;
  s.ffn = 64;
  s.vocab = 32;
  s.mlp = cost::MlpKind::GeLU;
  return s;
}

/// 1 TFLOP/s at efficiency 1: seconds = FLOPs / 1e12.
TrainModel toyModel(int64_t zero = 3, int64_t layers = 4) {
  TrainModel m;
  m.shape = toyShape(layers);
  m.chip.name = "test";
  m.chip.bf16Flops = 1e12;
  m.chip.hbmBytes = int64_t(1) << 34;
  m.efficiency = 1.0;
  m.zero = zero;
  return m;
}

ChunkSlice whole(int64_t seq, int64_t length) { return {seq, 0, length}; }

PlannedChunk chunkOf(std::vector<ChunkSlice> slices) {
  PlannedChunk c;
  c.slices = std::move(slices);
  return c;
}

/// DPP's pipeline order over units (a split sequence's chunks in slice
/// order, or one packed chunk): forward unit after unit, backward the same
/// units each reversed, N_split the longest unit.
PlannedPipeline
pipelineOf(const std::vector<std::vector<PlannedChunk>> &units) {
  PlannedPipeline p;
  for (const auto &unit : units) {
    const int64_t first = static_cast<int64_t>(p.chunks.size());
    for (const PlannedChunk &c : unit)
      p.chunks.push_back(c);
    for (int64_t i = static_cast<int64_t>(unit.size()); i-- > 0;)
      p.backward.push_back(first + i);
    p.nSplit = std::max<int64_t>(p.nSplit, static_cast<int64_t>(unit.size()));
  }
  return p;
}

/// A sequence of `length` tokens cut into `pieces` equal chunks.
std::vector<PlannedChunk> splitUnit(int64_t seq, int64_t length,
                                    int64_t pieces) {
  std::vector<PlannedChunk> unit;
  for (int64_t i = 0; i < pieces; ++i) {
    PlannedChunk c =
        chunkOf({{seq, i * length / pieces, (i + 1) * length / pieces}});
    c.kind = i + 1 == pieces ? "hybrid" : "split";
    unit.push_back(c);
  }
  return unit;
}

PipelinedStepPlan planOf(int64_t sp, int64_t stages,
                         std::vector<int64_t> lengths,
                         std::vector<PlannedPipeline> pipelines) {
  PipelinedStepPlan plan;
  plan.strategy = "dpp";
  plan.spDegree = sp;
  plan.stages = stages;
  plan.world = sp * stages;
  plan.lengths = std::move(lengths);
  plan.pipelines = std::move(pipelines);
  return plan;
}

/// remat[stage][position] = value everywhere.
void rematAll(PipelinedStepPlan &plan, int64_t value) {
  for (PlannedPipeline &p : plan.pipelines)
    p.remat.assign(static_cast<size_t>(plan.stages),
                   std::vector<int64_t>(p.chunks.size(), value));
}

sim::SimResult simulate(const LoweredStep &step, double commSeconds) {
  sim::SimOptions options;
  options.commTime = [commSeconds](const prog::CommRequest &) {
    return prog::CommTime(commSeconds);
  };
  return sim::simulate(step.programs, options);
}

std::vector<const prog::Op *> computeOps(const prog::Program &p,
                                        prog::ComputeKind kind) {
  std::vector<const prog::Op *> out;
  for (const prog::Op &op : p.ops)
    if (op.kind == prog::OpKind::Compute && op.computeKind == kind)
      out.push_back(&op);
  return out;
}

size_t countOps(const prog::Program &p, prog::OpKind kind) {
  size_t n = 0;
  for (const prog::Op &op : p.ops)
    n += op.kind == kind ? 1 : 0;
  return n;
}

size_t countCollectives(const prog::Program &p, prog::CommKind kind, bool async) {
  size_t n = 0;
  for (const prog::Op &op : p.ops)
    n += op.kind == prog::OpKind::Collective && op.commKind == kind &&
                 op.async == async
             ? 1
             : 0;
  return n;
}

/// The (pipeline, position) of a compute op, from its label.
std::pair<int, int> chunkOfLabel(const std::string &label) {
  int pipeline = -1, position = -1;
  std::sscanf(label.c_str(), "%*s p%d c%d", &pipeline, &position);
  return {pipeline, position};
}

/// The stage's passes of pipeline `pipeline` as a 1F1B order (k forward of
/// position k, -(k + 1) its backward), read from rank `rank`'s program: a
/// pass is its compute ops on the stage's first layer.
std::vector<int64_t> passOrder(const prog::Program &program, int pipeline,
                               int64_t firstLayer) {
  std::vector<int64_t> order;
  for (const prog::Op &op : program.ops) {
    if (op.kind != prog::OpKind::Compute || op.layerBegin != firstLayer ||
        op.computeKind == prog::ComputeKind::Recompute)
      continue;
    auto [p, c] = chunkOfLabel(op.label);
    if (p != pipeline)
      continue;
    order.push_back(op.computeKind == prog::ComputeKind::Fwd ? c : -(c + 1));
  }
  return order;
}

TEST(PipelineLowering, OneChunkOpsAndFlopsByHand) {
  // 2 stages x 2 SP, ZeRO-3; one packed chunk of sequences of 64 and 32.
  PipelinedStepPlan plan = planOf(
      2, 2, {64, 32}, {pipelineOf({{chunkOf({whole(0, 64), whole(1, 32)})}})});
  LoweredStep step = lowerPipelinedStep(plan, toyModel());
  ASSERT_TRUE(step.ok()) << step.error;
  ASSERT_EQ(step.programs.size(), 4u);

  // Per layer and rank: (5632 * 96 + 32 (64^2 + 32^2)) / 2 = 352256 forward
  // FLOPs, of which 32 (64^2 + 32^2) / 2 = 81920 attention core; backward
  // 2 * 352256 + 81920 = 786432. 2 layers a stage, 4 ranks: 8 * (352256 +
  // 786432) = 9109504. Layer 3 (the last) adds the head, 1024 * 96 / 2 =
  // 49152 forward and 98304 backward on each of stage 1's two ranks:
  // 9109504 + 2 * 147456 = 9404416.
  const double fwd = 352256, bwd = 786432, head = 49152;
  EXPECT_DOUBLE_EQ(bwd, 2 * fwd + 81920);
  EXPECT_DOUBLE_EQ(step.totalFlops, 9404416);
  EXPECT_DOUBLE_EQ(step.totalFlops, 4 * 2 * (fwd + bwd) + 2 * 3 * head);
  EXPECT_DOUBLE_EQ(prog::totalComputeFlops(step.programs), step.totalFlops);

  for (int64_t r = 0; r < 4; ++r) {
    const prog::Program &p = step.programs[static_cast<size_t>(r)];
    const int64_t stage = r / 2;
    auto fwds = computeOps(p, prog::ComputeKind::Fwd);
    auto bwds = computeOps(p, prog::ComputeKind::Bwd);
    ASSERT_EQ(fwds.size(), 2u);
    ASSERT_EQ(bwds.size(), 2u);
    EXPECT_TRUE(computeOps(p, prog::ComputeKind::Recompute).empty());
    for (int i = 0; i < 2; ++i) {
      const int64_t layer = 2 * stage + i;
      const prog::Op &f = *fwds[static_cast<size_t>(i)];
      EXPECT_EQ(f.label, "fwd p0 c0 layers " + std::to_string(layer) + "-" +
                             std::to_string(layer + 1));
      EXPECT_EQ(f.stage, stage);
      EXPECT_EQ(f.layerBegin, layer);
      EXPECT_EQ(f.layerEnd, layer + 1);
      const double withHead = layer == 3 ? head : 0;
      EXPECT_DOUBLE_EQ(f.flops, fwd + withHead);
      EXPECT_DOUBLE_EQ(f.seconds, (fwd + withHead) / 1e12);
      EXPECT_EQ(f.seqs, (std::vector<int64_t>{0, 1}));
      EXPECT_EQ(f.slices, (std::vector<int64_t>{0, 0}));
      // 512 * 96 / 2 bytes kept (no scores, whatever the sequences'
      // lengths); whole sequences: no dK/dV.
      // Layer 3 adds the logits, 128 * 96 / 2.
      const int64_t logits = layer == 3 ? 6144 : 0;
      EXPECT_EQ(f.memoryDeltaBytes, 24576 + logits);
      // Backward in reverse layer order.
      const prog::Op &b = *bwds[static_cast<size_t>(1 - i)];
      EXPECT_EQ(b.layerBegin, layer);
      EXPECT_DOUBLE_EQ(b.flops, bwd + 2 * withHead);
      EXPECT_DOUBLE_EQ(b.seconds, (bwd + 2 * withHead) / 1e12);
      EXPECT_EQ(b.memoryDeltaBytes, -24576 - logits);
    }
    // ZeRO-3 once per step (a dynamic pipeline's tailored FSDP): a gather
    // ahead of each layer of the rank's first forward, a wait before each
    // of those layers, a reduce-scatter after each layer of its last
    // backward (one chunk: the only forward and backward); an all-to-all
    // per layer and pass of 48 tokens * 48 elements * 2 bytes. Each rank's
    // shard of a layer is 2848 parameters * 2 bytes / 2 = 2848 bytes; layer
    // 0 adds its half of the embedding, 512 * 2 / 2 = 512, and layer 3
    // (the model's last) its half of the final norm and the head,
    // (16 + 512) * 2 / 2 = 528.
    EXPECT_EQ(countCollectives(p, prog::CommKind::AllGather, true), 2u);
    EXPECT_EQ(countCollectives(p, prog::CommKind::ReduceScatter, true), 2u);
    EXPECT_EQ(countOps(p, prog::OpKind::Wait), 2u);
    EXPECT_EQ(countCollectives(p, prog::CommKind::AllToAll, false), 4u);
    EXPECT_EQ(countOps(p, prog::OpKind::Send), 1u);
    EXPECT_EQ(countOps(p, prog::OpKind::Recv), 1u);
    EXPECT_EQ(p.ops.size(), 16u);
    for (const prog::Op &op : p.ops) {
      if (op.kind == prog::OpKind::Collective) {
        EXPECT_EQ(op.ranks, (std::vector<int64_t>{2 * stage, 2 * stage + 1}));
        if (op.commKind == prog::CommKind::AllToAll) {
          EXPECT_EQ(op.bytes, 4608);
        } else {
          EXPECT_TRUE(op.carriesLayers);
          EXPECT_EQ(op.layerEnd, op.layerBegin + 1);
          EXPECT_EQ(op.layerBegin / 2, stage);
          const int64_t shard = 2848 + (op.layerBegin == 0 ? 512 : 0) +
                                (op.layerBegin == 3 ? 528 : 0);
          if (op.commKind == prog::CommKind::AllGather) {
            EXPECT_EQ(op.bytes, shard) << op.layerBegin;
          } else {
            EXPECT_EQ(op.commKind, prog::CommKind::ReduceScatter);
            EXPECT_EQ(op.bytes, 2 * shard) << op.layerBegin;
          }
        }
      }
      if (op.kind == prog::OpKind::Send || op.kind == prog::OpKind::Recv) {
        EXPECT_EQ(op.bytes, 48 * 16 * 2); // tokens / sp * hidden * e
        EXPECT_EQ(op.peer, stage == 0 ? r + 2 : r - 2);
      }
    }
    // Model states of 2 layers plus the embedding (stage 0: 6208
    // parameters) or the final norm and the head (stage 1: 6224), at 16
    // bytes over 2 ranks, plus the stage's whole bf16 weights and
    // gradients, held for the step.
    const int64_t params = 2 * 2848 + (stage == 0 ? 512 : 16 + 512);
    EXPECT_EQ(params, stage == 0 ? 6208 : 6224);
    EXPECT_EQ(p.initialMemoryBytes, 16 * params / 2 + 2 * params * 2);
    TrainModel once = toyModel();
    once.zeroOncePerStep = true;
    EXPECT_EQ(p.initialMemoryBytes,
              residentBytes(once, GroupLayout{2, 1, 1, 2}, stage, 2));
  }
  // Stage 0 sends its activations (tag 0) and receives gradients (tag 1).
  const prog::Program &p0 = step.programs[0];
  for (const prog::Op &op : p0.ops) {
    if (op.kind == prog::OpKind::Send) {
      EXPECT_EQ(op.tag, 0);
    } else if (op.kind == prog::OpKind::Recv) {
      EXPECT_EQ(op.tag, 1);
    }
  }
}

TEST(PipelineLowering, ContextAddsAttentionFlops) {
  // Sequence 0 of 128 tokens in two chunks: [0, 64) and [64, 128).
  PipelinedStepPlan plan =
      planOf(2, 2, {128}, {pipelineOf({splitUnit(0, 128, 2)})});
  LoweredStep step = lowerPipelinedStep(plan, toyModel());
  ASSERT_TRUE(step.ok()) << step.error;
  for (size_t r = 0; r < step.programs.size(); ++r) {
    const prog::Program &p = step.programs[r];
    // Stage 1's last layer (layer 3) runs the head: 1024 * 64 / 2 forward
    // FLOPs per slice, twice that backward.
    const double headBwd = r >= 2 ? 2 * 32768 : 0;
    // and keeps the slice's logits, 128 * 64 / 2 bytes.
    const int64_t logits = r >= 2 ? 4096 : 0;
    auto fwds = computeOps(p, prog::ComputeKind::Fwd);
    ASSERT_EQ(fwds.size(), 4u); // two chunks x two layers
    // First slice: (5632 * 64 + 32 * 64^2) / 2; the second attends to 64
    // context tokens: (5632 * 64 + 32 (128^2 - 64^2)) / 2.
    EXPECT_DOUBLE_EQ(fwds[0]->flops, 245760);
    EXPECT_DOUBLE_EQ(fwds[2]->flops, 376832);
    EXPECT_DOUBLE_EQ(fwds[2]->flops - fwds[0]->flops,
                     32.0 * (128 * 128 - 2 * 64 * 64) / 2);
    EXPECT_EQ(fwds[0]->slices, (std::vector<int64_t>{0}));
    EXPECT_EQ(fwds[2]->slices, (std::vector<int64_t>{1}));
    // Kept: 512 * 64 / 2 for either slice (no scores are stored, so the
    // context adds no activations), plus dK / dV of the split slice:
    // 32 * 64 / 2.
    EXPECT_EQ(fwds[0]->memoryDeltaBytes, 16384 + 1024);
    EXPECT_EQ(fwds[2]->memoryDeltaBytes, 16384 + 1024);
    // The backward runs the second slice first. Second slice: 2 * 376832
    // + 32 (128^2 - 64^2) / 2 = 753664 + 196608; first: 2 * 245760 +
    // 32 * 64^2 / 2 = 491520 + 65536. The context's attention counts three
    // times: twice in the backward and once recomputed.
    auto bwds = computeOps(p, prog::ComputeKind::Bwd);
    ASSERT_EQ(bwds.size(), 4u);
    EXPECT_EQ(bwds[0]->slices, (std::vector<int64_t>{1}));
    EXPECT_DOUBLE_EQ(bwds[0]->flops, 950272 + headBwd);
    EXPECT_EQ(bwds[0]->memoryDeltaBytes, -(16384 + 1024) - logits);
    EXPECT_EQ(bwds[3]->slices, (std::vector<int64_t>{0}));
    EXPECT_DOUBLE_EQ(bwds[3]->flops, 557056);
    EXPECT_DOUBLE_EQ(bwds[0]->flops - headBwd - bwds[3]->flops,
                     3 * 32.0 * (128 * 128 - 2 * 64 * 64) / 2);
    EXPECT_FALSE(sim::checkSliceOrder(p).has_value());
  }
}

TEST(PipelineLowering, CheckpointedChunksRecomputeAndKeepTheirKv) {
  PipelinedStepPlan plan =
      planOf(2, 2, {128}, {pipelineOf({splitUnit(0, 128, 2)})});
  LoweredStep plain = lowerPipelinedStep(plan, toyModel());
  rematAll(plan, 2); // every layer of both stages, for both chunks
  LoweredStep full = lowerPipelinedStep(plan, toyModel());
  ASSERT_TRUE(plain.ok()) << plain.error;
  ASSERT_TRUE(full.ok()) << full.error;

  for (size_t r = 0; r < full.programs.size(); ++r) {
    const prog::Program &p = full.programs[r];
    const double headBwd = r >= 2 ? 2 * 32768 : 0; // as above
    const int64_t logits = r >= 2 ? 4096 : 0;      // as above
    auto fwds = computeOps(p, prog::ComputeKind::Fwd);
    auto recs = computeOps(p, prog::ComputeKind::Recompute);
    ASSERT_EQ(fwds.size(), 4u);
    ASSERT_EQ(recs.size(), 4u);
    // A checkpointed layer keeps its input (32 * 64 / 2), the split
    // slice's K and V (32 * 64 / 2) and its dK / dV (the same); layer 3
    // also the logits.
    for (size_t i = 0; i < fwds.size(); ++i)
      EXPECT_EQ(fwds[i]->memoryDeltaBytes, 3 * 1024 + (i % 2 ? logits : 0));
    // Recompute: the forward again, backward order (second slice first),
    // restoring what the layer did not keep (512 * 64 / 2 less the input
    // and K / V); the backward frees it all, and costs what it costs
    // without checkpointing (2 * forward + core, ContextAddsAttentionFlops).
    // The head is not recomputed.
    EXPECT_DOUBLE_EQ(recs[0]->flops, 376832);
    EXPECT_EQ(recs[0]->memoryDeltaBytes, 16384 - 2048);
    EXPECT_DOUBLE_EQ(recs[3]->flops, 245760);
    EXPECT_EQ(recs[3]->memoryDeltaBytes, 16384 - 2048);
    auto bwds = computeOps(p, prog::ComputeKind::Bwd);
    ASSERT_EQ(bwds.size(), 4u);
    EXPECT_DOUBLE_EQ(bwds[0]->flops, 950272 + headBwd);
    EXPECT_EQ(bwds[0]->memoryDeltaBytes, -(16384 + 1024) - logits);
    EXPECT_DOUBLE_EQ(bwds[3]->flops, 557056);
    int64_t net = 0;
    for (const prog::Op &op : p.ops)
      net += op.memoryDeltaBytes;
    EXPECT_EQ(net, 0);
    EXPECT_FALSE(sim::checkSliceOrder(p).has_value());
    // Each recompute reruns the forward's all-to-all just before it.
    for (size_t i = 1; i < p.ops.size(); ++i)
      if (p.ops[i].kind == prog::OpKind::Compute &&
          p.ops[i].computeKind == prog::ComputeKind::Recompute) {
        EXPECT_EQ(p.ops[i - 1].kind, prog::OpKind::Collective);
        EXPECT_EQ(p.ops[i - 1].commKind, prog::CommKind::AllToAll);
      }
  }
  // Per layer and rank without checkpointing: forwards 245760 + 376832 =
  // 622592, backwards 557056 + 950272 = 1507328; 2 layers a stage, 4 ranks;
  // the head on stage 1's 2 ranks, 3 * 32768 per slice. Checkpointing every
  // layer adds one forward per layer (the head is not recomputed).
  EXPECT_DOUBLE_EQ(plain.totalFlops,
                   4 * 2 * (622592 + 1507328) + 2 * 2 * 3 * 32768);
  EXPECT_DOUBLE_EQ(full.totalFlops, plain.totalFlops + 4 * 2 * 622592);

  sim::SimResult a = simulate(plain, 1e-7), b = simulate(full, 1e-7);
  ASSERT_TRUE(a.ok()) << a.error;
  ASSERT_TRUE(b.ok()) << b.error;
  for (size_t r = 0; r < a.ranks.size(); ++r)
    EXPECT_LT(b.ranks[r].peakMemoryBytes, a.ranks[r].peakMemoryBytes);
  // Both chunks stay in flight on stage 0: their checkpointed layers still
  // hold inputs, K / V and dK / dV, 2 layers x 2 chunks x 3072 bytes, plus
  // the first backward's recompute, 16384 - 2048. Without checkpointing:
  // 2 layers x 2 chunks x (16384 + 1024).
  EXPECT_EQ(b.ranks[0].peakMemoryBytes,
            full.programs[0].initialMemoryBytes + 2 * 2 * 3072 + 14336);
  EXPECT_EQ(a.ranks[0].peakMemoryBytes,
            plain.programs[0].initialMemoryBytes + 2 * 2 * 17408);

  // A whole sequence checkpointed keeps its input only: no K / V.
  PipelinedStepPlan packed =
      planOf(2, 2, {64}, {pipelineOf({{chunkOf({whole(0, 64)})}})});
  rematAll(packed, 2);
  LoweredStep p = lowerPipelinedStep(packed, toyModel());
  ASSERT_TRUE(p.ok()) << p.error;
  for (const prog::Op *f : computeOps(p.programs[0], prog::ComputeKind::Fwd))
    EXPECT_EQ(f->memoryDeltaBytes, 1024);
}

TEST(PipelineLowering, PartialRematTakesTheStagesFirstLayers) {
  PipelinedStepPlan plan =
      planOf(1, 1, {128}, {pipelineOf({splitUnit(0, 128, 2)})});
  rematAll(plan, 0);
  plan.pipelines[0].remat[0] = {3, 1}; // chunk 0: layers 0-2; chunk 1: 0
  for (int64_t perOp : {1, 2}) {
    LoweringOptions options;
    options.layersPerOp = perOp;
    LoweredStep step = lowerPipelinedStep(plan, toyModel(), options);
    ASSERT_TRUE(step.ok()) << step.error;
    std::vector<std::tuple<int, int64_t, int64_t>> recomputed;
    for (const prog::Op *op :
         computeOps(step.programs[0], prog::ComputeKind::Recompute))
      recomputed.emplace_back(chunkOfLabel(op->label).second, op->layerBegin,
                              op->layerEnd);
    if (perOp == 1)
      EXPECT_EQ(recomputed, (std::vector<std::tuple<int, int64_t, int64_t>>{
                                {1, 0, 1}, {0, 2, 3}, {0, 1, 2}, {0, 0, 1}}));
    else // a group of layers recomputes only its checkpointed ones
      EXPECT_EQ(recomputed, (std::vector<std::tuple<int, int64_t, int64_t>>{
                                {1, 0, 1}, {0, 2, 3}, {0, 0, 2}}));
    EXPECT_FALSE(sim::checkSliceOrder(step.programs[0]).has_value());
  }
}

TEST(PipelineLowering, StagesRunDppOneFOneBOrders) {
  // One 3-chunk sequence, one 2-chunk sequence, two packed chunks.
  PlannedPipeline p = pipelineOf({splitUnit(0, 96, 3),
                                  splitUnit(1, 64, 2),
                                  {chunkOf({whole(2, 40)})},
                                  {chunkOf({whole(3, 24), whole(4, 8)})}});
  for (int64_t stages : {1, 2, 4}) {
    PipelinedStepPlan plan = planOf(1, stages, {96, 64, 40, 24, 8}, {p});
    LoweredStep step = lowerPipelinedStep(plan, toyModel());
    ASSERT_TRUE(step.ok()) << step.error;
    dpp::PipelineOrder order;
    order.chunks = {0, 1, 2, 3, 4, 5, 6};
    order.backward = p.backward;
    order.nSplit = p.nSplit;
    for (int64_t s = 0; s < stages; ++s) {
      auto expected = dpp::oneFOneBStageOrder(stages, s, order);
      ASSERT_TRUE(expected) << expected.error;
      EXPECT_EQ(passOrder(step.programs[static_cast<size_t>(s)], 0,
                          stageLayers(4, stages, s).first),
                *expected)
          << "stage " << s << " of " << stages;
    }
  }
}

TEST(PipelineLowering, NoDeadlockForManyPipelineShapes) {
  struct Shape {
    std::vector<std::vector<std::vector<PlannedChunk>>> pipelines;
  };
  const std::vector<int64_t> lengths = {256, 128, 64, 48, 32, 16, 8, 96};
  std::vector<Shape> shapes;
  for (int64_t nSplit : {1, 2, 4}) {
    // A split sequence (or a packed chunk) with 0 .. 5 packed chunks after
    // it, so warm-ups both shorter and longer than the pipeline.
    for (int64_t extra : {0, 1, 2, 5}) {
      std::vector<std::vector<PlannedChunk>> units;
      units.push_back(nSplit == 1
                          ? std::vector<PlannedChunk>{chunkOf({whole(0, 256)})}
                          : splitUnit(0, 256, nSplit));
      for (int64_t k = 0; k < extra; ++k)
        units.push_back(
            {chunkOf({whole(2 + k, lengths[static_cast<size_t>(2 + k)])})});
      shapes.push_back({{units}});
    }
    // Two pipelines: the split sequence with a hybrid tail, then the rest.
    std::vector<PlannedChunk> first = splitUnit(0, 256, nSplit);
    first.back().slices.push_back(whole(4, 32));
    shapes.push_back({{{first, {chunkOf({whole(1, 128)})}},
                       {splitUnit(7, 96, nSplit == 1 ? 2 : nSplit),
                        {chunkOf({whole(2, 64), whole(3, 48)})},
                        {chunkOf({whole(5, 16), whole(6, 8)})}}}});
  }
  for (int64_t sp : {1, 2})
    for (int64_t stages : {1, 2, 4})
      for (int64_t perOp : {1, 3})
        for (int64_t zero : {1, 3})
          for (size_t i = 0; i < shapes.size(); ++i) {
            std::vector<PlannedPipeline> pipelines;
            for (const auto &units : shapes[i].pipelines)
              pipelines.push_back(pipelineOf(units));
            PipelinedStepPlan plan = planOf(sp, stages, lengths, pipelines);
            if (i % 2 == 1)
              rematAll(plan, 1);
            LoweringOptions options;
            options.layersPerOp = perOp;
            LoweredStep step =
                lowerPipelinedStep(plan, toyModel(zero), options);
            const std::string where =
                "sp " + std::to_string(sp) + " stages " +
                std::to_string(stages) + " per op " + std::to_string(perOp) +
                " zero " + std::to_string(zero) + " shape " + std::to_string(i);
            ASSERT_TRUE(step.ok()) << where << ": " << step.error;
            sim::SimResult result = simulate(step, 1e-6);
            ASSERT_TRUE(result.ok()) << where << ": " << result.error;
            for (size_t r = 0; r < step.programs.size(); ++r) {
              auto v = sim::checkSliceOrder(step.programs[r]);
              EXPECT_FALSE(v.has_value())
                  << where << " rank " << r << ": " << v->message;
              // Every activation is released by the end of the step, and
              // no rank sends one tag to one peer twice.
              int64_t net = 0;
              std::set<std::pair<int64_t, int64_t>> sends;
              for (const prog::Op &op : step.programs[r].ops) {
                net += op.memoryDeltaBytes;
                if (op.kind == prog::OpKind::Send) {
                  EXPECT_TRUE(sends.insert({op.peer, op.tag}).second)
                      << where << ": tag " << op.tag << " sent twice";
                }
              }
              EXPECT_EQ(net, 0) << where;
            }
            EXPECT_NEAR(prog::totalComputeFlops(step.programs), step.totalFlops,
                        1e-6 * step.totalFlops);
          }
}

// Random DPP pipelines: units of 1 to 4 chunks (hybrid tails included),
// backward orders that run the units in any order, N_split from the
// longest unit up, random checkpointing and several pipelines a step. Every
// plan the 1F1B rule accepts lowers to programs that simulate and keep the
// slice order.
TEST(PipelineLowering, RandomPipelinesNeverDeadlock) {
  std::mt19937 rng(12345);
  auto pick = [&](uint32_t n) { return static_cast<int64_t>(rng() % n); };
  int lowered = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t sp = 1 + pick(2), stages = 1 << pick(3);
    std::vector<int64_t> lengths;
    std::vector<PlannedPipeline> pipelines;
    const int64_t pipelineCount = 1 + pick(3);
    for (int64_t i = 0; i < pipelineCount; ++i) {
      std::vector<std::vector<PlannedChunk>> units;
      const int64_t unitCount = 1 + pick(5);
      for (int64_t u = 0; u < unitCount; ++u) {
        const int64_t seq = static_cast<int64_t>(lengths.size());
        const int64_t pieces = 1 + pick(4);
        lengths.push_back(8 * pieces * (1 + pick(4)));
        units.push_back(splitUnit(seq, lengths.back(), pieces));
        if (pick(3) == 0) { // a hybrid tail, or a packed chunk of two
          lengths.push_back(8 * (1 + pick(4)));
          units.back().back().slices.push_back(whole(seq + 1, lengths.back()));
        }
      }
      PlannedPipeline p = pipelineOf(units);
      // Backward: the units in a shuffled order, each reversed.
      std::vector<size_t> unitOrder(units.size());
      std::iota(unitOrder.begin(), unitOrder.end(), size_t(0));
      for (size_t k = unitOrder.size(); k > 1 && pick(2) == 0; --k)
        std::swap(
            unitOrder[k - 1],
            unitOrder[static_cast<size_t>(pick(static_cast<uint32_t>(k)))]);
      std::vector<int64_t> firstOf;
      int64_t at = 0;
      for (const auto &unit : units) {
        firstOf.push_back(at);
        at += static_cast<int64_t>(unit.size());
      }
      p.backward.clear();
      for (size_t u : unitOrder)
        for (int64_t c = static_cast<int64_t>(units[u].size()); c-- > 0;)
          p.backward.push_back(firstOf[u] + c);
      p.nSplit += pick(3);
      pipelines.push_back(p);
    }
    PipelinedStepPlan plan = planOf(sp, stages, lengths, pipelines);
    for (PlannedPipeline &p : plan.pipelines) {
      p.remat.assign(static_cast<size_t>(stages), {});
      for (int64_t s = 0; s < stages; ++s)
        for (size_t k = 0; k < p.chunks.size(); ++k)
          p.remat[static_cast<size_t>(s)].push_back(
              pick(static_cast<uint32_t>(4 / stages + 1)));
    }
    LoweringOptions options;
    options.layersPerOp = 1 + pick(2);
    LoweredStep step = lowerPipelinedStep(plan, toyModel(), options);
    if (!step.ok()) {
      // Only a backward order that outruns the warm-up is refused.
      EXPECT_NE(step.error.find("before its forward"), std::string::npos)
          << "trial " << trial << ": " << step.error;
      continue;
    }
    ++lowered;
    sim::SimResult result =
        simulate(step, 1e-6 * static_cast<double>(1 + pick(3)));
    ASSERT_TRUE(result.ok()) << "trial " << trial << ": " << result.error;
    for (const prog::Program &program : step.programs)
      EXPECT_FALSE(sim::checkSliceOrder(program).has_value())
          << "trial " << trial;
  }
  EXPECT_GT(lowered, 150);
}

// Equal chunks, N_split = 1, free communication: the 1F1B closed form
// (p - 1)(f + b) + m (f' + b'), where the last stage's f' = f + h and
// b' = b + 2 h add the output head h (StepLowering's OneFOneBMatchesThe-
// ClosedForm derives it); with h = 0 it is the textbook (m + p - 1)(f + b).
// The last stage idles (p - 1)(f + b), at the start (warm-up) and the end;
// the others 3 m h more; the first finishes the step (cool-down). b is not
// 2 f: the backward recomputes the attention core.
TEST(PipelineLowering, OneFOneBBubbleMatchesTheClosedForm) {
  for (int64_t stages : {2, 4}) {
    for (int64_t m : {1, 3, 6}) {
      std::vector<std::vector<PlannedChunk>> units;
      std::vector<int64_t> lengths;
      for (int64_t k = 0; k < m; ++k) {
        lengths.push_back(64);
        units.push_back({chunkOf({whole(k, 64)})});
      }
      PipelinedStepPlan plan = planOf(2, stages, lengths, {pipelineOf(units)});
      LoweredStep step = lowerPipelinedStep(plan, toyModel());
      ASSERT_TRUE(step.ok()) << step.error;
      sim::SimResult result = simulate(step, 0.0);
      ASSERT_TRUE(result.ok()) << result.error;
      // One stage: 4 / stages layers of 245760 forward FLOPs a rank
      // ((5632 * 64 + 32 * 64^2) / 2) and 2 * 245760 + 32 * 64^2 / 2 =
      // 557056 backward FLOPs, at 1e12 FLOP/s.
      const double layers = 4.0 / static_cast<double>(stages);
      const double f = layers * 245760 / 1e12;
      const double b = layers * 557056 / 1e12;
      const double h = 1024.0 * 64 / 2 / 1e12;
      const double bubble = static_cast<double>(stages - 1) * (f + b);
      const double mm = static_cast<double>(m);
      EXPECT_NEAR(result.stepSeconds, bubble + mm * (f + b + 3 * h), 1e-15);
      for (size_t r = 0; r < result.ranks.size(); ++r)
        EXPECT_NEAR(result.ranks[r].idleSeconds,
                    bubble + (r + 2 < result.ranks.size() ? 3 * mm * h : 0),
                    1e-15)
            << r;
      // The last stage waits (p - 1) f for its first forward (warm-up);
      // the first stage, whose idle is the cool-down's wait for
      // gradients, finishes the step.
      const sim::RankResult &lastStage = result.ranks.back();
      double firstCompute = -1;
      for (const sim::Span &s : lastStage.spans)
        if (s.isCompute) {
          firstCompute = s.start;
          break;
        }
      EXPECT_NEAR(firstCompute, static_cast<double>(stages - 1) * f, 1e-15);
      EXPECT_NEAR(result.ranks.front().finishSeconds, result.stepSeconds,
                  1e-15);
    }
  }
}

TEST(PipelineLowering, LongerWarmUpWithSplitSequences) {
  // N_split = 3: stage 0 of 2 runs min(n, 2 - 0 - 2 + 3) = 3 forwards
  // before its first backward, the last stage 2.
  PlannedPipeline p = pipelineOf({splitUnit(0, 96, 3),
                                  {chunkOf({whole(1, 32)})},
                                  {chunkOf({whole(2, 32)})}});
  PipelinedStepPlan plan = planOf(2, 2, {96, 32, 32}, {p});
  LoweredStep step = lowerPipelinedStep(plan, toyModel());
  ASSERT_TRUE(step.ok()) << step.error;
  EXPECT_EQ(passOrder(step.programs[0], 0, 0),
            (std::vector<int64_t>{0, 1, 2, 3, -3, 4, -2, -1, -4, -5}));
  EXPECT_EQ(passOrder(step.programs[2], 0, 2),
            (std::vector<int64_t>{0, 1, 2, -3, 3, -2, 4, -1, -4, -5}));
  sim::SimResult result = simulate(step, 1e-6);
  ASSERT_TRUE(result.ok()) << result.error;
  EXPECT_GT(result.ranks[0].idleSeconds, 0);
  EXPECT_GT(result.ranks[2].idleSeconds, 0);
}

TEST(PipelineLowering, ZeroBelowThreeSynchronisesGradientsAtTheEnd) {
  PipelinedStepPlan plan = planOf(
      2, 2, {64, 32},
      {pipelineOf({{chunkOf({whole(0, 64)})}, {chunkOf({whole(1, 32)})}})});
  LoweredStep step = lowerPipelinedStep(plan, toyModel(/*zero=*/0));
  ASSERT_TRUE(step.ok()) << step.error;
  ASSERT_EQ(step.programs.size(), 4u);
  for (int64_t r = 0; r < 4; ++r) {
    const prog::Program &p = step.programs[static_cast<size_t>(r)];
    const int64_t stage = r / 2;
    EXPECT_EQ(countOps(p, prog::OpKind::Wait), 0u);
    EXPECT_EQ(countCollectives(p, prog::CommKind::AllGather, true), 0u);
    const prog::Op &last = p.ops.back();
    EXPECT_EQ(last.kind, prog::OpKind::Collective);
    EXPECT_EQ(last.commKind, prog::CommKind::AllReduce);
    // The stage's two layers' bf16 gradients, with the embedding's (stage
    // 0: 512 parameters) or the final norm's and the head's (stage 1:
    // 16 + 512).
    EXPECT_EQ(last.bytes, (2 * 2848 + (stage == 0 ? 512 : 16 + 512)) * 2);
    EXPECT_TRUE(last.carriesLayers);
    EXPECT_EQ(last.layerBegin, 2 * stage);
    EXPECT_EQ(last.layerEnd, 2 * stage + 2);
  }
  EXPECT_EQ(step.programs[2].ops.back().group, "dp:2-3");
  ASSERT_TRUE(simulate(step, 1e-6).ok());
}

/// `program`'s ops with each Recompute op folded into the Bwd op right
/// after it (same layers): FLOPs, seconds and memory added up. lowerStep
/// under selective checkpointing runs the attention core again as an op of
/// its own; the pipelined lowering counts it in the Bwd op.
std::vector<prog::Op> foldRecompute(const prog::Program &program,
                                   size_t &folded) {
  std::vector<prog::Op> out;
  for (size_t i = 0; i < program.ops.size(); ++i) {
    const prog::Op &op = program.ops[i];
    if (op.kind != prog::OpKind::Compute ||
        op.computeKind != prog::ComputeKind::Recompute) {
      out.push_back(op);
      continue;
    }
    EXPECT_LT(i + 1, program.ops.size()) << op.label;
    if (i + 1 >= program.ops.size())
      break;
    prog::Op bwd = program.ops[++i];
    EXPECT_EQ(bwd.kind, prog::OpKind::Compute) << op.label;
    EXPECT_EQ(bwd.computeKind, prog::ComputeKind::Bwd) << op.label;
    EXPECT_EQ(bwd.layerBegin, op.layerBegin) << op.label;
    EXPECT_EQ(bwd.layerEnd, op.layerEnd) << op.label;
    bwd.flops += op.flops;
    bwd.seconds += op.seconds;
    bwd.memoryDeltaBytes += op.memoryDeltaBytes;
    out.push_back(bwd);
    ++folded;
  }
  return out;
}

// With whole sequences, N_split = 1 and no layer checkpointed the lowering
// is lowerStep's for the same micro-batches under selective checkpointing
// (the activations of flash attention, the attention core recomputed),
// labels aside and lowerStep's Recompute op folded into its Bwd op: on one
// stage with ZeRO-3, and on 2 and 4 stages (lowerStep's 1F1B and its
// stage-to-stage pairing) with ZeRO-1. Forward ops, messages and
// collectives match exactly; a Bwd op carries lowerStep's Bwd FLOPs plus
// its Recompute FLOPs.
TEST(PipelineLowering, PlainOneFOneBMatchesLowerStep) {
  const std::vector<std::vector<int64_t>> batches = {
      {0, 1}, {2}, {3}, {4, 5}, {6}};
  const std::vector<int64_t> lengths = {64, 32, 48, 40, 16, 8, 24};
  for (int64_t stages : {1, 2, 4}) {
    for (int64_t count : {1, 2, 5}) {
      std::vector<std::vector<PlannedChunk>> units;
      StepPlan flat;
      flat.world = 2 * stages;
      flat.lengths = lengths;
      for (int64_t b = 0; b < count; ++b) {
        std::vector<ChunkSlice> slices;
        for (int64_t seq : batches[static_cast<size_t>(b)])
          slices.push_back(whole(seq, lengths[static_cast<size_t>(seq)]));
        units.push_back({chunkOf(slices)});
        PlannedGroup g;
        g.layout.ulysses = 2;
        g.layout.pp = stages;
        g.seqs = batches[static_cast<size_t>(b)];
        PlannedMicroBatch mb;
        mb.groups.push_back(g);
        flat.microBatches.push_back(mb);
      }
      PipelinedStepPlan plan = planOf(2, stages, lengths, {pipelineOf(units)});
      TrainModel model = toyModel(stages == 1 ? 3 : 1);
      model.checkpointing = cost::Checkpointing::Selective;
      LoweringOptions options;
      options.layersPerOp = stages == 1 ? 3 : 1;
      LoweredStep ours = lowerPipelinedStep(plan, model, options);
      ASSERT_TRUE(ours.ok()) << ours.error;
      // A dynamic pipeline runs ZeRO-3 once per step; the static lowering
      // does the same when the model says so.
      TrainModel once = model;
      once.zeroOncePerStep = true;
      LoweredStep theirs = lowerStep(flat, once, options);
      ASSERT_TRUE(theirs.ok()) << theirs.error;
      EXPECT_DOUBLE_EQ(ours.totalFlops, theirs.totalFlops);
      ASSERT_EQ(ours.programs.size(), theirs.programs.size());
      for (size_t r = 0; r < ours.programs.size(); ++r) {
        const prog::Program &a = ours.programs[r];
        EXPECT_TRUE(computeOps(a, prog::ComputeKind::Recompute).empty());
        size_t folded = 0;
        const std::vector<prog::Op> b =
            foldRecompute(theirs.programs[r], folded);
        // One Recompute op per Bwd op of lowerStep: every backward group
        // was folded, so every Bwd FLOP count below includes the core.
        EXPECT_EQ(folded, computeOps(a, prog::ComputeKind::Bwd).size());
        EXPECT_GT(folded, 0u);
        EXPECT_EQ(a.initialMemoryBytes, theirs.programs[r].initialMemoryBytes);
        ASSERT_EQ(a.ops.size(), b.size())
            << stages << " stages, " << count << " chunks, rank " << r;
        for (size_t i = 0; i < a.ops.size(); ++i) {
          const prog::Op &x = a.ops[i], &y = b[i];
          EXPECT_EQ(x.kind, y.kind) << i;
          EXPECT_EQ(x.commKind, y.commKind) << i;
          EXPECT_EQ(x.computeKind, y.computeKind) << i;
          EXPECT_EQ(x.bytes, y.bytes) << i;
          EXPECT_EQ(x.group, y.group) << i;
          EXPECT_EQ(x.async, y.async) << i;
          EXPECT_EQ(x.pending, y.pending) << i;
          EXPECT_EQ(x.peer, y.peer) << i;
          EXPECT_EQ(x.tag, y.tag) << i;
          EXPECT_DOUBLE_EQ(x.flops, y.flops) << i;
          EXPECT_DOUBLE_EQ(x.seconds, y.seconds) << i;
          EXPECT_EQ(x.memoryDeltaBytes, y.memoryDeltaBytes) << i;
          EXPECT_EQ(x.stage, y.stage) << i;
          EXPECT_EQ(x.layerBegin, y.layerBegin) << i;
          EXPECT_EQ(x.layerEnd, y.layerEnd) << i;
        }
      }
    }
  }
}

/// The error of lowering `plan` (a valid 2 x 2 plan changed by `edit`).
std::string errorOf(const std::function<void(PipelinedStepPlan &)> &edit,
                    TrainModel model = toyModel()) {
  PipelinedStepPlan plan =
      planOf(2, 2, {128, 32, 16},
             {pipelineOf({splitUnit(0, 128, 2), {chunkOf({whole(1, 32)})}}),
              pipelineOf({{chunkOf({whole(2, 16)})}})});
  rematAll(plan, 1);
  edit(plan);
  LoweredStep step = lowerPipelinedStep(plan, model);
  EXPECT_EQ(step.programs.empty(), !step.ok());
  EXPECT_EQ(step.error, checkPipelinedStepPlan(plan, model));
  return step.error;
}

TEST(PipelineLowering, RejectsBadPlans) {
  EXPECT_EQ(errorOf([](PipelinedStepPlan &) {}), "");
  auto has = [](const std::string &error, const std::string &part) {
    return error.find(part) != std::string::npos;
  };
  using P = PipelinedStepPlan;
  EXPECT_TRUE(has(errorOf([](P &p) { p.world = 6; }),
                  "not the SP degree times the stages"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.spDegree = 0; }), "at least 1"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.spDegree = 3;
                    p.world = 6;
                  }),
                  "heads (4) do not split"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.stages = 5;
                    p.world = 10;
                  }),
                  "5 stages for 4 layers"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines.clear(); }), "no pipeline"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[1].chunks.clear(); }),
                  "pipeline 1 has no chunk"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[0].chunks[2].slices = {}; }),
                  "pipeline 0, chunk 2 has no slice"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.lengths[1] = 31; }),
                  "slice [0, 32) of sequence 1 is not a non-empty part of "
                  "its 31 tokens"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].chunks[2].slices[0] = {1, 5, 5};
                  }),
                  "not a non-empty part"));
  EXPECT_TRUE(has(
      errorOf([](P &p) { p.pipelines[0].chunks[2].slices[0].sequence = 9; }),
      "sequence 9 has no length"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].chunks[2].slices.push_back({1, 0, 32});
                  }),
                  "holds two slices of sequence 1"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[0].remat.pop_back(); }),
                  "remat has 1 rows, not one per stage"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[0].remat[1].pop_back(); }),
                  "remat of stage 1 has 2 entries"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[0].remat[1][0] = 3; }),
                  "stage 1 checkpoints 3 layers, outside [0, 2]"));
  EXPECT_TRUE(has(errorOf([](P &p) { p.pipelines[0].remat[0][2] = -1; }),
                  "outside [0, 2]"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].backward = {1, 0, 0};
                  }),
                  "not a permutation"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].backward = {1, 0};
                  }),
                  "not a permutation"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].backward = {1, 0, 3};
                  }),
                  "not a permutation"));
  EXPECT_TRUE(
      has(errorOf([](P &p) { p.pipelines[0].nSplit = 0; }), "N_split is 0"));
  // The split sequence's slices swapped: the first does not begin at 0.
  EXPECT_TRUE(has(errorOf([](P &p) {
                    std::swap(p.pipelines[0].chunks[0],
                              p.pipelines[0].chunks[1]);
                  }),
                  "is its first slice but does not begin at token 0"));
  // A gap between slices.
  EXPECT_TRUE(
      has(errorOf([](P &p) { p.pipelines[0].chunks[0].slices[0].end = 60; }),
          "goes forward out of order: the slice before it ends at "
          "token 60"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].backward = {0, 1, 2};
                  }),
                  "go backward in reverse order"));
  // A whole sequence run twice, and sequences in two pipelines.
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].chunks[0].slices.push_back({1, 0, 32});
                  }),
                  "goes forward out of order: the slice before it ends at "
                  "token 32"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[1].chunks[0].slices.push_back({1, 0, 32});
                  }),
                  "is in another pipeline"));
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.pipelines[0].chunks[2].slices.push_back({2, 0, 16});
                    p.pipelines[1].chunks[0].slices = {{2, 0, 16}};
                  }),
                  "is in another pipeline"));
  // N_split too small for a backward order that starts with the third
  // chunk of a sequence: the last stage never forwards it in time.
  EXPECT_TRUE(has(errorOf([](P &p) {
                    p.lengths[0] = 192;
                    p.pipelines[0] = pipelineOf(
                        {splitUnit(0, 192, 3), {chunkOf({whole(1, 32)})}});
                    p.pipelines[0].nSplit = 1;
                  }),
                  "before its forward (N_split 1 is too small"));
  // The model and chip.
  TrainModel bad = toyModel();
  bad.zero = 4;
  EXPECT_TRUE(has(errorOf([](P &) {}, bad), "ZeRO stage 4"));
  bad = toyModel();
  bad.efficiency = 0;
  EXPECT_TRUE(has(errorOf([](P &) {}, bad), "efficiency"));
  bad = toyModel();
  bad.shape.hidden = 0;
  EXPECT_TRUE(has(errorOf([](P &) {}, bad), "the model's shape"));
}

} // namespace
