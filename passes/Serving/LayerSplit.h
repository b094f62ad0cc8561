//===- LayerSplit.h - Uneven layer split across serving stages --*- C++ -*-===//
//
// PipeSwift gives the last pipeline stage fewer backbone layers so that its
// extra work (MTP verify -> extend -> draft, the LM head, sampling) does not
// make it the bottleneck (reference pipeswift_railx.md section 1.6, and
// section 3.1 item 9). We choose the split that minimises the largest
// modelled stage time, a stage's time being the sum of its layers' times
// plus its own extra, over contiguous splits with at least one layer per
// stage: an exact dynamic programme, O(P L log L), using that the best
// bottleneck of a prefix only grows with the prefix.
//
// Choices where the reference is silent: the paper tunes the split on
// measured times; we balance the modelled decode time of a representative
// micro-batch (decode steps dominate an agent job's time and repeat every
// iteration). Among equally good splits, each stage boundary is put as late
// as possible, scanning from the last stage back, so spare layers go to the
// earlier stages.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_PASSES_SERVING_LAYERSPLIT_H
#define PLEXUS_PASSES_SERVING_LAYERSPLIT_H

#include "passes/Serving/StageCost.h"

#include <cstdint>
#include <vector>

namespace plexus::serving {

/// Layers per stage minimising max_s (sum of the stage's layerSeconds +
/// stageExtraSeconds[s]), one stage per extra. Errors: no stage, fewer
/// layers than stages, a negative or non-finite time.
Result<std::vector<int64_t>>
balancedLayerSplit(const std::vector<double> &layerSeconds,
                   const std::vector<double> &stageExtraSeconds);

/// The largest stage time of a split (the objective above).
double splitBottleneckSeconds(const std::vector<double> &layerSeconds,
                              const std::vector<double> &stageExtraSeconds,
                              const std::vector<int64_t> &split);

/// The split for `layout` (its stageLayers ignored) balancing the decode
/// time of `representative`, one micro-batch per stage, under the
/// TransformerStageCost model.
Result<std::vector<int64_t>> planLayerSplit(const cost::TransformerShape &shape,
                                            const ServingHardware &hw,
                                            const ServingLayout &layout,
                                            const ServingCostOptions &options,
                                            const DecodeBatch &representative);

} // namespace plexus::serving

#endif // PLEXUS_PASSES_SERVING_LAYERSPLIT_H
