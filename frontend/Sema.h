//===- Sema.h - Semantic checks of a .plx program ---------------*- C++ -*-===//
//
// Checks a parsed program against the language (docs/language.md): known
// declaration kinds and fields, units, ranges, required and conflicting
// fields, names and references, the shape rules of passes/Cost and the
// sizing rules of passes/Fabric, and whether each job fits its fabric.
// Keeps going after an error where that is sensible, so that one run reports
// several problems.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_SEMA_H
#define PLEXUS_FRONTEND_SEMA_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Spec.h"

#include <optional>
#include <string>
#include <vector>

namespace plexus::frontend {

/// Returns the resolved spec, or nullopt when any error was reported.
/// Data files named by the spec (lengths, trajectories) are read and checked
/// here; they are registered in `sources` so that errors in them point at
/// their own lines.
std::optional<Spec> analyzeProgram(const Program &program,
                                   SourceManager &sources,
                                   DiagnosticEngine &diags);

/// Levenshtein distance, for "did you mean" suggestions.
size_t editDistance(const std::string &a, const std::string &b);

/// "; did you mean 'x'?" for the closest candidate within a small edit
/// distance, or "".
std::string didYouMean(const std::string &word,
                       const std::vector<std::string> &candidates);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_SEMA_H
