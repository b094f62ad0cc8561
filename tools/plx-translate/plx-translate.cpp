//===- plx-translate.cpp - Import and export of Plexus IR -----------------===//
//
// --import-plx: .plx text to plx (spec) IR. Diagnostics are the frontend's
// clang-style ones, printed to stderr.
// --emit-cpp, --emit-launch, --emit-json, --emit-nccl-topo: from a module
// of lowered rt programs, the generated C++ program, its launch script, the
// programs as JSON and an NCCL topology file (codegen/Cpp/EmitCpp.h). The
// programs are checked by plx-verify-rt first; nothing is written when they
// break the plan contract.
//
//===----------------------------------------------------------------------===//
#include "codegen/Cpp/EmitCpp.h"
#include "dialects/Registration.h"
#include "frontend/MLIRGen.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <iostream>

/// `--set NAME.FIELD=VALUE`, as plxc takes it (frontend/Overrides.h).
static llvm::cl::list<std::string>
    setOverrides("set",
                 llvm::cl::desc("With --import-plx, override one field of "
                                "the spec: NAME.FIELD[.FIELD...]=VALUE "
                                "(repeatable; checked like the text)"),
                 llvm::cl::value_desc("name.field=value"));

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
                *context, name, buffer->getBuffer().str(), std::cerr,
                plexus::frontend::LoadOptions{
                    {setOverrides.begin(), setOverrides.end()}});
        if (!module)
          return nullptr;
        return mlir::OwningOpRef<mlir::Operation *>(module.release());
      },
      [](mlir::DialectRegistry &registry) {
        plexus::registerAllDialects(registry);
      });
}

/// An export from rt IR: verify the programs, then write. Output goes to
/// a buffer first so that a failing generator leaves nothing behind.
template <typename Emit>
static void registerExport(llvm::StringRef name, llvm::StringRef description,
                           Emit emit) {
  mlir::TranslateFromMLIRRegistration(
      name, description,
      [emit](mlir::Operation *op, llvm::raw_ostream &os) {
        auto module = llvm::dyn_cast<mlir::ModuleOp>(op);
        if (!module)
          return op->emitError("expected a module"), mlir::failure();
        if (mlir::failed(plexus::codegen::verifyForCodegen(module)))
          return mlir::failure();
        std::string text;
        llvm::raw_string_ostream buffer(text);
        if (mlir::failed(emit(module, buffer)))
          return mlir::failure();
        os << text;
        return mlir::success();
      },
      [](mlir::DialectRegistry &registry) {
        plexus::registerAllDialects(registry);
      });
}

int main(int argc, char **argv) {
  registerImportPlx();
  registerExport("emit-cpp",
                 "write the C++ program that runs the module's rt programs",
                 [](mlir::ModuleOp m, llvm::raw_ostream &os) {
                   return plexus::codegen::emitCpp(m, os);
                 });
  registerExport("emit-launch", "write launch.sh for the generated program",
                 [](mlir::ModuleOp m, llvm::raw_ostream &os) {
                   plexus::codegen::LaunchOptions options;
                   options.sourceDir = PLEXUS_SOURCE_DIR;
                   options.buildDir = PLEXUS_BINARY_DIR;
                   return plexus::codegen::emitLaunchScript(m, os, options);
                 });
  registerExport("emit-json", "write the rt programs as JSON",
                 [](mlir::ModuleOp m, llvm::raw_ostream &os) {
                   return plexus::codegen::emitProgramsJson(m, os);
                 });
  registerExport("emit-nccl-topo",
                 "write an NCCL topology file for the placed ranks",
                 [](mlir::ModuleOp m, llvm::raw_ostream &os) {
                   return plexus::codegen::emitNcclTopology(m, os);
                 });
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "Plexus translation driver"));
}
