//===- plx-translate.cpp - Import and export of Plexus IR -----------------===//
//
// --import-plx: .plx text to plx (spec) IR. Diagnostics are the frontend's
// clang-style ones, printed to stderr.
//
//===----------------------------------------------------------------------===//
#include "dialects/Registration.h"
#include "frontend/MLIRGen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <iostream>

static void registerImportPlx() {
  mlir::TranslateToMLIRRegistration importPlx(
      "import-plx", "import a .plx spec as plx dialect IR",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         mlir::MLIRContext *context) -> mlir::OwningOpRef<mlir::Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        std::string name = buffer->getBufferIdentifier().str();
        mlir::OwningOpRef<mlir::ModuleOp> module =
            plexus::frontend::importPlxText(
                *context, name, buffer->getBuffer().str(), std::cerr);
        if (!module)
          return nullptr;
        return mlir::OwningOpRef<mlir::Operation *>(module.release());
      },
      [](mlir::DialectRegistry &registry) {
        plexus::registerAllDialects(registry);
      });
}

int main(int argc, char **argv) {
  registerImportPlx();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Plexus translation driver"));
}
