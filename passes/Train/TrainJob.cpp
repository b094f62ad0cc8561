//===- TrainJob.cpp - A plx.train as the planners' plain values -----------===//
#include "passes/Train/TrainJob.h"

#include "dialects/Common/JobRules.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace plexus::train {

FailureOr<TrainOps> trainOps(plx::TrainOp train) {
  TrainOps ops;
  ops.train = train;
  auto module = train->getParentOfType<ModuleOp>();
  ops.model = dyn_cast_or_null<plx::ModelOp>(
      SymbolTable::lookupSymbolIn(module, train.getModelAttr()));
  ops.data = dyn_cast_or_null<plx::DatasetOp>(
      SymbolTable::lookupSymbolIn(module, train.getDataAttr()));
  ops.fabric = dyn_cast_or_null<plx::FabricOp>(
      SymbolTable::lookupSymbolIn(module, train.getFabricAttr()));
  if (!ops.model || !ops.data || !ops.fabric)
    return train.emitOpError("names a model, dataset or fabric that is not "
                             "in the module");
  return ops;
}

baselines::TrainSetup trainSetupOf(TrainOps ops) {
  baselines::TrainSetup setup;
  plx::TrainStrategyAttr strategy = ops.train.getStrategy();
  setup.model.shape = ops.model.getShape().toShape();
  setup.model.chip = ops.fabric.getChip().toChipSpec();
  setup.model.efficiency = setup.model.chip.gemmEfficiency;
  setup.model.kernels = cost::chipRates(setup.model.chip).kernels;
  switch (strategy.getCheckpoint()) {
  case plx::Checkpoint::none:
    setup.model.checkpointing = cost::Checkpointing::None;
    break;
  case plx::Checkpoint::full:
    setup.model.checkpointing = cost::Checkpointing::Full;
    break;
  case plx::Checkpoint::attention_mlp:
    setup.model.checkpointing = cost::Checkpointing::AttentionMlp;
    break;
  case plx::Checkpoint::selective:
  case plx::Checkpoint::adaptive:
    setup.model.checkpointing = cost::Checkpointing::Selective;
    break;
  }
  setup.model.zero = strategy.getZero();
  setup.model.zeroPrefetch = strategy.getZeroPrefetch();
  setup.model.checkpointLayers = strategy.getCheckpointLayers();
  setup.world = ops.train.getJobChips(ops.fabric);
  setup.chipsPerNode = ops.fabric.getChipsPerNode();
  setup.microBatchSeqs = strategy.getMicroBatch();
  setup.memoryBytes =
      cost::usableMemoryBytes(setup.model.chip, strategy.getMemoryLimit(),
                              strategy.getMemoryReserve());
  setup.memoryReserveBytes =
      strategy.getMemoryReserve() >= 0
          ? strategy.getMemoryReserve()
          : cost::defaultMemoryReserveBytes(setup.model.chip);
  if (strategy.getEagerAttention())
    setup.model.attention = cost::AttentionKernel::Eager;
  return setup;
}

step::GroupLayout strategyLayout(plx::TrainOp train) {
  plx::TrainStrategyAttr s = train.getStrategy();
  step::GroupLayout layout;
  layout.ulysses = s.getSp() == plx::SpMode::static_ ? s.getSpDegree() : 1;
  layout.tp = s.getTp();
  layout.cp = s.getCp();
  layout.pp = s.getPp() == plx::PpMode::static_ ? s.getPpDegree() : 1;
  layout.vpp = layout.pp > 1 ? s.getVirtualStages() : 1;
  return layout;
}

instantiate::DatasetDesc datasetDescOf(plx::DatasetOp data) {
  instantiate::DatasetDesc d;
  llvm::TypeSwitch<Attribute>(data.getSource())
      .Case([&](plx::LengthsFileAttr a) {
        d.source = instantiate::LengthSource::Lengths;
        d.path = a.getPath().str();
      })
      .Case([&](plx::LognormalAttr a) {
        d.source = instantiate::LengthSource::Lognormal;
        d.mu = a.getMu();
        d.sigma = a.getSigma();
      })
      .Case([&](plx::HistogramAttr a) {
        d.source = instantiate::LengthSource::Histogram;
        d.bounds.assign(a.getBounds().begin(), a.getBounds().end());
        for (plx::Real w : a.getWeights())
          d.weights.push_back(w);
      });
  d.clamp = data.getClamp();
  d.padding = data.getPadding();
  d.overlong = data.getOverlong() == plx::Overlong::truncate
                   ? instantiate::Overlong::Truncate
                   : instantiate::Overlong::Drop;
  return d;
}

lower::RingOrders ringOrdersOf(plan::JobOp job) {
  lower::RingOrders orders;
  for (auto group : job.getBody()->getOps<plan::CommGroupOp>()) {
    std::optional<ArrayRef<int64_t>> order = group.getOrder();
    if (!order)
      continue;
    std::vector<int64_t> key(group.getRanks().begin(), group.getRanks().end());
    std::sort(key.begin(), key.end());
    std::vector<int64_t> ring(order->begin(), order->end());
    if (ring != key) // rank order needs no entry
      orders[key] = std::move(ring);
  }
  return orders;
}

FailureOr<PlacedJob> placedJob(plan::JobOp job) {
  if (!job.getChips())
    return job.emitOpError("has no chips: run plx-place first");
  auto module = job->getParentOfType<ModuleOp>();
  auto fabricOp = dyn_cast_or_null<plx::FabricOp>(
      SymbolTable::lookupSymbolIn(module, job.getFabricAttr()));
  if (!fabricOp)
    return job.emitOpError("names no plx.fabric in the module");
  PlacedJob placed;
  placed.graph = std::make_unique<fabric::FabricGraph>();
  fabric::FabricBuildResult built =
      placed.graph->build(fabricOp.getTopologyShape(), fabricOp.getNodes(),
                          fabricOp.getChipsPerNode());
  if (!built.ok())
    return fabricOp.emitOpError("cannot build the fabric: ")
           << built.problems.front().message;
  placed.params.intraNodeBandwidth =
      static_cast<double>(fabricOp.getIntraNodeBandwidth());
  for (int64_t r = 0; r < job.getRanks(); ++r) {
    auto [node, local] = job.chipOf(r);
    placed.chips.push_back({node, local});
  }
  return placed;
}

step::StepPlan stepPlanOf(plan::StepOp step) {
  step::StepPlan plan;
  plan.strategy = step.getStrategy() ? step.getStrategy()->str() : "";
  plan.world = step.getWorldSize();
  if (std::optional<ArrayRef<int64_t>> lengths = step.getLengths())
    plan.lengths.assign(lengths->begin(), lengths->end());
  plan.seconds = step.getTime();
  plan.peakMemBytes = step.getPeakMem();
  for (auto mb : step.getBody()->getOps<plan::MicrobatchOp>()) {
    step::PlannedMicroBatch pmb;
    pmb.seconds = mb.getTime();
    for (auto g : mb.getBody()->getOps<plan::SpGroupOp>()) {
      step::PlannedGroup pg;
      pg.layout.tp = g.getTpDegree();
      pg.layout.cp = g.getCpDegree();
      pg.layout.pp = g.getPpDegree();
      pg.layout.vpp = g.getVppDegree();
      pg.layout.ulysses = g.getUlyssesDegree();
      pg.firstRank = g.getFirstRank();
      pg.seqs.assign(g.getSeqs().begin(), g.getSeqs().end());
      pg.seconds = g.getTime();
      pg.memBytes = g.getMem();
      pmb.groups.push_back(std::move(pg));
    }
    plan.microBatches.push_back(std::move(pmb));
  }
  return plan;
}

plan::Checkpointing checkpointingAttrOf(cost::Checkpointing c) {
  switch (c) {
  case cost::Checkpointing::None:
    return plan::Checkpointing::none;
  case cost::Checkpointing::Selective:
    return plan::Checkpointing::selective;
  case cost::Checkpointing::Full:
    return plan::Checkpointing::full;
  case cost::Checkpointing::AttentionMlp:
    return plan::Checkpointing::attention_mlp;
  }
  return plan::Checkpointing::selective;
}

cost::Checkpointing checkpointingOf(plan::Checkpointing c) {
  switch (c) {
  case plan::Checkpointing::none:
    return cost::Checkpointing::None;
  case plan::Checkpointing::selective:
    return cost::Checkpointing::Selective;
  case plan::Checkpointing::full:
    return cost::Checkpointing::Full;
  case plan::Checkpointing::attention_mlp:
    return cost::Checkpointing::AttentionMlp;
  }
  return cost::Checkpointing::Selective;
}

plan::StepOp buildStepOp(OpBuilder &builder, Location loc, StringRef symName,
                         int64_t index, StringRef job,
                         const step::StepPlan &plan, int64_t zero,
                         std::optional<cost::Checkpointing> checkpoint) {
  auto step = builder.create<plan::StepOp>(loc, symName, index, plan.world,
                                           plan.seconds, plan.peakMemBytes);
  if (!job.empty())
    step.setJobAttr(FlatSymbolRefAttr::get(builder.getContext(), job));
  if (!plan.strategy.empty())
    step.setStrategyAttr(builder.getStringAttr(plan.strategy));
  if (zero >= 0)
    step.setZeroAttr(builder.getI64IntegerAttr(zero));
  if (checkpoint)
    step.setCheckpointAttr(plan::CheckpointingAttr::get(
        builder.getContext(), checkpointingAttrOf(*checkpoint)));
  step.setLengthsAttr(builder.getDenseI64ArrayAttr(plan.lengths));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(step.getBody());
  for (auto [i, mb] : llvm::enumerate(plan.microBatches)) {
    auto mbOp = builder.create<plan::MicrobatchOp>(loc, static_cast<int64_t>(i),
                                                   mb.seconds);
    OpBuilder::InsertionGuard inner(builder);
    builder.setInsertionPointToEnd(mbOp.getBody());
    for (const step::PlannedGroup &g : mb.groups) {
      int64_t degree = g.layout.degree();
      auto optional = [&](int64_t v) {
        return v != 1 ? builder.getI64IntegerAttr(v) : IntegerAttr();
      };
      builder.create<plan::SpGroupOp>(
          loc, builder.getI64IntegerAttr(degree),
          builder.getI64IntegerAttr(g.firstRank),
          builder.getI64IntegerAttr(g.firstRank + degree - 1),
          builder.getDenseI64ArrayAttr(g.seqs),
          builder.getF64FloatAttr(g.seconds),
          builder.getI64IntegerAttr(g.memBytes), optional(g.layout.tp),
          optional(g.layout.cp), optional(g.layout.pp), optional(g.layout.vpp));
    }
  }
  return step;
}

} // namespace plexus::train
