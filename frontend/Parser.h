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

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace plexus::frontend {

/// Parses the buffer `fileId` of `sources`. Syntax errors are reported to
/// `diags` (several per file where ANTLR can recover); the returned file
/// holds whatever was recognised.
SourceFile parseBuffer(uint32_t fileId, const SourceManager &sources,
                       DiagnosticEngine &diags);

/// Parses the value that starts at byte `offset` of buffer `fileId` and runs
/// to the buffer's end, on the buffer's first line (a `--set NAME=VALUE`
/// flag): its locations are the buffer's columns. Null after a syntax error.
std::unique_ptr<Value> parseValueAt(uint32_t fileId, size_t offset,
                                    const SourceManager &sources,
                                    DiagnosticEngine &diags);

/// What the command line adds to the files.
struct LoadOptions {
  /// `--set` flags' arguments, `NAME.FIELD[.FIELD...]=VALUE`, in order
  /// (Overrides.h).
  std::vector<std::string> overrides;
  /// How importPlxFile and importPlxText print the diagnostics.
  DiagnosticFormat diagnosticFormat = DiagnosticFormat::Text;
};

/// Reads and parses `path` and, recursively, the files it imports (paths
/// relative to the importing file). Each file is read once; import cycles,
/// unreadable files and invalid UTF-8 are diagnosed. Then applies the
/// options' overrides and reads the Hugging Face configs models name
/// (HfConfig.h). Returns nullopt when anything failed.
std::optional<Program> loadProgram(const std::string &path,
                                   SourceManager &sources,
                                   DiagnosticEngine &diags,
                                   const LoadOptions &options = {});

/// Like loadProgram for a buffer already in memory named `name` (imports are
/// still resolved relative to `name`'s directory).
std::optional<Program> loadProgramFromText(const std::string &name,
                                           std::string text,
                                           SourceManager &sources,
                                           DiagnosticEngine &diags,
                                           const LoadOptions &options = {});

/// Reads a whole file; returns false and a reason ("No such file or
/// directory") on failure. Directories are refused.
bool readFile(const std::string &path, std::string &contents,
              std::string &reason);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_PARSER_H
