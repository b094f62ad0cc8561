//===- Passes.h - Serve passes: plan each serve job -------------*- C++ -*-===//
#ifndef PLEXUS_PASSES_SERVEJOB_PASSES_H
#define PLEXUS_PASSES_SERVEJOB_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace plexus::servejob {
#define GEN_PASS_DECL
#include "passes/ServeJob/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/ServeJob/Passes.h.inc"

/// plxc's stage for serve jobs: plx-serve-pipeline with the strategy's
/// wave interval and the baselines, `tracePath` (unless empty) receiving
/// the first job's replay.
void buildServePipeline(mlir::OpPassManager &pm,
                        const std::string &tracePath = "",
                        bool progress = false);

/// Registers `plx-serve-pipeline-default`: plx-serve-pipeline with the
/// strategy's own wave interval, the stage plxc runs on a spec's serve jobs
/// (it writes the same plan.serve_layout and plan.serve_policy).
void registerServePipelines();
} // namespace plexus::servejob

#endif // PLEXUS_PASSES_SERVEJOB_PASSES_H
