//===- MLIRGen.h - Checked spec to plx IR -----------------------*- C++ -*-===//
//
// One plx op per declaration, in source order, each located at the
// declaration's name (file:line:col of the .plx file).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_MLIRGEN_H
#define PLEXUS_FRONTEND_MLIRGEN_H

#include "frontend/Diagnostics.h"
#include "frontend/Parser.h"
#include "frontend/Spec.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace plexus::frontend {

/// Builds the spec module. Never fails on a Spec produced by analyzeProgram;
/// a module the plx verifiers reject would be a frontend bug and is
/// reported as an internal error by importPlxFile.
mlir::OwningOpRef<mlir::ModuleOp> buildSpecModule(mlir::MLIRContext &context,
                                                  const Spec &spec,
                                                  const SourceManager &sources);

/// The whole frontend: read `path` (and its imports), check it, build and
/// verify the plx module. Diagnostics are printed to `errs` clang style,
/// at most `errorLimit` errors (0: all). Returns null on any error.
mlir::OwningOpRef<mlir::ModuleOp>
importPlxFile(mlir::MLIRContext &context, const std::string &path,
              std::ostream &errs, unsigned errorLimit = 20,
              const LoadOptions &options = {});

/// Same for a buffer already in memory (plx-translate reads its input).
mlir::OwningOpRef<mlir::ModuleOp>
importPlxText(mlir::MLIRContext &context, const std::string &name,
              std::string text, std::ostream &errs,
              const LoadOptions &options = {}, unsigned errorLimit = 20);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_MLIRGEN_H
