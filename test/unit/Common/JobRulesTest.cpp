//===- JobRulesTest.cpp - Train and serve job rules -----------------------===//
//
// One test per rule of checkTrainJob / checkServeJob, each starting from a
// job that passes and breaking one thing; memory rules on tiny shapes and
// tiny made-up chips so that the bytes can be checked by hand.
//
//===----------------------------------------------------------------------===//

#include "dialects/Common/JobRules.h"

#include "test/unit/Common/ShapeFixtures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace plexus::cost;

using namespace plexus::cost::fixtures;

namespace {

TransformerShape glm45FP8() {
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
  s.dtype = DType::FP8;
  return s;
}

ChipSpec chip(const char *name) { return *findChip(name); }

// A made-up chip whose only interesting figure is its memory.
ChipSpec tinyChip(int64_t hbmBytes) {
  ChipSpec c;
  c.name = "TINY";
  c.bf16Flops = 1e12;
  c.hbmBytes = hbmBytes;
  c.hbmBandwidth = 1e9;
  return c;
}

TrainDegrees train(int64_t sp, int64_t pp, int64_t tp, int64_t cp,
                   int64_t zero) {
  TrainDegrees d;
  d.sp = sp;
  d.pp = pp;
  d.tp = tp;
  d.cp = cp;
  d.zero = zero;
  return d;
}

ServeDegrees serve(int64_t pp, int64_t ep, double utilization = 0.9) {
  ServeDegrees d;
  d.pp = pp;
  d.ep = ep;
  d.memoryUtilization = utilization;
  return d;
}

std::vector<std::string> fields(const std::vector<JobProblem> &problems) {
  std::vector<std::string> out;
  for (const JobProblem &p : problems)
    out.push_back(p.field + ": " + p.message);
  return out;
}

// Exactly one problem, on `field`; returns its message.
std::string onlyProblem(const std::vector<JobProblem> &problems,
                        const std::string &field) {
  EXPECT_EQ(problems.size(), 1u) << ::testing::PrintToString(fields(problems));
  if (problems.empty())
    return "";
  EXPECT_EQ(problems.front().field, field);
  return problems.front().message;
}

#define EXPECT_NO_PROBLEMS(expr)                                               \
  do {                                                                         \
    auto problems_ = (expr);                                                   \
    EXPECT_TRUE(problems_.empty())                                             \
        << ::testing::PrintToString(fields(problems_));                        \
  } while (0)

//===----------------------------------------------------------------------===//
// Resident bytes
//===----------------------------------------------------------------------===//

TEST(LayerResidentBytes, TrainingAndServing) {
  TransformerShape s = tinyDense(); // largest layer 592 parameters
  EXPECT_EQ(layerResidentBytes(s, true, 1), 9472);  // 16 * 592
  EXPECT_EQ(layerResidentBytes(s, true, 4), 2368);  // 9472 / 4
  EXPECT_EQ(layerResidentBytes(s, false, 1), 1184); // bf16: 2 * 592
  EXPECT_EQ(layerResidentBytes(s, false, 3), 395);  // ceil(1184 / 3)
  EXPECT_EQ(layerResidentBytes(s, false, 0), 1184); // no sharding below 1
  s.dtype = DType::FP8;
  EXPECT_EQ(layerResidentBytes(s, false, 1), 592);
  s.dtype = DType::FP32;
  EXPECT_EQ(layerResidentBytes(s, false, 1), 2368);
}

TEST(LayerResidentBytes, ZeroStages) {
  TransformerShape s = tinyDense(); // 592 parameters
  // tp = 1, 4 data-parallel ranks.
  EXPECT_EQ(trainLayerResidentBytes(s, 1, 0, 4), 9472); // 16 * 592
  EXPECT_EQ(trainLayerResidentBytes(s, 1, 1, 4), 4144); // 4*592 + 12*592/4
  EXPECT_EQ(trainLayerResidentBytes(s, 1, 2, 4), 3256); // 2*592 + 14*592/4
  EXPECT_EQ(trainLayerResidentBytes(s, 1, 3, 4), 2368); // 16*592/4
  // tp = 2, 2 data-parallel ranks, stage 1: 4*592/2 + 12*592/4.
  EXPECT_EQ(trainLayerResidentBytes(s, 2, 1, 2), 2960);
  // Stages 0 and 3 are the plain formula with shardWays tp and tp * dp.
  EXPECT_EQ(trainLayerResidentBytes(s, 2, 0, 2),
            layerResidentBytes(s, true, 2));
  EXPECT_EQ(trainLayerResidentBytes(s, 2, 3, 2),
            layerResidentBytes(s, true, 4));
}

//===----------------------------------------------------------------------===//
// checkTrainJob
//===----------------------------------------------------------------------===//

TEST(TrainJobRules, BaselinesPass) {
  EXPECT_NO_PROBLEMS(
      checkTrainJob(llama7B(), chip("H100"), 64, TrainDegrees()));
  EXPECT_NO_PROBLEMS(
      checkTrainJob(llama7B(), chip("H100"), 64, train(0, 0, 1, 1, 3)));
  EXPECT_NO_PROBLEMS(
      checkTrainJob(llama7B(), chip("A100_40GB"), 64, train(8, 4, 2, 1, 1)));
}

TEST(TrainJobRules, SpAndPpAreStaticOrPlannerChosen) {
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(-1, 1, 1, 1, 3)),
                        "sp"),
            "sp (-1) must be at least 1, or 0 to let the planner choose it");
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(1, -2, 1, 1, 3)),
                        "pp"),
            "pp (-2) must be at least 1, or 0 to let the planner choose it");
}

TEST(TrainJobRules, TpAndCpAtLeastOne) {
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(1, 1, 0, 1, 3)),
                        "tp"),
            "tp (0) must be at least 1");
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(1, 1, 1, 0, 3)),
                        "cp"),
            "cp (0) must be at least 1");
}

TEST(TrainJobRules, ZeroStageInRange) {
  for (int64_t zero : {int64_t(-1), int64_t(4)})
    EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                        train(1, 1, 1, 1, zero)),
                          "zero"),
              "zero (" + std::to_string(zero) +
                  ") must be a ZeRO stage: 0, 1, 2 or 3");
}

TEST(TrainJobRules, SpDividesHeads) {
  // 3 divides the 48 chips, so only the heads rule can fire.
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 48,
                                      train(3, 1, 1, 1, 3)),
                        "sp"),
            "sp (3) must divide heads (32): Ulysses gives each rank heads / "
            "sp attention heads");
}

TEST(TrainJobRules, TpDividesHeads) {
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 48,
                                      train(1, 1, 3, 1, 3)),
                        "tp"),
            "tp (3) must divide heads (32): tensor parallelism splits "
            "attention by heads");
}

TEST(TrainJobRules, SpTimesTpDividesHeads) {
  // 8 | 32 and 8 | 32, but each TP rank has 4 heads, which 8 cannot split.
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(8, 1, 8, 1, 3)),
                        "sp"),
            "sp * tp (8 * 8 = 64) must divide heads (32): each "
            "tensor-parallel rank holds heads / tp heads, which Ulysses "
            "splits sp ways");
  EXPECT_NO_PROBLEMS(
      checkTrainJob(llama7B(), chip("H100"), 64, train(8, 1, 4, 1, 3)));
}

TEST(TrainJobRules, PpAtMostLayers) {
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(1, 64, 1, 1, 3)),
                        "pp"),
            "pp (64) must not exceed layers (32): every pipeline stage needs "
            "at least one layer");
  EXPECT_NO_PROBLEMS(
      checkTrainJob(llama7B(), chip("H100"), 64, train(1, 32, 1, 1, 3)));
}

TEST(TrainJobRules, DegreesDivideChips) {
  // The largest degree (pp = 4) is blamed.
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 24,
                                      train(2, 4, 2, 1, 3)),
                        "pp"),
            "sp * pp * tp * cp (2 * 4 * 2 * 1 = 16) must divide the chip "
            "count (24)");
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 12,
                                      train(0, 4, 2, 1, 3)),
                        "pp"),
            "sp * pp * tp * cp (1 * 4 * 2 * 1 = 8) must divide the chip count "
            "(12) (a planner-chosen degree counts as 1)");
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64,
                                      train(1, 1, 1, 3, 3)),
                        "cp"),
            "sp * pp * tp * cp (1 * 1 * 1 * 3 = 3) must divide the chip count "
            "(64)");
}

TEST(TrainJobRules, HugeDegreesSaturateInsteadOfOverflowing) {
  int64_t huge = int64_t(1) << 62;
  std::vector<JobProblem> problems =
      checkTrainJob(llama7B(), chip("H100"), 64, train(4, 1, 4, huge, 3));
  std::string message = onlyProblem(problems, "cp");
  EXPECT_NE(message.find("must divide the chip count (64)"), std::string::npos)
      << message;
}

TEST(TrainJobRules, ChipsPositive) {
  EXPECT_EQ(
      onlyProblem(checkTrainJob(llama7B(), chip("H100"), 0, TrainDegrees()),
                  "chips"),
      "the job needs at least one chip, but the fabric has 0");
}

TEST(TrainJobRules, MemoryLimitWithinHBM) {
  TrainDegrees d;
  d.memoryLimitBytes = 81000000000LL; // 81 GB > the 80 GB of HBM
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64, d),
                        "memory_limit"),
            "memory_limit (81.00 GB) exceeds the HBM of H100 (80.00 GB)");
  d.memoryLimitBytes = -1;
  EXPECT_EQ(onlyProblem(checkTrainJob(llama7B(), chip("H100"), 64, d),
                        "memory_limit"),
            "memory_limit (-1 bytes) must not be negative");
  d.memoryLimitBytes = 80000000000LL; // exactly the HBM
  EXPECT_NO_PROBLEMS(checkTrainJob(llama7B(), chip("H100"), 64, d));
}

TEST(TrainJobRules, LayerMustFitTheChip) {
  // 16 * 592 = 9472 bytes for the tiny layer, unsharded.
  TransformerShape s = tinyDense();
  std::string message = onlyProblem(
      checkTrainJob(s, tinyChip(9000), 1, train(1, 1, 1, 1, 0)), "model");
  EXPECT_NE(message.find("raise tp or use zero = 3"), std::string::npos)
      << message;
  // tp = 2 halves it to 4736.
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(9000), 2, train(1, 1, 2, 1, 0)));
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(9472), 1, train(1, 1, 1, 1, 0)));
  // ZeRO-3 over 4 chips: 2368 bytes.
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(2400), 4, train(1, 1, 1, 1, 3)));
  // Already ZeRO-3 on one chip: the hint changes.
  message = onlyProblem(
      checkTrainJob(s, tinyChip(2000), 1, train(1, 1, 1, 1, 3)), "model");
  EXPECT_NE(message.find("raise tp or use more chips"), std::string::npos)
      << message;
}

TEST(TrainJobRules, ZeroOneShardsOptimizerStates) {
  // 4 chips: ZeRO-0 needs 9472 bytes, ZeRO-1 4144, ZeRO-2 3256.
  TransformerShape s = tinyDense();
  EXPECT_EQ(
      onlyProblem(checkTrainJob(s, tinyChip(5000), 4, train(1, 1, 1, 1, 0)),
                  "model")
          .empty(),
      false);
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(5000), 4, train(1, 1, 1, 1, 1)));
  EXPECT_FALSE(
      checkTrainJob(s, tinyChip(3000), 4, train(1, 1, 1, 1, 2)).empty());
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(3256), 4, train(1, 1, 1, 1, 2)));
}

TEST(TrainJobRules, PipelineNarrowsTheZeroGroup) {
  // ZeRO-3 on 4 chips: pp = 2 leaves 2 data-parallel ranks (4736 bytes);
  // a planner-chosen pp counts as 1, leaving 4 (2368 bytes).
  TransformerShape s = tinyDense();
  EXPECT_NO_PROBLEMS(checkTrainJob(s, tinyChip(2400), 4, train(1, 0, 1, 1, 3)));
  EXPECT_FALSE(
      checkTrainJob(s, tinyChip(2400), 4, train(1, 2, 1, 1, 3)).empty());
}

TEST(TrainJobRules, MemoryLimitMessageInGB) {
  // 16 * 202,383,360 = 3,238,133,760 bytes = 3.24 GB > 2 GiB = 2.15 GB.
  TrainDegrees d = train(1, 1, 1, 1, 0);
  d.memoryLimitBytes = int64_t(2) << 30;
  EXPECT_EQ(
      onlyProblem(checkTrainJob(llama7B(), chip("H100"), 8, d), "memory_limit"),
      "the largest layer needs 3.24 GB per chip for weights, gradients "
      "and Adam states (tp = 1, zero = 0), more than the 2.15 GB "
      "memory_limit; raise tp or use zero = 3");
  d.tp = 2; // 1.51 GiB
  EXPECT_NO_PROBLEMS(checkTrainJob(llama7B(), chip("H100"), 8, d));
}

TEST(TrainJobRules, BrokenShapeSkipsModelRules) {
  TransformerShape s = llama7B();
  s.heads = 0; // reported by checkTransformerShape, not here
  EXPECT_NO_PROBLEMS(checkTrainJob(s, chip("H100"), 72, train(3, 1, 3, 1, 0)));
}

//===----------------------------------------------------------------------===//
// checkServeJob
//===----------------------------------------------------------------------===//

TEST(ServeJobRules, BaselinesPass) {
  // PipeSwift's layout: GLM in FP8 on H800, EP8 x PP2, 64 chips, 0.8.
  EXPECT_NO_PROBLEMS(
      checkServeJob(glm45FP8(), chip("H800"), 64, serve(2, 8, 0.8)));
  EXPECT_NO_PROBLEMS(checkServeJob(llama7B(), chip("H100"), 8, serve(1, 1)));
}

TEST(ServeJobRules, DegreesAtLeastOneOrChosen) {
  EXPECT_EQ(onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 4, serve(-1, 1)),
                        "pp"),
            "pp (-1) must be at least 1");
  EXPECT_EQ(onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 4, serve(1, -2)),
                        "ep"),
            "ep (-2) must be at least 1");
  // 0 leaves a degree to the planner: nothing to check but that a fixed
  // other degree divides the chips.
  EXPECT_NO_PROBLEMS(checkServeJob(tinyMoE(), chip("H100"), 4, serve(0, 1)));
  EXPECT_NO_PROBLEMS(checkServeJob(tinyMoE(), chip("H100"), 4, serve(1, 0)));
  EXPECT_NO_PROBLEMS(checkServeJob(tinyMoE(), chip("H100"), 4, serve(0, 0)));
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 6, serve(0, 4)), "ep"),
      "ep (4) must divide the chip count (6)");
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 3, serve(2, 0)), "pp"),
      "pp (2) must divide the chip count (3)");
}

TEST(ServeJobRules, PpAtMostLayers) {
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 4, serve(4, 1)), "pp"),
      "pp (4) must not exceed layers (3): every pipeline stage needs at "
      "least one layer");
}

TEST(ServeJobRules, EpDividesExperts) {
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 3, serve(1, 3)), "ep"),
      "ep (3) must divide experts (4)");
  EXPECT_NO_PROBLEMS(checkServeJob(tinyMoE(), chip("H100"), 4, serve(1, 4)));
}

TEST(ServeJobRules, DenseModelHasNoEp) {
  EXPECT_EQ(onlyProblem(
                checkServeJob(tinyDense(), chip("H100"), 2, serve(1, 2)), "ep"),
            "ep (2) must be 1 for a dense model (experts = 0): there are no "
            "experts to spread");
}

TEST(ServeJobRules, DegreesDivideChips) {
  EXPECT_EQ(onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 12, serve(2, 4)),
                        "ep"),
            "pp * ep (2 * 4 = 8) must divide the chip count (12)");
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 4, serve(3, 1)), "pp"),
      "pp * ep (3 * 1 = 3) must divide the chip count (4)");
}

TEST(ServeJobRules, ChipsPositive) {
  EXPECT_EQ(onlyProblem(checkServeJob(tinyMoE(), chip("H100"), -1, serve(1, 1)),
                        "chips"),
            "the job needs at least one chip, but the fabric has -1");
}

TEST(ServeJobRules, MemoryUtilizationInUnitInterval) {
  for (double bad : {0.0, -0.1, 1.5, std::nan("")}) {
    std::string message =
        onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 1, serve(1, 1, bad)),
                    "memory_utilization");
    EXPECT_NE(message.find("must be in (0, 1]"), std::string::npos) << message;
  }
  EXPECT_EQ(
      onlyProblem(checkServeJob(tinyMoE(), chip("H100"), 1, serve(1, 1, 1.5)),
                  "memory_utilization"),
      "memory_utilization (1.5) must be in (0, 1]");
  EXPECT_NO_PROBLEMS(
      checkServeJob(tinyMoE(), chip("H100"), 1, serve(1, 1, 1.0)));
}

TEST(ServeJobRules, LargestLayerMustFit) {
  // Half of 2000 bytes usable. MoE layer: 784 parameters * 2 bytes = 1568.
  TransformerShape s = tinyMoE();
  std::string message =
      onlyProblem(checkServeJob(s, tinyChip(2000), 1, serve(1, 1, 0.5)), "ep");
  EXPECT_NE(message.find("raise ep"), std::string::npos) << message;
  // Dense: 592 * 2 = 1184 bytes against 1000 usable.
  message = onlyProblem(
      checkServeJob(tinyDense(), tinyChip(1000), 1, serve(1, 1, 1.0)), "model");
  EXPECT_NE(message.find("smaller dtype"), std::string::npos) << message;
}

TEST(ServeJobRules, WholeModelMustFitAcrossPpAndEp) {
  // MoE, 3320 parameters * 2 bytes = 6640 bytes; 1000 usable per chip.
  TransformerShape s = tinyMoE();
  // ep = 2: the layer (784 bytes) fits, 6640 / 2 = 3320 does not.
  std::string message = onlyProblem(
      checkServeJob(s, tinyChip(2000), 2, serve(1, 2, 0.5)), "model");
  EXPECT_NE(message.find("raise pp or ep"), std::string::npos) << message;
  // pp 3 * ep 4 = 12 chips: ceil(6640 / 12) = 554 bytes.
  EXPECT_NO_PROBLEMS(checkServeJob(s, tinyChip(2000), 12, serve(3, 4, 0.5)));
  // Dense in FP8: layer 592 fits in 1000; whole model 1352 needs pp = 2.
  TransformerShape d = tinyDense();
  d.dtype = DType::FP8;
  EXPECT_EQ(onlyProblem(checkServeJob(d, tinyChip(1000), 1, serve(1, 1, 1.0)),
                        "model")
                .empty(),
            false);
  EXPECT_NO_PROBLEMS(checkServeJob(d, tinyChip(1000), 2, serve(2, 1, 1.0)));
}

TEST(ServeJobRules, WeightsMessageInGB) {
  // GLM in FP8 on one H800 stage: 356,784,522,240 bytes = 356.78 GB;
  // 80% of 80e9 bytes is 64.00 GB.
  EXPECT_EQ(
      onlyProblem(checkServeJob(glm45FP8(), chip("H800"), 64, serve(1, 1, 0.8)),
                  "model"),
      "the weights need 356.78 GB per chip (356.78 GB in all, spread "
      "over pp * ep = 1), more than 80% of the 80.00 GB HBM of H800 "
      "(64.00 GB); raise pp or ep");
}

TEST(ServeJobRules, BrokenShapeSkipsModelRules) {
  TransformerShape s = tinyMoE();
  s.layers = 0;
  EXPECT_NO_PROBLEMS(checkServeJob(s, chip("H100"), 3, serve(3, 1)));
}

} // namespace
