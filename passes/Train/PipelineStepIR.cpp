//===- PipelineStepIR.cpp - DPP steps as plan.pipeline ops ----------------===//
#include "passes/Train/PipelineStepIR.h"

#include "llvm/ADT/STLExtras.h"

#include <string>

using namespace mlir;

namespace plexus::train {

bool isPipelinedStep(plan::StepOp step) {
  return !step.getBody()->getOps<plan::PipelineOp>().empty();
}

std::vector<std::vector<int64_t>> rematTableOf(plan::PipelineOp pipeline) {
  std::vector<std::vector<int64_t>> table;
  auto remats = pipeline.getBody()->getOps<plan::RematOp>();
  if (remats.empty())
    return table;
  const size_t chunks = static_cast<size_t>(
      llvm::range_size(pipeline.getBody()->getOps<plan::ChunkOp>()));
  table.assign(static_cast<size_t>(pipeline.getStages()),
               std::vector<int64_t>(chunks, 0));
  for (plan::RematOp remat : remats)
    table[static_cast<size_t>(remat.getStage())].assign(
        remat.getLayers().begin(), remat.getLayers().end());
  return table;
}

step::PlannedPipeline plannedPipelineOf(plan::PipelineOp pipeline) {
  step::PlannedPipeline planned;
  for (plan::ChunkOp chunk : pipeline.getBody()->getOps<plan::ChunkOp>()) {
    step::PlannedChunk pc;
    pc.kind = plan::stringifyChunkKind(chunk.getKind()).str();
    for (size_t i = 0, e = chunk.getNumSlices(); i < e; ++i) {
      auto [seq, begin, end] = chunk.getSlice(i);
      pc.slices.push_back({seq, begin, end});
    }
    pc.seconds = chunk.getTime();
    pc.memBytes = chunk.getMem();
    planned.chunks.push_back(std::move(pc));
  }
  planned.backward.assign(pipeline.getBackward().begin(),
                          pipeline.getBackward().end());
  planned.nSplit = pipeline.getNSplit();
  planned.remat = rematTableOf(pipeline);
  planned.seconds = pipeline.getTime();
  planned.bubbleRatio = pipeline.getBubble();
  return planned;
}

step::PipelinedStepPlan pipelinedStepPlanOf(plan::StepOp step) {
  step::PipelinedStepPlan plan;
  plan.strategy = step.getStrategy() ? step.getStrategy()->str() : "";
  plan.world = step.getWorldSize();
  if (std::optional<ArrayRef<int64_t>> lengths = step.getLengths())
    plan.lengths.assign(lengths->begin(), lengths->end());
  plan.seconds = step.getTime();
  plan.peakMemBytes = step.getPeakMem();
  plan.bubbleRatio = step.getBubble().value_or(0.0);
  for (plan::PipelineOp pipeline : step.getBody()->getOps<plan::PipelineOp>()) {
    if (plan.pipelines.empty()) {
      plan.stages = pipeline.getStages();
      plan.spDegree = pipeline.getSpDegree();
    }
    plan.pipelines.push_back(plannedPipelineOf(pipeline));
  }
  return plan;
}

void setPipelineRemat(OpBuilder &builder, plan::PipelineOp pipeline,
                      const std::vector<std::vector<int64_t>> &remat) {
  for (plan::RematOp old :
       llvm::make_early_inc_range(pipeline.getBody()->getOps<plan::RematOp>()))
    old.erase();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(pipeline.getBody());
  for (auto [stage, layers] : llvm::enumerate(remat))
    if (llvm::any_of(layers, [](int64_t l) { return l != 0; }))
      builder.create<plan::RematOp>(pipeline.getLoc(),
                                    static_cast<int64_t>(stage), layers);
}

plan::StepOp buildPipelinedStepOp(OpBuilder &builder, Location loc,
                                  StringRef symName, int64_t index,
                                  StringRef job,
                                  const step::PipelinedStepPlan &plan) {
  // Check the kinds first, so that a bad one leaves no half-built step.
  for (const step::PlannedPipeline &pipeline : plan.pipelines)
    for (const step::PlannedChunk &chunk : pipeline.chunks)
      if (!plan::symbolizeChunkKind(chunk.kind)) {
        emitError(loc, "chunk kind '")
            << chunk.kind << "' is not packed, split or hybrid";
        return {};
      }

  auto step = builder.create<plan::StepOp>(loc, symName, index, plan.world,
                                           plan.seconds, plan.peakMemBytes);
  if (!job.empty())
    step.setJobAttr(FlatSymbolRefAttr::get(builder.getContext(), job));
  if (!plan.strategy.empty())
    step.setStrategyAttr(builder.getStringAttr(plan.strategy));
  if (!plan.lengths.empty())
    step.setLengthsAttr(builder.getDenseI64ArrayAttr(plan.lengths));
  step.setBubbleAttr(builder.getF64FloatAttr(plan.bubbleRatio));

  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(step.getBody());
  for (auto [i, pipeline] : llvm::enumerate(plan.pipelines)) {
    auto pipelineOp = builder.create<plan::PipelineOp>(
        loc, static_cast<int64_t>(i), plan.stages, plan.spDegree,
        pipeline.nSplit, pipeline.seconds, pipeline.bubbleRatio,
        pipeline.backward);
    OpBuilder::InsertionGuard inner(builder);
    builder.setInsertionPointToEnd(pipelineOp.getBody());
    for (auto [position, chunk] : llvm::enumerate(pipeline.chunks)) {
      std::vector<int64_t> flat;
      for (const step::ChunkSlice &s : chunk.slices)
        flat.insert(flat.end(), {s.sequence, s.begin, s.end});
      builder.create<plan::ChunkOp>(loc, static_cast<int64_t>(position),
                                    *plan::symbolizeChunkKind(chunk.kind), flat,
                                    chunk.seconds, chunk.memBytes);
    }
    setPipelineRemat(builder, pipelineOp, pipeline.remat);
  }
  return step;
}

} // namespace plexus::train
