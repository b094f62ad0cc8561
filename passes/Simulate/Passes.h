//===- Passes.h - Passes over rt programs -----------------------*- C++ -*-===//
#ifndef PLEXUS_PASSES_SIMULATE_PASSES_H
#define PLEXUS_PASSES_SIMULATE_PASSES_H

#include "mlir/Pass/Pass.h"

namespace plexus::sim {
#define GEN_PASS_DECL
#include "passes/Simulate/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Simulate/Passes.h.inc"
} // namespace plexus::sim

#endif // PLEXUS_PASSES_SIMULATE_PASSES_H
