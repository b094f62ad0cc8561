//===- ServingLayout.h - Serving instances and their memory -----*- C++ -*-===//
//
// How one serving instance of a MoE (or dense) model is laid out: PP stages
// of contiguous layers, each stage an EP group of chips, attention either
// data-parallel across the group (DP-attention: each chip holds the whole
// attention block and the KV cache of its own requests) or tensor-parallel
// (each chip holds heads / ep query heads and ceil(kv_heads / ep) KV heads
// of every request). The last stage also runs the MTP layer, the LM head and
// sampling (reference pipeswift_railx.md sections 1.4 and 1.6). Plus the
// memory side: weight bytes per chip, and the KV cache the rest of
// memory_utilization x HBM holds, in pages.
//
// Choices where the reference is silent (all are options with defaults):
//  - Chips of an instance are consecutive: stage s holds chips
//    [s*ep, (s+1)*ep) and nodes hold chipsPerNode consecutive chips, so an
//    EP group of 16 spans two nodes and PP2 x EP8 puts a stage per node.
//  - Weights per chip: attention whole (DP-attention) or / ep (TP), the
//    dense MLP / ep, E / ep routed experts plus every shared expert and the
//    router on each chip of a MoE layer, the embedding on the first stage
//    and the LM head on the last, vocabulary-parallel (/ ep); the MTP
//    layers (a MoE layer and its 2h x h projection each) on the last stage
//    only when MTP is on.
//  - The KV cache is bf16 (kvBytesPerElement = 2; SGLang's "auto" for FP8
//    block-quantized checkpoints). A chip keeps reservedBytesPerChip (4 GiB)
//    for activations, CUDA graphs and communication buffers.
//  - What memory_utilization bounds depends on the runtime (memoryBudget).
//    vLLM's gpu_memory_utilization is the share of HBM for everything the
//    engine allocates, activations included, so the KV cache gets
//    u x HBM - weights - reserve (MemoryBudget::Executor). SGLang's
//    mem_fraction_static is the share for the weights and the KV pool only;
//    activations, CUDA graphs and communication buffers live in the rest of
//    HBM, so the pool gets min(u x HBM, HBM - reserve) - weights
//    (MemoryBudget::StaticPool; the min only matters when u is close to 1).
//    The paper sets 0.8 for every system; ServingSystems.h says which
//    reading each one gets.
//  - DP-attention pools the KV of the group: a stage holds
//    ep x free / (layers x KV per token per layer) tokens, as if requests
//    were spread evenly over the ranks. TP attention holds
//    free / (layers x 2 x ceil(kv_heads / ep) x head_dim x bytes) tokens.
//    An instance holds the least over its stages, in pages of pageTokens
//    (64) tokens.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_SERVINGLAYOUT_H
#define PLEXUS_PASSES_SERVING_SERVINGLAYOUT_H

#include "dialects/Common/ChipCatalog.h"
#include "dialects/Common/TransformerShape.h"
#include "passes/Serving/Result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace plexus::serving {

/// The chips and links an instance runs on.
struct ServingHardware {
  cost::ChipSpec chip;
  int64_t chipsPerNode = 8;
  /// Bytes/s per chip, one direction, inside a node; 0 = half the chip's
  /// NVLink figure (NVIDIA quotes both directions summed).
  double intraNodeBandwidth = 0;
  /// Bytes/s per chip, one direction, between nodes (one 400 Gb/s NIC per
  /// GPU, PipeSwift's 8 x 400 Gbps RoCE nodes).
  double interNodeBandwidth = 50e9;

  double intraBandwidth() const {
    return intraNodeBandwidth > 0 ? intraNodeBandwidth
                                  : chip.nvlinkBandwidth / 2;
  }
};

/// One serving instance: pp stages of ep chips.
struct ServingLayout {
  int64_t pp = 1;
  int64_t ep = 1;
  bool dpAttention = false;
  int64_t mtpDrafts = 0; // draft tokens per decode step; 0 = no MTP
  /// Decoder layers per stage, first to last; empty = evenLayerSplit.
  std::vector<int64_t> stageLayers;

  int64_t chips() const { return pp * ep; }
};

/// What memoryUtilization x HBM has to hold (see above): everything
/// (vLLM), or the weights and the KV pool only (SGLang).
enum class MemoryBudget { Executor, StaticPool };

/// Everything the serving cost and memory model leaves as a parameter.
/// Defaults are our choices (the reference gives none); see the headers of
/// ServingLayout.h and StageCost.h.
struct ServingCostOptions {
  // Achieved fractions of the chip's peaks.
  double gemmEfficiency = 0.5;      // GEMMs, of the weights' dtype peak
  double attentionEfficiency = 0.4; // attention core, of the BF16 peak
  double memoryEfficiency = 0.75;   // of HBM bandwidth
  double linkEfficiency = 0.8;      // of NVLink / NIC bandwidth
  /// Share of a layer's communication hidden under its compute (two-batch
  /// overlap); 0 charges it in full.
  double commOverlap = 0.0;
  // Fixed costs, seconds.
  double layerOverheadSeconds = 10e-6;     // launches per layer and pass
  double microBatchOverheadSeconds = 2e-3; // per prefill micro-batch/stage
  double intraAllToAllLatency = 15e-6; // one dispatch or combine (ours)
  /// ... across nodes: what DeepEP's published low-latency kernels leave
  /// after this model's bandwidth term (bench-serving derives it;
  /// docs/serving.md, "The all-to-all latencies").
  double interAllToAllLatency = 12e-6;
  double allReduceLatency = 10e-6;         // TP attention, per layer
  double p2pLatencyIntra = 10e-6;          // a PP send inside a node
  double p2pLatencyInter = 20e-6;          // ... between nodes
  double samplingSeconds = 100e-6;         // sampling + MTP bookkeeping
  // Bytes per element.
  int64_t kvBytesPerElement = 2;
  int64_t activationBytesPerElement = 2; // hidden states between stages
  int64_t dispatchBytesPerElement = 1;   // EP dispatch (FP8, DeepEP)
  int64_t combineBytesPerElement = 2;    // EP combine (BF16)
  /// Under DP-attention a request's attention runs on the one rank that
  /// holds its KV, so a stage waits for the busiest rank:
  /// max(total / ep, largest request). true assumes the runtime spreads
  /// every request over the ranks (as context parallelism would): total / ep.
  bool dpAttentionSpreadsRequests = false;
  /// Across nodes, a token goes once to each remote node that holds one of
  /// its experts and is forwarded inside it (DeepEP); false: once per
  /// remote rank.
  bool interNodeDedup = true;
  // Memory.
  double memoryUtilization = 0.8;
  MemoryBudget memoryBudget = MemoryBudget::Executor;
  int64_t reservedBytesPerChip = int64_t(4) << 30;
  int64_t pageTokens = 64;
};

/// Layers per stage with the remainder on the first stages: 92 layers on 2
/// stages are {46, 46}, 7 on 3 are {3, 2, 2}.
std::vector<int64_t> evenLayerSplit(int64_t layers, int64_t pp);

/// The layout's layers per stage (stageLayers, or the even split).
std::vector<int64_t> stageLayerCounts(const cost::TransformerShape &shape,
                                      const ServingLayout &layout);

/// Problems with a layout for a model: degrees < 1, pp > layers, ep not
/// dividing the experts (or ep > 1 for a dense model), stageLayers not
/// summing to the layers or holding an empty stage, MTP drafts without MTP
/// layers or outside [0, 16]. Empty when valid.
std::string checkServingLayout(const cost::TransformerShape &shape,
                               const ServingLayout &layout);

/// Whether the link after stage `stage` (to stage + 1; the last stage's
/// link is the feedback to stage 0) crosses nodes.
bool stageBoundaryCrossesNodes(const ServingLayout &layout,
                               const ServingHardware &hw, int64_t stage);
/// Nodes an EP group spans.
int64_t nodesPerEpGroup(const ServingLayout &layout, const ServingHardware &hw);

/// Weight bytes one chip holds for decoder layer `index`: attention, the
/// MLP part held whatever the routing (dense MLP, shared experts, router),
/// and the routed experts (all E / ep of them; a decode step reads only the
/// active share).
struct LayerBytesPerChip {
  double attention = 0;
  double fixedMlp = 0;
  double routedExperts = 0;
  double total() const { return attention + fixedMlp + routedExperts; }
};
LayerBytesPerChip layerBytesPerChip(const cost::TransformerShape &shape,
                                    const ServingLayout &layout, int64_t index);

/// Memory of one stage's chips, and of the instance.
struct StageMemory {
  double weightBytes = 0;     // per chip
  double freeBytes = 0;       // per chip, for the KV cache
  double kvBytesPerToken = 0; // per chip holding the token, all its layers
  int64_t kvTokens = 0;       // tokens the stage holds
};
struct InstanceMemory {
  std::vector<StageMemory> stages;
  int64_t kvTokens = 0; // least over the stages
  int64_t kvPages = 0;  // kvTokens / pageTokens
};

/// The memory of `layout`. Errors: an invalid layout, a chip without HBM,
/// or a stage whose weights and reserve leave no room for the KV cache
/// ("stage 1's weights need 71.3 GiB per chip, ...").
Result<InstanceMemory> instanceMemory(const cost::TransformerShape &shape,
                                      const ServingHardware &hw,
                                      const ServingLayout &layout,
                                      const ServingCostOptions &options);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_SERVINGLAYOUT_H
