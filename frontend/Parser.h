//===- Parser.h - .plx text to syntax tree, imports resolved ----*- C++ -*-===//
//
// The ANTLR4-generated parser lives behind this interface: ANTLR's runtime
// throws exceptions, which are caught inside Parser.cpp and turned into
// diagnostics. Nothing thrown ever reaches the caller.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_PARSER_H
#define PLEXUS_FRONTEND_PARSER_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"

#include <optional>
#include <string>

namespace plexus::frontend {

/// Parses the buffer `fileId` of `sources`. Syntax errors are reported to
/// `diags` (several per file where ANTLR can recover); the returned file
/// holds whatever was recognised.
SourceFile parseBuffer(uint32_t fileId, const SourceManager &sources,
                       DiagnosticEngine &diags);

/// Reads and parses `path` and, recursively, the files it imports (paths
/// relative to the importing file). Each file is read once; import cycles,
/// unreadable files and invalid UTF-8 are diagnosed. Returns nullopt when
/// anything failed.
std::optional<Program> loadProgram(const std::string &path,
                                   SourceManager &sources,
                                   DiagnosticEngine &diags);

/// Like loadProgram for a buffer already in memory named `name` (imports are
/// still resolved relative to `name`'s directory).
std::optional<Program> loadProgramFromText(const std::string &name,
                                           std::string text,
                                           SourceManager &sources,
                                           DiagnosticEngine &diags);

/// Reads a whole file; returns false and a reason ("No such file or
/// directory") on failure. Directories are refused.
bool readFile(const std::string &path, std::string &contents,
              std::string &reason);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_PARSER_H
