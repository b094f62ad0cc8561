//===- ExecutorTest.cpp - Per-rank programs run op by op ------------------===//
//
// Hand-written per-rank programs, the calls a generated program makes, run
// on the loopback world and compared with the single-rank referenceStep:
// the world's loss and its gradient (contributeGradients summed over the
// ranks), every tensor within 1e-5, on the first step and, after the
// executor's optimizer step, on the second (whose reference weights are one
// Adam step of the whole model on the first step's distributed gradient).
// Covered: Ulysses with ZeRO-3 chunks; a 2-stage, 2-way Ulysses pipeline
// over a cut sequence and a hybrid chunk with full checkpointing and
// explicit recomputes, synchronised by ZeRO-1/2 reduce-scatters and
// update-gathers; FlexSP micro-batches with different Ulysses groups under
// ZeRO-3; data-parallel ZeRO-0 all-reduces; one rank alone over a sequence
// cut in three. Then the errors a wrong program gets, and determinism.
//
//===----------------------------------------------------------------------===//
#include "runtime/Executor.h"
#include "runtime/LoopbackComm.h"
#include "test/unit/Runtime/RuntimeTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

using namespace plexus::runtime;
using plexus::runtime::testutil::fp32Config;

namespace {

AdamConfig testAdam() {
  AdamConfig a;
  a.learningRate = 1e-2;
  return a;
}

ExecutorOptions optionsFor(LayerRange layers, Group zero = {},
                           uint64_t seed = 5) {
  ExecutorOptions o;
  o.layers = layers;
  o.zeroGroup = std::move(zero);
  o.weightSeed = seed;
  o.adam = testAdam();
  return o;
}

/// Bytes of the hidden state of `tokens` local tokens.
int64_t hiddenBytes(const ModelConfig &c, int64_t tokens) {
  return tokens * c.hidden * 4;
}
/// Bytes of one rank's shard of layers r over g ranks.
int64_t shardBytes(const ModelConfig &c, LayerRange r, int64_t g) {
  return shardSize(packedParameterCount(c, r), g) * 4;
}

struct StepResult {
  double loss = 0;
  std::vector<float> whole;
};

using Program = std::function<Status(int rank, StepExecutor &x)>;

/// `steps` steps of `program` on a loopback world of options.size() ranks:
/// the program, finishStep, contributeGradients, optimizerStep. Per step,
/// the loss and the gradient summed over the ranks in rank order.
Status runSteps(const ModelConfig &c, const StepBatch &batch,
                const std::vector<ExecutorOptions> &options,
                const Program &program, int steps,
                std::vector<StepResult> &out) {
  const size_t n = options.size();
  const size_t count = static_cast<size_t>(wholeParameterCount(c));
  std::vector<std::vector<StepResult>> perRank(
      n, std::vector<StepResult>(static_cast<size_t>(steps)));
  LoopbackWorld world(static_cast<int>(n));
  PLXRT_TRY(world.run([&](Comm &comm) -> Status {
    const size_t r = static_cast<size_t>(comm.rank());
    auto x = StepExecutor::create(comm, c, batch, options[r]);
    if (!x.ok())
      return x.status();
    for (int step = 0; step < steps; ++step) {
      PLXRT_TRY(program(comm.rank(), **x));
      Result<double> loss = (*x)->finishStep();
      if (!loss.ok())
        return loss.status();
      StepResult &res = perRank[r][static_cast<size_t>(step)];
      res.loss = *loss;
      res.whole.assign(count, 0.0f);
      PLXRT_TRY((*x)->contributeGradients(res.whole));
      PLXRT_TRY((*x)->optimizerStep());
    }
    return Status::success();
  }));
  out.assign(static_cast<size_t>(steps), StepResult());
  for (size_t step = 0; step < out.size(); ++step) {
    out[step].whole.assign(count, 0.0f);
    for (size_t r = 0; r < n; ++r) {
      out[step].loss += perRank[r][step].loss;
      for (size_t i = 0; i < count; ++i)
        out[step].whole[i] += perRank[r][step].whole[i];
    }
  }
  return Status::success();
}

/// Each step against referenceStep; the reference weights follow the
/// steps by Adam on the distributed gradient.
void expectMatchesReference(const ModelConfig &c, const StepBatch &batch,
                            uint64_t seed,
                            const std::vector<StepResult> &steps) {
  auto w = initWeights<float>(c, wholeModel(c), seed);
  ASSERT_TRUE(w.ok()) << w.message();
  Adam<float> adam(testAdam());
  for (size_t step = 0; step < steps.size(); ++step) {
    Result<ReferenceCheck> check =
        compareWithReference(c, *w, batch, steps[step].loss, steps[step].whole);
    ASSERT_TRUE(check.ok()) << check.message();
    EXPECT_LT(check->lossError, 1e-5)
        << "step " << step << ": loss " << check->loss << " vs "
        << check->referenceLoss;
    EXPECT_LT(check->worstError, 1e-5)
        << "step " << step << ": " << check->worstTensor;
    ModelWeights<float> g = zerosLike(*w);
    size_t off = 0;
    g.forEach([&](const std::string &, Tensor &t) {
      std::memcpy(t.data(), steps[step].whole.data() + off,
                  sizeof(float) * static_cast<size_t>(t.numel()));
      off += static_cast<size_t>(t.numel());
    });
    ASSERT_TRUE(adam.step(*w, g).ok());
  }
}

TEST(RuntimeExecutor, PackedCountsMatchTheWeights) {
  for (bool tied : {false, true}) {
    ModelConfig c = fp32Config(4);
    c.tiedEmbeddings = tied;
    auto whole = initWeights<float>(c, wholeModel(c), 1);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(wholeParameterCount(c), parameterCount(*whole));
    auto mid = initWeights<float>(c, {1, 3, false, false}, 1);
    ASSERT_TRUE(mid.ok());
    EXPECT_EQ(packedParameterCount(c, {1, 3}), parameterCount(*mid));
    EXPECT_EQ(layerParameterCount(c) * 2, parameterCount(*mid));
  }
  EXPECT_EQ(shardSize(10, 4), 3);
  EXPECT_EQ(workString({{6, 11}, {}}), "seqs [6, 11] slices [0, 0]");
}

//===----------------------------------------------------------------------===//
// Plans against the single-rank step
//===----------------------------------------------------------------------===//

TEST(RuntimeExecutor, UlyssesWithZeroThreeChunksMatchesReference) {
  // 2 ranks: Ulysses over {1, 0}, ZeRO-3 over {0, 1}, layer chunks [0, 1)
  // (with the embedding) and [1, 2) (with the head), gathered before each
  // chunk's forward and backward, reduce-scattered after its backward.
  const ModelConfig c = fp32Config();
  StepBatch batch;
  batch.seed = 31;
  batch.lengths = {12, 8};
  const Group sp = {1, 0}, zero = {0, 1};
  const LayerRange c0 = {0, 1}, c1 = {1, 2};
  const int64_t g0 = shardBytes(c, c0, 2), g1 = shardBytes(c, c1, 2);
  const Work work = {{0, 1}, {}};
  Program program = [&](int, StepExecutor &x) -> Status {
    PLXRT_TRY(x.gatherParams(zero, c0, g0));
    PLXRT_TRY(x.wait(0));
    PLXRT_TRY(x.forward(0, c0, work, &sp, {}));
    PLXRT_TRY(x.gatherParams(zero, c1, g1));
    PLXRT_TRY(x.wait(0));
    PLXRT_TRY(x.forward(0, c1, work, &sp, {}));
    PLXRT_TRY(x.gatherParams(zero, c1, g1));
    PLXRT_TRY(x.backward(0, c1, work, &sp));
    PLXRT_TRY(x.reduceScatterGrads(zero, c1, 2 * g1));
    PLXRT_TRY(x.gatherParams(zero, c0, g0));
    PLXRT_TRY(x.wait(1));
    PLXRT_TRY(x.backward(0, c0, work, &sp));
    PLXRT_TRY(x.reduceScatterGrads(zero, c0, 2 * g0));
    return x.wait(0);
  };
  std::vector<StepResult> steps;
  Status st =
      runSteps(c, batch, {optionsFor({0, 2}, zero), optionsFor({0, 2}, zero)},
               program, 2, steps);
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(c, batch, 5, steps);
}

/// The 2-stage, 2-way Ulysses pipeline of the tests below: sequence 0 (24
/// tokens) cut at 10; micro-batch 0 is its first slice, micro-batch 1 its
/// tail slice with sequence 1 (6 tokens), a hybrid chunk. Stage 0 (ranks
/// 0, 1; layers [0, 2)) runs per-layer ops under full checkpointing with
/// explicit recomputes; stage 1 (ranks 2, 3; layers [2, 4)) one op per
/// pass. 1F1B with the split sequence's backwards in reverse: F0 F1 B1 B0.
/// Each stage ends with a ZeRO-1/2 reduce-scatter and update-gather.
struct PipelinePlan {
  ModelConfig c = fp32Config(4);
  StepBatch batch;
  Work mb0 = {{0}, {0}}, mb1 = {{0, 1}, {1, 0}};
  PipelinePlan() {
    batch.seed = 32;
    batch.lengths = {24, 6};
    batch.cuts = {{10}};
  }
  std::vector<ExecutorOptions> options() const {
    return {optionsFor({0, 2}), optionsFor({0, 2}), optionsFor({2, 4}),
            optionsFor({2, 4})};
  }
  Status run(int rank, StepExecutor &x) const {
    const int64_t b0 = hiddenBytes(c, 5), b1 = hiddenBytes(c, 10);
    if (rank < 2) {
      const Group sp = {0, 1};
      const int peer = rank + 2;
      const LayerRange all = {0, 2};
      for (const Work *w : {&mb0, &mb1}) {
        PLXRT_TRY(x.forward(0, {0, 1}, *w, &sp, all));
        PLXRT_TRY(x.forward(0, {1, 2}, *w, &sp, all));
        PLXRT_TRY(x.send(peer, w == &mb0 ? b0 : b1, w == &mb0 ? 0 : 2,
                         Pass::Forward, *w));
      }
      for (const Work *w : {&mb1, &mb0}) {
        PLXRT_TRY(x.recv(peer, w == &mb0 ? b0 : b1, w == &mb0 ? 1 : 3,
                         Pass::Backward, *w));
        PLXRT_TRY(x.recompute(0, {1, 2}, *w, &sp));
        PLXRT_TRY(x.backward(0, {1, 2}, *w, &sp));
        PLXRT_TRY(x.recompute(0, {0, 1}, *w, &sp));
        PLXRT_TRY(x.backward(0, {0, 1}, *w, &sp));
      }
      PLXRT_TRY(x.reduceScatterGrads(sp, all, 2 * shardBytes(c, all, 2)));
      return x.updateAndGatherParams(sp, all, shardBytes(c, all, 2));
    }
    const Group sp = {2, 3};
    const int peer = rank - 2;
    const LayerRange all = {2, 4};
    for (const Work *w : {&mb0, &mb1}) {
      PLXRT_TRY(x.recv(peer, w == &mb0 ? b0 : b1, w == &mb0 ? 0 : 2,
                       Pass::Forward, *w));
      PLXRT_TRY(x.forward(1, all, *w, &sp, {}));
    }
    for (const Work *w : {&mb1, &mb0}) {
      PLXRT_TRY(x.backward(1, all, *w, &sp));
      PLXRT_TRY(x.send(peer, w == &mb0 ? b0 : b1, w == &mb0 ? 1 : 3,
                       Pass::Backward, *w));
    }
    PLXRT_TRY(x.reduceScatterGrads(sp, all, 2 * shardBytes(c, all, 2)));
    return x.updateAndGatherParams(sp, all, shardBytes(c, all, 2));
  }
};

TEST(RuntimeExecutor, PipelinedUlyssesWithSlicesAndRecomputeMatchesReference) {
  const PipelinePlan plan;
  std::vector<StepResult> steps;
  Status st = runSteps(
      plan.c, plan.batch, plan.options(),
      [&](int rank, StepExecutor &x) { return plan.run(rank, x); }, 2, steps);
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(plan.c, plan.batch, 5, steps);
}

TEST(RuntimeExecutor, FlexSpGroupsPerMicroBatchUnderZeroThreeMatchReference) {
  // Micro-batch 0: ranks {0, 1} run sequence 0 and ranks {2, 3} sequence
  // 1; micro-batch 1: all four run sequences 2 and 3. ZeRO-3 over all
  // four, one-layer chunks gathered before every forward and backward.
  ModelConfig c = fp32Config();
  c.kvHeads = 4; // four K/V heads split over a Ulysses degree of 4
  StepBatch batch;
  batch.seed = 33;
  batch.lengths = {12, 8, 16, 8};
  const Group zero = {0, 1, 2, 3}, all = {0, 1, 2, 3};
  const Group left = {0, 1}, right = {2, 3};
  const LayerRange c0 = {0, 1}, c1 = {1, 2};
  const int64_t g0 = shardBytes(c, c0, 4), g1 = shardBytes(c, c1, 4);
  Program program = [&](int rank, StepExecutor &x) -> Status {
    for (int mb = 0; mb < 2; ++mb) {
      const Group &sp = mb == 0 ? (rank < 2 ? left : right) : all;
      const Work work =
          mb == 0 ? Work{{rank < 2 ? 0 : 1}, {}} : Work{{2, 3}, {}};
      PLXRT_TRY(x.gatherParams(zero, c0, g0));
      PLXRT_TRY(x.forward(0, c0, work, &sp, {}));
      PLXRT_TRY(x.gatherParams(zero, c1, g1));
      PLXRT_TRY(x.forward(0, c1, work, &sp, {}));
      PLXRT_TRY(x.gatherParams(zero, c1, g1));
      PLXRT_TRY(x.backward(0, c1, work, &sp));
      PLXRT_TRY(x.reduceScatterGrads(zero, c1, 4 * g1));
      PLXRT_TRY(x.gatherParams(zero, c0, g0));
      PLXRT_TRY(x.backward(0, c0, work, &sp));
      PLXRT_TRY(x.reduceScatterGrads(zero, c0, 4 * g0));
    }
    return Status::success();
  };
  std::vector<ExecutorOptions> options(4, optionsFor({0, 2}, zero));
  std::vector<StepResult> steps;
  Status st = runSteps(c, batch, options, program, 2, steps);
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(c, batch, 5, steps);
}

TEST(RuntimeExecutor, DataParallelAllReduceMatchesReference) {
  // ZeRO-0: each rank runs its own sequences; one all-reduce of the whole
  // model (tied embeddings) at the end.
  ModelConfig c = fp32Config();
  c.tiedEmbeddings = true;
  StepBatch batch;
  batch.seed = 34;
  batch.lengths = {9, 7, 5};
  const Group dp = {1, 0};
  const LayerRange all = {0, 2};
  Program program = [&](int rank, StepExecutor &x) -> Status {
    const Work work = rank == 0 ? Work{{0}, {}} : Work{{2, 1}, {}};
    PLXRT_TRY(x.forward(0, all, work, nullptr, {}));
    PLXRT_TRY(x.backward(0, all, work, nullptr));
    return x.allReduceGrads(dp, all, packedParameterCount(c, all) * 4);
  };
  std::vector<StepResult> steps;
  Status st =
      runSteps(c, batch, {optionsFor(all), optionsFor(all)}, program, 2, steps);
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(c, batch, 5, steps);
}

TEST(RuntimeExecutor, OneRankOverASequenceCutInThreeMatchesReference) {
  // No collective: the rank applies its own gradient. Slices run forward
  // in order (two of them checkpointed) and backward in reverse, each
  // layer as its own op.
  const ModelConfig c = fp32Config();
  StepBatch batch;
  batch.seed = 35;
  batch.lengths = {20, 4};
  batch.cuts = {{6, 13}};
  const std::vector<Work> works = {{{0}, {0}}, {{1, 0}, {0, 1}}, {{0}, {2}}};
  Program program = [&](int, StepExecutor &x) -> Status {
    for (const Work &w : works) {
      PLXRT_TRY(x.forward(0, {0, 1}, w, nullptr, {0, 2}));
      PLXRT_TRY(x.forward(0, {1, 2}, w, nullptr, {0, 2}));
    }
    for (auto it = works.rbegin(); it != works.rend(); ++it) {
      PLXRT_TRY(x.recompute(0, {0, 2}, *it, nullptr));
      PLXRT_TRY(x.backward(0, {1, 2}, *it, nullptr));
      PLXRT_TRY(x.backward(0, {0, 1}, *it, nullptr));
    }
    return Status::success();
  };
  std::vector<StepResult> steps;
  Status st = runSteps(c, batch, {optionsFor({0, 2})}, program, 2, steps);
  ASSERT_TRUE(st.ok()) << st.message();
  expectMatchesReference(c, batch, 5, steps);
}

TEST(RuntimeExecutor, TwoRunsAreBitIdentical) {
  const PipelinePlan plan;
  std::vector<StepResult> a, b;
  auto program = [&](int rank, StepExecutor &x) { return plan.run(rank, x); };
  ASSERT_TRUE(runSteps(plan.c, plan.batch, plan.options(), program, 2, a).ok());
  ASSERT_TRUE(runSteps(plan.c, plan.batch, plan.options(), program, 2, b).ok());
  for (size_t step = 0; step < 2; ++step) {
    EXPECT_EQ(a[step].loss, b[step].loss);
    EXPECT_EQ(0, std::memcmp(a[step].whole.data(), b[step].whole.data(),
                             sizeof(float) * a[step].whole.size()))
        << "step " << step;
  }
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// The message of the first failing call of `program` on each rank ("" when
/// every call succeeded), after finishStep when `finish`.
std::vector<std::string> errorsOf(const ModelConfig &c, const StepBatch &batch,
                                  const std::vector<ExecutorOptions> &options,
                                  const Program &program, bool finish = false) {
  std::vector<std::string> out(options.size());
  LoopbackWorld world(static_cast<int>(options.size()));
  Status st = world.run([&](Comm &comm) -> Status {
    const size_t r = static_cast<size_t>(comm.rank());
    auto x = StepExecutor::create(comm, c, batch, options[r]);
    if (!x.ok()) {
      out[r] = x.message();
      return Status::success();
    }
    Status p = program(comm.rank(), **x);
    if (!p.ok()) {
      out[r] = p.message();
      return Status::success();
    }
    if (finish) {
      Result<double> loss = (*x)->finishStep();
      if (!loss.ok())
        out[r] = loss.message();
    }
    return Status::success();
  });
  EXPECT_TRUE(st.ok()) << st.message();
  return out;
}

StepBatch cutBatch() {
  StepBatch b;
  b.seed = 40;
  b.lengths = {16, 6};
  b.cuts = {{8}};
  return b;
}

TEST(RuntimeExecutor, ComputeBeforeGatherIsAnError) {
  const ModelConfig c = fp32Config();
  auto msgs = errorsOf(c, cutBatch(), {optionsFor({0, 2}, {0})},
                       [&](int, StepExecutor &x) {
                         return x.forward(0, {0, 2}, {{1}, {}}, nullptr, {});
                       });
  EXPECT_EQ(msgs[0], "forward of layers [0, 2) of seqs [1] slices [0] on rank "
                     "0: the parameters of layer 0 are not gathered (ZeRO-3: "
                     "gatherParams before the layer's first use and again "
                     "after each reduce-scatter of its gradients)");
  msgs = errorsOf(
      c, cutBatch(), {optionsFor({0, 2}, {0})}, [&](int, StepExecutor &x) {
        PLXRT_TRY(x.gatherParams({0}, {0, 1}, shardBytes(c, {0, 1}, 1)));
        PLXRT_TRY(x.forward(0, {0, 1}, {{1}, {}}, nullptr, {}));
        // Layer 0 stays gathered; layer 1 was never gathered.
        return x.forward(0, {1, 2}, {{1}, {}}, nullptr, {});
      });
  EXPECT_EQ(msgs[0], "forward of layers [1, 2) of seqs [1] slices [0] on rank "
                     "0: the parameters of layer 1 are not gathered (ZeRO-3: "
                     "gatherParams before the layer's first use and again "
                     "after each reduce-scatter of its gradients)");
  msgs = errorsOf(c, cutBatch(), {optionsFor({0, 2}, {0})},
                  [&](int, StepExecutor &x) {
                    return x.gatherParams({0}, {0, 2}, 100);
                  });
  EXPECT_EQ(
      msgs[0],
      "gather of layers [0, 2) over [0] on rank 0: 100 bytes, but the "
      "shard of " +
          std::to_string(packedParameterCount(c, {0, 2})) +
          " parameters over 1 ranks is " +
          std::to_string(packedParameterCount(c, {0, 2})) +
          " elements = " + std::to_string(packedParameterCount(c, {0, 2}) * 4) +
          " bytes at 4 bytes per element");
}

TEST(RuntimeExecutor, BackwardOfACheckpointedLayerNeedsItsRecompute) {
  const ModelConfig c = fp32Config();
  auto msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 2})}, [&](int, StepExecutor &x) {
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {0}}, nullptr, {}));
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {1}}, nullptr, {1, 2}));
        return x.backward(0, {1, 2}, {{0}, {1}}, nullptr);
      });
  EXPECT_EQ(msgs[0], "backward of layers [1, 2) of seqs [0] slices [1] on "
                     "rank 0: layer 1 was checkpointed and has not been "
                     "recomputed");
  // A recompute of layers that were not checkpointed.
  msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 2})}, [&](int, StepExecutor &x) {
        PLXRT_TRY(x.forward(0, {0, 2}, {{1}, {}}, nullptr, {1, 2}));
        return x.recompute(0, {0, 1}, {{1}, {}}, nullptr);
      });
  EXPECT_EQ(msgs[0], "recompute of layers [0, 1) of seqs [1] slices [0] on "
                     "rank 0: none of the layers was checkpointed in the "
                     "forward and is waiting for its recompute");
}

TEST(RuntimeExecutor, SendWithWrongBytesIsAnError) {
  const ModelConfig c = fp32Config();
  auto msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 1}), optionsFor({1, 2})},
               [&](int rank, StepExecutor &x) -> Status {
                 if (rank == 1)
                   return Status::success();
                 PLXRT_TRY(x.forward(0, {0, 1}, {{1}, {}}, nullptr, {}));
                 return x.send(1, 1000, 4, Pass::Forward, {{1}, {}});
               });
  EXPECT_EQ(msgs[0], "send of the hidden state of seqs [1] slices [0] on rank "
                     "0 to 1 (tag 4): 1000 bytes, but the hidden state "
                     "[6, 32] is 192 elements = 768 bytes at 4 bytes per "
                     "element");
  EXPECT_EQ(msgs[1], "");
}

TEST(RuntimeExecutor, SlicesRunForwardInOrderAndBackwardInReverse) {
  const ModelConfig c = fp32Config();
  auto msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 2})}, [&](int, StepExecutor &x) {
        return x.forward(0, {0, 2}, {{0}, {1}}, nullptr, {});
      });
  EXPECT_EQ(msgs[0], "forward of layers [0, 2) of seqs [0] slices [1] on rank "
                     "0: the K/V of sequence 0 at layer 0 on this rank holds "
                     "0 of the 8 context tokens of slice 1: the forward of "
                     "its earlier slices has not run here");
  msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 2})}, [&](int, StepExecutor &x) {
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {0}}, nullptr, {}));
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {1}}, nullptr, {}));
        return x.backward(0, {0, 2}, {{0}, {0}}, nullptr);
      });
  EXPECT_EQ(msgs[0], "backward of layers [0, 2) of seqs [0] slices [0] on "
                     "rank 0: slice 1 of sequence 0 attended to slice 0 at "
                     "layer 0 and has not run its backward here (a "
                     "sequence's slices run backward in reverse)");
  msgs =
      errorsOf(c, cutBatch(), {optionsFor({0, 2})}, [&](int, StepExecutor &x) {
        return x.forward(0, {0, 2}, {{0}, {2}}, nullptr, {});
      });
  EXPECT_EQ(msgs[0], "forward of layers [0, 2) of seqs [0] slices [2] on rank "
                     "0: sequence 0 has 2 slices, so no slice 2");
}

TEST(RuntimeExecutor, LeftoversAreReportedAtTheEndOfTheStep) {
  const ModelConfig c = fp32Config();
  auto msgs = errorsOf(
      c, cutBatch(), {optionsFor({0, 2})},
      [&](int, StepExecutor &x) {
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {0}}, nullptr, {}));
        PLXRT_TRY(x.forward(0, {0, 2}, {{0}, {1}}, nullptr, {}));
        PLXRT_TRY(x.backward(0, {0, 2}, {{0}, {1}}, nullptr));
        return x.forward(0, {0, 1}, {{1}, {}}, nullptr, {});
      },
      true);
  EXPECT_EQ(msgs[0],
            "end of step on rank 0: the forward of layers [0, 1] of seqs [0] "
            "slices [0] has no backward; the forward of layers [0] of seqs "
            "[1] slices [0] has no backward; the hidden state of seqs [1] "
            "slices [0] at boundary 1 was never used; the K/V context "
            "gradients of sequence 0 at layer 0 were not consumed: slices "
            "[0] have no backward; the K/V context gradients of sequence 0 "
            "at layer 1 were not consumed: slices [0] have no backward");
  // A ZeRO-3 rank that forgets its reduce-scatter.
  msgs = errorsOf(
      c, cutBatch(), {optionsFor({0, 2}, {0})},
      [&](int, StepExecutor &x) {
        PLXRT_TRY(x.gatherParams({0}, {0, 2}, shardBytes(c, {0, 2}, 1)));
        PLXRT_TRY(x.forward(0, {0, 2}, {{1}, {}}, nullptr, {}));
        PLXRT_TRY(x.gatherParams({0}, {0, 2}, shardBytes(c, {0, 2}, 1)));
        return x.backward(0, {0, 2}, {{1}, {}}, nullptr);
      },
      true);
  EXPECT_EQ(msgs[0], "end of step on rank 0: the gradients of layer 0 "
                     "accumulated after the last collective that reduced "
                     "them (ZeRO-3: reduceScatterGrads after the backward); "
                     "the gradients of layer 1 accumulated after the last "
                     "collective that reduced them (ZeRO-3: "
                     "reduceScatterGrads after the backward)");
}

TEST(RuntimeExecutor, BadSetupsAreErrors) {
  ModelConfig c = fp32Config();
  auto msgs = errorsOf(c, cutBatch(), {optionsFor({0, 3})},
                       [](int, StepExecutor &) { return Status::success(); });
  EXPECT_EQ(msgs[0], "step executor on rank 0: layers [0, 3) are not a "
                     "non-empty range of the model's 2");
  StepBatch bad = cutBatch();
  bad.cuts = {{8, 8}};
  msgs = errorsOf(c, bad, {optionsFor({0, 2})},
                  [](int, StepExecutor &) { return Status::success(); });
  EXPECT_EQ(msgs[0], "step executor on rank 0: the cuts of sequence 0 [8, 8] "
                     "must be strictly increasing inside (0, 16)");
  c.tiedEmbeddings = true;
  msgs = errorsOf(c, cutBatch(), {optionsFor({0, 1}), optionsFor({1, 2})},
                  [](int, StepExecutor &) { return Status::success(); });
  EXPECT_EQ(msgs[1], "step executor on rank 1: tied embeddings need the "
                     "embedding and the head on one rank, but it holds "
                     "layers [1, 2) of 2");
}

} // namespace
