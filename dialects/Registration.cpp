//===- Registration.cpp - Register all Plexus dialects --------------------===//
#include "dialects/Registration.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "dialects/Rt/IR/RtDialect.h"

#include "mlir/IR/DialectRegistry.h"

void plexus::registerAllDialects(mlir::DialectRegistry &registry) {
  registry.insert<plexus::plx::PlxDialect, plexus::plan::PlanDialect,
                  plexus::rt::RtDialect>();
}
