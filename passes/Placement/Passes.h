//===- Passes.h - Placement passes ------------------------------*- C++ -*-===//
#ifndef PLEXUS_PASSES_PLACEMENT_PASSES_H
#define PLEXUS_PASSES_PLACEMENT_PASSES_H

#include "mlir/Pass/Pass.h"

namespace plexus::placement {
#define GEN_PASS_DECL
#include "passes/Placement/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Placement/Passes.h.inc"
} // namespace plexus::placement

#endif // PLEXUS_PASSES_PLACEMENT_PASSES_H
