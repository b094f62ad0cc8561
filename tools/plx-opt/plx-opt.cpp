//===- plx-opt.cpp - Plexus' opt-style pass driver ------------------------===//
//
// MlirOptMain with the plx, plan and rt dialects, Plexus' passes and its
// registered pipelines (plx-train-pipeline, plx-serve-pipeline-default),
// plus the upstream canonicalize, cse and symbol-dce passes.
//
//===----------------------------------------------------------------------===//
#include "dialects/Registration.h"
#include "passes/Instantiate/Passes.h"
#include "passes/Placement/Passes.h"
#include "passes/ServeJob/Passes.h"
#include "passes/Simulate/Passes.h"
#include "passes/Train/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerSymbolDCEPass();
  plexus::instantiate::registerInstantiatePasses();
  plexus::placement::registerPlacementPasses();
  plexus::servejob::registerServeJobPasses();
  plexus::sim::registerSimulatePasses();
  plexus::train::registerTrainPasses();
  plexus::train::registerTrainPipelines();
  plexus::servejob::registerServePipelines();

  mlir::DialectRegistry registry;
  plexus::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Plexus optimizer driver\n", registry));
}
