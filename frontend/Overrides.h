//===- Overrides.h - `--set NAME.FIELD=VALUE` on the syntax tree -*- C++
//-*-===//
//
// What-if overrides from the command line: `--set job.strategy.sp=8` replaces
// (or adds) one field of one declaration before the semantic pass checks the
// spec, so an override is checked exactly like text written in the file, and
// its diagnostics point into the flag (`<command line>:1:col`).
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_OVERRIDES_H
#define PLEXUS_FRONTEND_OVERRIDES_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"

#include <string>
#include <vector>

namespace plexus::frontend {

/// The name the flags' buffers are registered under.
inline constexpr const char *kCommandLineBuffer = "<command line>";

/// Applies each `NAME.FIELD[.FIELD...]=VALUE` in order; a later one wins.
/// NAME is a declaration; each FIELD but the last names a block-valued field
/// (`strategy`, `topology = fat_tree { ... }`), created as `key { }` when the
/// declaration has none; the last is replaced, or added when absent. VALUE is
/// any .plx value (`8`, `"100 Gb/s"` without the quotes: `100 Gb/s`,
/// `adaptive`, `[1, 2]`, `fat_tree { radix = 64; }`). Errors are reported to
/// `diags` at the flag.
void applyOverrides(Program &program, const std::vector<std::string> &overrides,
                    SourceManager &sources, DiagnosticEngine &diags);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_OVERRIDES_H
