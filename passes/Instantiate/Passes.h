//===- Passes.h - Instantiation passes --------------------------*- C++ -*-===//
#ifndef PLEXUS_PASSES_INSTANTIATE_PASSES_H
#define PLEXUS_PASSES_INSTANTIATE_PASSES_H

#include "mlir/Pass/Pass.h"

namespace plexus::instantiate {
#define GEN_PASS_DECL
#include "passes/Instantiate/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Instantiate/Passes.h.inc"
} // namespace plexus::instantiate

#endif // PLEXUS_PASSES_INSTANTIATE_PASSES_H
