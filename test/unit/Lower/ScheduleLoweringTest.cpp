//===- ScheduleLoweringTest.cpp - The one lowering on schedules -----------===//
//
// lowerSchedule on schedules that neither plan form writes today, checked
// against hand counts and closed forms through the event simulator:
// data-parallel pipelines with unequal numbers of chunks side by side, a
// checkpointed tensor-parallel layer replaying its all-reduce, and the
// schedule's own checks.
//
//===----------------------------------------------------------------------===//
#include "passes/Lower/StepLowering.h"
#include "passes/Simulate/EventSimulator.h"
#include "passes/StepModel/LayerWork.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

using namespace plexus;
using namespace plexus::lower;
using namespace plexus::step;

namespace {

/// `layers` layers, h = 16, 4 heads of 4, 2 KV heads, GeLU ffn 64, bf16; a
/// chip of 1 TFLOP/s at efficiency 1 (seconds = FLOPs / 1e12).
TrainModel smallModel(int64_t zero, int64_t layers) {
  TrainModel m;
  m.shape.layers = layers;
  m.shape.hidden = 16;
  m.shape.heads = 4;
  m.shape.kvHeads = 2;
  m.shape.ffn = 64;
  m.shape.vocab = 32;
  m.shape.mlp = cost::MlpKind::GeLU;
  m.chip.name = "test";
  m.chip.bf16Flops = 1e12;
  m.chip.hbmBytes = int64_t(1) << 34;
  m.efficiency = 1.0;
  m.zero = zero;
  return m;
}

ScheduledChunk chunkOf(std::vector<ChunkSlice> slices, int64_t id) {
  ScheduledChunk c;
  c.slices = std::move(slices);
  c.name = "c" + std::to_string(id);
  c.id = id;
  return c;
}

ScheduledGroup pipelineOf(GroupLayout layout, int64_t first,
                          std::vector<ScheduledChunk> chunks) {
  ScheduledGroup g;
  g.layout = layout;
  g.firstRank = first;
  for (size_t k = 0; k < chunks.size(); ++k)
    g.backward.push_back(static_cast<int64_t>(k));
  g.chunks = std::move(chunks);
  return g;
}

prog::CommTime zeroComm(const prog::CommRequest &) { return prog::CommTime(0.0); }

size_t count(const prog::Program &p, prog::ComputeKind kind) {
  size_t n = 0;
  for (const prog::Op &op : p.ops)
    n += op.kind == prog::OpKind::Compute && op.computeKind == kind;
  return n;
}

// Two data-parallel replicas, each a 2-stage pipeline of Ulysses pairs,
// one with three chunks and one with one: each runs its own 1F1B, and the
// gradient synchronisation waits for the slower. With free communication,
// no recomputation and equal chunks the step is the slower pipeline's
// closed form, (p - 1) (f + b) + m (f' + b') = 3f + 3 * 3 (f + h), f one
// stage's forward of a chunk on one of its two Ulysses ranks and h the
// output head's, which the last stage adds (2 * 32 * 16 * 32 / 2 FLOPs;
// StepLoweringTest's OneFOneBMatchesTheClosedForm derives the form).
TEST(ScheduleLowering, UnequalPipelinesShareOneGradientSync) {
  TrainModel model = smallModel(/*zero=*/1, /*layers=*/4);
  const GroupLayout layout{/*ulysses=*/2, 1, 1, /*pp=*/2};
  StepSchedule s;
  s.world = 8;
  s.lengths = {32, 32, 32, 32};
  s.activations = cost::Checkpointing::None;
  SchedulePhase phase;
  phase.groups.push_back(pipelineOf(layout, 0,
                                    {chunkOf({{0, 0, 32}}, 0),
                                     chunkOf({{1, 0, 32}}, 1),
                                     chunkOf({{2, 0, 32}}, 2)}));
  phase.groups.push_back(pipelineOf(layout, 4, {chunkOf({{3, 0, 32}}, 0)}));
  s.phases.push_back(phase);
  LoweredStep lowered = lowerSchedule(s, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  ASSERT_EQ(lowered.programs.size(), 8u);
  // Local ranks 0, 1 are stage 0 of a group; its ZeRO group is every
  // rank of stage 0 (tensor slice 0): world / (tp * pp) = 4 ranks.
  for (int64_t r : {0, 1, 4, 5}) {
    const prog::Program &p = lowered.programs[static_cast<size_t>(r)];
    ASSERT_GE(p.ops.size(), 2u);
    EXPECT_EQ(p.ops[p.ops.size() - 2].commKind, prog::CommKind::ReduceScatter);
    EXPECT_EQ(p.ops.back().group, "dp:0,1,4,5");
  }
  EXPECT_EQ(lowered.programs[6].ops.back().group, "dp:2,3,6,7");
  // One member list per communicator, shared by every op over it on every
  // rank, and still one after placement's ring orders.
  EXPECT_EQ(lowered.programs[0].ops.back().ranks.id(),
            lowered.programs[5].ops.back().ranks.id());
  RingOrders orders;
  orders[{0, 1, 4, 5}] = {0, 4, 5, 1};
  applyRingOrders(lowered.programs, orders);
  EXPECT_EQ(lowered.programs[0].ops.back().ranks,
            (std::vector<int64_t>{0, 4, 5, 1}));
  EXPECT_EQ(lowered.programs[0].ops.back().ranks.id(),
            lowered.programs[4].ops.back().ranks.id());
  EXPECT_EQ(lowered.programs[6].ops.back().ranks,
            (std::vector<int64_t>{2, 3, 6, 7}));
  EXPECT_EQ(count(lowered.programs[0], prog::ComputeKind::Fwd), 3u * 2);
  EXPECT_EQ(count(lowered.programs[4], prog::ComputeKind::Fwd), 1u * 2);
  EXPECT_EQ(count(lowered.programs[0], prog::ComputeKind::Recompute), 0u);

  double f = 0;
  for (int64_t l = 0; l < 2; ++l)
    f += cost::layerForwardFlops(model.shape, l, {32, 0}).value.total() / 2 /
         1e12;
  sim::SimOptions options;
  options.commTime = zeroComm;
  sim::SimResult result = sim::simulate(lowered.programs, options);
  ASSERT_TRUE(result.ok()) << result.error;
  const double h = 2.0 * 32 * 16 * 32 / 2 / 1e12;
  EXPECT_NEAR(result.stepSeconds, 3 * f + 3 * 3 * (f + h),
              1e-9 * result.stepSeconds);
}

// A checkpointed layer of a tensor-parallel pair keeps only its input and
// reruns its forward before the backward, the forward's all-reduce too:
// forward (Fwd, all-reduce), backward (Recompute, all-reduce; the
// backward's all-reduce, Bwd). Memory: the input, then the rest restored,
// then all released.
TEST(ScheduleLowering, CheckpointedLayersReplayTheirTensorAllReduce) {
  TrainModel model = smallModel(/*zero=*/0, /*layers=*/1);
  StepSchedule s;
  s.world = 2;
  s.lengths = {64};
  ScheduledGroup g = pipelineOf({1, /*tp=*/2, 1, 1}, 0, {chunkOf({{0, 0, 64}}, 0)});
  g.remat = {{1}};
  s.phases.push_back({{g}});
  LoweredStep lowered = lowerSchedule(s, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  const prog::Program &p = lowered.programs[0];
  std::vector<std::string> shape;
  for (const prog::Op &op : p.ops)
    shape.push_back(op.kind == prog::OpKind::Compute
                        ? prog::toString(op.computeKind)
                        : prog::toString(op.commKind));
  // ZeRO-0 over the two ranks of one tensor slice each: world / tp = 1
  // rank, so no gradient synchronisation.
  EXPECT_EQ(shape, (std::vector<std::string>{"fwd", "all_reduce", "recompute",
                                             "all_reduce", "all_reduce", "bwd"}));
  // The input: 64 tokens x h 16 x 2 bytes / tp 2, and (the model's last
  // layer) the loss's logits, 64 tokens x vocab 32 x 4 bytes / tp 2, which
  // checkpointing keeps.
  EXPECT_EQ(p.ops[0].memoryDeltaBytes, 64 * 16 * 2 / 2 + 64 * 32 * 4 / 2);
  EXPECT_EQ(p.ops[0].memoryDeltaBytes + p.ops[2].memoryDeltaBytes +
                p.ops[5].memoryDeltaBytes,
            0);
  // The recompute is the forward again, less the output head (the model's
  // one layer is its last), which no checkpointing reruns: 2 * 64 * 16 *
  // 32 / tp 2 FLOPs; the backward twice the forward, the head's included.
  const double head = 2.0 * 64 * 16 * 32 / 2;
  EXPECT_DOUBLE_EQ(p.ops[2].flops, p.ops[0].flops - head);
  EXPECT_DOUBLE_EQ(p.ops[5].flops, 2 * p.ops[0].flops);
  EXPECT_EQ(p.ops[1].bytes, p.ops[3].bytes);
}

// An idle group of a phase still meets ZeRO-3's gathers and reductions.
TEST(ScheduleLowering, IdleGroupsTakePartInZeroThree) {
  TrainModel model = smallModel(/*zero=*/3, /*layers=*/2);
  StepSchedule s;
  s.world = 2;
  s.lengths = {16};
  s.phases.push_back({{pipelineOf({1, 1, 1, 1}, 0, {chunkOf({{0, 0, 16}}, 0)}),
                       pipelineOf({1, 1, 1, 1}, 1, {chunkOf({}, 0)})}});
  LoweredStep lowered = lowerSchedule(s, model);
  ASSERT_TRUE(lowered.ok()) << lowered.error;
  auto collectives = [](const prog::Program &p) {
    size_t n = 0;
    for (const prog::Op &op : p.ops)
      n += op.kind == prog::OpKind::Collective;
    return n;
  };
  EXPECT_EQ(count(lowered.programs[1], prog::ComputeKind::Fwd), 0u);
  EXPECT_GT(collectives(lowered.programs[1]), 0u);
  EXPECT_EQ(collectives(lowered.programs[0]), collectives(lowered.programs[1]));
  sim::SimOptions options;
  options.commTime = zeroComm;
  EXPECT_TRUE(sim::simulate(lowered.programs, options).ok());
}

std::string errorOf(const std::function<void(StepSchedule &)> &edit) {
  TrainModel model = smallModel(1, 4);
  StepSchedule s;
  s.world = 4;
  s.lengths = {8, 8, 8};
  s.phases.push_back({{pipelineOf({1, 1, 1, 2}, 0,
                                  {chunkOf({{0, 0, 8}}, 0), chunkOf({{1, 0, 8}}, 1)}),
                       pipelineOf({1, 1, 1, 2}, 2, {chunkOf({{2, 0, 8}}, 0)})}});
  edit(s);
  LoweredStep lowered = lowerSchedule(s, model);
  EXPECT_EQ(lowered.programs.empty(), !lowered.ok());
  return lowered.error;
}

TEST(ScheduleLowering, RejectsSchedulesItCannotRun) {
  using S = StepSchedule;
  auto has = [](const std::string &error, const std::string &part) {
    return error.find(part) != std::string::npos;
  };
  EXPECT_EQ(errorOf([](S &) {}), "");
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases.clear(); }), "no micro-batch"));
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases[0].groups[1].firstRank = 1; }),
                  "rank 1 is in two groups"));
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases[0].groups.pop_back(); }),
                  "rank 2 is in no group"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[1].layout = {2, 1, 1, 1};
                  }),
                  "the same in every group"));
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases[0].groups[0].backward = {0}; }),
                  "not a permutation of the 2 chunks"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].backward = {0, 0};
                  }),
                  "not a permutation of the 2 chunks"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].backward = {0, 2};
                  }),
                  "not a permutation of the 2 chunks"));
  // Slices inside their sequence (8 tokens) and not empty.
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].chunks[1].slices[0].end = 9;
                  }),
                  "chunk c1 slices tokens [0, 9) of sequence 1, which has 8"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].chunks[1].slices[0].begin = -1;
                  }),
                  "slices tokens [-1, 8)"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].chunks[1].slices[0].begin = 8;
                  }),
                  "slices tokens [8, 8)"));
  // Chunk ids number messages: unique among the chunks a rank runs, in
  // one group or across phases; other ranks may reuse them (group 1's
  // chunk 0 above).
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].chunks[1].id = 0;
                  }),
                  "chunk c1 has id 0, which another chunk on its ranks has"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases.push_back(
                        {{pipelineOf({1, 1, 1, 2}, 0, {chunkOf({{2, 0, 8}}, 1)}),
                          pipelineOf({1, 1, 1, 2}, 2, {chunkOf({{2, 0, 8}}, 7)})}});
                  }),
                  "has id 1, which another chunk on its ranks has"));
  // 4 heads do not split over 3 Ulysses ranks.
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups = {
                        pipelineOf({3, 1, 1, 1}, 0, {chunkOf({{0, 0, 8}}, 0)}),
                        pipelineOf({1, 1, 1, 1}, 3, {chunkOf({{1, 0, 8}}, 0)})};
                  }),
                  "heads (4) do not split over tp * ulysses (3)"));
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases[0].groups[0].remat = {{1, 1}}; }),
                  "one row per stage"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].remat = {{1, 1}, {1}};
                  }),
                  "one entry per chunk"));
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases[0].groups[0].chunks[1].slices[0].sequence = 7;
                  }),
                  "sequence 7 has no length"));
  // Backward before forward on the last stage: N_split 1 cannot hold it.
  EXPECT_TRUE(has(errorOf([](S &s) { s.phases[0].groups[0].backward = {1, 0}; }),
                  "before its forward"));
  // A second phase of one Ulysses pair per stage moves rank 1 from stage
  // 1 (of the first pair's pipeline) to stage 0.
  EXPECT_TRUE(has(errorOf([](S &s) {
                    s.phases.push_back({{pipelineOf(
                        {2, 1, 1, 2}, 0, {chunkOf({{0, 0, 8}}, 5)})}});
                  }),
                  "rank 1 changes its stage"));
}

} // namespace
