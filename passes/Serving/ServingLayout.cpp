//===- ServingLayout.cpp - Serving instances and their memory -------------===//

#include "passes/Serving/ServingLayout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace plexus::serving {

namespace {

std::string num(int64_t v) { return std::to_string(v); }

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(int64_t(1) << 30));
  return buf;
}

bool isDense(const cost::TransformerShape &s, int64_t index) {
  return !s.isMoE() || index < s.denseLayers;
}

} // namespace

std::vector<int64_t> evenLayerSplit(int64_t layers, int64_t pp) {
  if (pp < 1)
    return {};
  std::vector<int64_t> split(size_t(pp), layers / pp);
  for (int64_t s = 0; s < layers % pp; ++s)
    ++split[size_t(s)];
  return split;
}

std::vector<int64_t> stageLayerCounts(const cost::TransformerShape &shape,
                                      const ServingLayout &layout) {
  return layout.stageLayers.empty() ? evenLayerSplit(shape.layers, layout.pp)
                                    : layout.stageLayers;
}

std::string checkServingLayout(const cost::TransformerShape &shape,
                               const ServingLayout &layout) {
  if (!cost::checkTransformerShape(shape).empty())
    return "the model's shape is invalid";
  if (layout.pp < 1 || layout.ep < 1)
    return "pp (" + num(layout.pp) + ") and ep (" + num(layout.ep) +
           ") must be at least 1";
  if (layout.pp > shape.layers)
    return "pp (" + num(layout.pp) + ") must not exceed layers (" +
           num(shape.layers) + ")";
  if (shape.isMoE() ? shape.experts % layout.ep != 0 : layout.ep != 1)
    return shape.isMoE() ? "ep (" + num(layout.ep) + ") must divide experts (" +
                               num(shape.experts) + ")"
                         : "a dense model needs ep = 1";
  if (layout.mtpDrafts < 0 || layout.mtpDrafts > 16)
    return "mtp drafts (" + num(layout.mtpDrafts) + ") must be in [0, 16]";
  if (layout.mtpDrafts > 0 && shape.mtpLayers < 1)
    return "mtp drafts need a model with MTP layers";
  if (!layout.stageLayers.empty()) {
    if (int64_t(layout.stageLayers.size()) != layout.pp)
      return "the layer split has " + num(int64_t(layout.stageLayers.size())) +
             " stages, but pp is " + num(layout.pp);
    int64_t sum = 0;
    for (int64_t l : layout.stageLayers) {
      if (l < 1)
        return "every stage needs at least one layer";
      sum += l;
    }
    if (sum != shape.layers)
      return "the layer split holds " + num(sum) +
             " layers, but the model has " + num(shape.layers);
  }
  return "";
}

int64_t nodesPerEpGroup(const ServingLayout &layout,
                        const ServingHardware &hw) {
  int64_t perNode = std::max<int64_t>(1, hw.chipsPerNode);
  return (layout.ep + perNode - 1) / perNode;
}

bool stageBoundaryCrossesNodes(const ServingLayout &layout,
                               const ServingHardware &hw, int64_t stage) {
  int64_t perNode = std::max<int64_t>(1, hw.chipsPerNode);
  int64_t chips = layout.chips();
  int64_t from = ((stage + 1) * layout.ep - 1) % chips; // last chip of stage
  int64_t to = ((stage + 1) * layout.ep) % chips;       // first of the next
  return from / perNode != to / perNode;
}

LayerBytesPerChip layerBytesPerChip(const cost::TransformerShape &shape,
                                    const ServingLayout &layout,
                                    int64_t index) {
  const double e = double(cost::bytesPerElement(shape.dtype));
  const double ep = double(layout.ep);
  LayerBytesPerChip b;
  double attention = double(cost::attentionParameters(shape)) * e;
  b.attention = layout.dpAttention ? attention : attention / ep;
  if (isDense(shape, index)) {
    b.fixedMlp = double(cost::mlpParameters(shape, shape.ffn)) * e / ep;
  } else {
    double expert = double(cost::mlpParameters(shape, shape.moeFfn)) * e;
    double router = double(shape.hidden) * double(shape.experts) * e;
    b.fixedMlp = double(shape.sharedExperts) * expert + router;
    b.routedExperts = double(shape.experts) / ep * expert;
  }
  return b;
}

Result<InstanceMemory> instanceMemory(const cost::TransformerShape &shape,
                                      const ServingHardware &hw,
                                      const ServingLayout &layout,
                                      const ServingCostOptions &options) {
  std::string problem = checkServingLayout(shape, layout);
  if (!problem.empty())
    return Result<InstanceMemory>::fail(problem);
  if (hw.chip.hbmBytes <= 0)
    return Result<InstanceMemory>::fail("the chip has no device memory");
  if (!(options.memoryUtilization > 0 && options.memoryUtilization <= 1))
    return Result<InstanceMemory>::fail("memory utilization must be in (0, 1]");
  if (options.pageTokens < 1 || options.kvBytesPerElement < 1)
    return Result<InstanceMemory>::fail(
        "page tokens and KV bytes per element must be at least 1");

  const double e = double(cost::bytesPerElement(shape.dtype));
  const double ep = double(layout.ep);
  const double vocabBytes = double(shape.vocab) * double(shape.hidden) * e;
  const int64_t headDim = cost::effectiveHeadDim(shape);
  // KV bytes per token per layer on a chip that holds the token.
  const double kvHeadsHeld =
      layout.dpAttention ? double(shape.kvHeads)
                         : double((shape.kvHeads + layout.ep - 1) / layout.ep);
  const double kvPerLayer =
      2.0 * kvHeadsHeld * double(headDim) * double(options.kvBytesPerElement);
  const bool mtp = layout.mtpDrafts > 0;

  std::vector<int64_t> counts = stageLayerCounts(shape, layout);
  InstanceMemory mem;
  const double budget = options.memoryUtilization * double(hw.chip.hbmBytes);
  const double reserve = double(options.reservedBytesPerChip);
  const double usable =
      options.memoryBudget == MemoryBudget::Executor
          ? budget - reserve
          : std::min(budget, double(hw.chip.hbmBytes) - reserve);
  int64_t first = 0;
  for (int64_t s = 0; s < layout.pp; ++s) {
    StageMemory st;
    int64_t layers = counts[size_t(s)];
    for (int64_t i = first; i < first + layers; ++i)
      st.weightBytes += layerBytesPerChip(shape, layout, i).total();
    if (s == 0)
      st.weightBytes += vocabBytes / ep;
    if (s == layout.pp - 1 && (!shape.tiedEmbeddings || layout.pp > 1))
      st.weightBytes += vocabBytes / ep;
    int64_t kvLayers = layers;
    if (s == layout.pp - 1 && mtp) {
      LayerBytesPerChip last =
          layerBytesPerChip(shape, layout, shape.layers - 1);
      double projection = 2.0 * double(shape.hidden) * double(shape.hidden) * e;
      st.weightBytes += double(shape.mtpLayers) * (last.total() + projection);
      kvLayers += shape.mtpLayers;
    }
    st.freeBytes = usable - st.weightBytes;
    if (st.freeBytes <= 0) {
      return Result<InstanceMemory>::fail(
          "stage " + num(s) + "'s weights need " + gib(st.weightBytes) +
          " per chip, but " + gib(usable) +
          " is usable (memory utilization x HBM, less the reserve where the "
          "runtime counts it); raise pp or ep");
    }
    st.kvBytesPerToken = kvPerLayer * double(kvLayers);
    double holders = layout.dpAttention ? ep : 1.0;
    st.kvTokens =
        int64_t(std::floor(holders * st.freeBytes / st.kvBytesPerToken));
    mem.stages.push_back(st);
    first += layers;
  }
  mem.kvTokens = mem.stages.front().kvTokens;
  for (const StageMemory &st : mem.stages)
    mem.kvTokens = std::min(mem.kvTokens, st.kvTokens);
  mem.kvPages = mem.kvTokens / options.pageTokens;
  return Result<InstanceMemory>::ok(std::move(mem));
}

} // namespace plexus::serving
