//===- HfConfig.h - Models from Hugging Face config.json files --*- C++ -*-===//
//
// `model m { hf = "config.json"; ... }` reads a transformers `config.json`
// and adds the model fields it implies to the block, each located at the
// JSON value it came from, so that the semantic pass checks them as if
// written and its errors point into the JSON file (with a note at the
// `hf =` line). Fields written in the block override the config's.
// Families, keys and the approximations made: docs/language.md,
// "Models from Hugging Face configs".
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_HFCONFIG_H
#define PLEXUS_FRONTEND_HFCONFIG_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"

#include <string>
#include <vector>

namespace plexus::frontend {

/// The `model_type`s read, in the order the error message lists them.
const std::vector<std::string> &hfModelTypes();

/// Expands every `model` declaration's `hf` field. Errors and warnings go to
/// `diags`.
void expandHfConfigs(Program &program, SourceManager &sources,
                     DiagnosticEngine &diags);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_HFCONFIG_H
