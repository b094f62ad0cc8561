//===- Passes.h - Training passes: static plans and lowering ----*- C++ -*-===//
#ifndef PLEXUS_PASSES_TRAIN_PASSES_H
#define PLEXUS_PASSES_TRAIN_PASSES_H

#include "mlir/Pass/Pass.h"

namespace plexus::train {
#define GEN_PASS_DECL
#include "passes/Train/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Train/Passes.h.inc"

/// Registers `plx-train-pipeline`: plx-instantiate, plx-place and
/// plx-predict-train, the stages plxc runs on a spec's train jobs.
void registerTrainPipelines();
} // namespace plexus::train

#endif // PLEXUS_PASSES_TRAIN_PASSES_H
