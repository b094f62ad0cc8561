//===- Diagnostics.h - Clang-style diagnostics ------------------*- C++ -*-===//
//
// Every frontend error is reported as `file:line:col: error: message`, then
// the source line and a caret under the offending text, then notes pointing
// at related declarations. Plain C++ (no MLIR), so that the parser and the
// semantic pass can be fuzzed on their own.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_DIAGNOSTICS_H
#define PLEXUS_FRONTEND_DIAGNOSTICS_H

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace plexus::frontend {

/// A position in a registered buffer. line and col are 1-based; col counts
/// characters (code points), as editors do. length is the number of
/// characters to underline (at least 1).
struct SourceLocation {
  uint32_t fileId = 0;
  uint32_t line = 0;
  uint32_t col = 0;
  uint32_t length = 1;
  bool isValid() const { return line != 0; }
};

/// Where a buffer was named, for the note its diagnostics end with.
struct DiagnosticNoteOrigin {
  SourceLocation loc;
  std::string note;
};

/// Owns the text of every buffer the frontend reads (spec files, imported
/// files, data files named by a spec, builder-made buffers).
class SourceManager {
public:
  /// Registers a buffer; returns its id. Ids start at 1 (0 is "no file").
  uint32_t addBuffer(std::string name, std::string text);
  const std::string &name(uint32_t fileId) const;
  const std::string &text(uint32_t fileId) const;
  /// The text of line `line` (1-based) without its end-of-line, or "".
  std::string_view lineText(uint32_t fileId, uint32_t line) const;
  uint32_t bufferCount() const { return buffers_.size(); }
  /// The location of byte `offset` of a buffer (columns in code points),
  /// underlining `length` characters.
  SourceLocation locationAt(uint32_t fileId, size_t offset,
                            uint32_t length = 1) const;

  /// Marks a buffer as read on behalf of `loc` (a Hugging Face config named
  /// by `hf = "..."`): every diagnostic inside it ends with a note there.
  void setOrigin(uint32_t fileId, SourceLocation loc, std::string note);
  /// The origin of a buffer, or an invalid location.
  const DiagnosticNoteOrigin *origin(uint32_t fileId) const;

private:
  struct Buffer {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts; // byte offsets of each line start
    DiagnosticNoteOrigin origin;
  };
  std::vector<Buffer> buffers_;
};

enum class Severity { Error, Warning, Note };

/// How diagnostics are printed: clang's text, or one JSON object a line
/// (`{"file", "line", "column", "severity", "message", "notes": [...]}`,
/// plxc --diagnostics=json).
enum class DiagnosticFormat { Text, Json };

struct DiagnosticNote {
  SourceLocation loc;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceLocation loc;
  std::string message;
  std::vector<DiagnosticNote> notes;
};

/// Collects diagnostics in the order they are reported and prints them.
class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sources) : sources_(sources) {}

  /// Reports an error; the returned reference lets the caller attach notes.
  Diagnostic &error(SourceLocation loc, std::string message);
  Diagnostic &warning(SourceLocation loc, std::string message);
  static void note(Diagnostic &diag, SourceLocation loc, std::string message);

  bool hasErrors() const { return errorCount_ != 0; }
  unsigned errorCount() const { return errorCount_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }
  /// The i-th diagnostic reported, to reword (a parser's message about text
  /// the user did not write).
  Diagnostic &diagnostic(size_t i) { return diags_[i]; }

  /// Prints the diagnostics, clang style, then "N errors generated." when
  /// there were errors. After `errorLimit` errors (0: no limit) the rest are
  /// counted but not shown.
  void print(std::ostream &os) const;
  void setErrorLimit(unsigned limit) { errorLimit_ = limit; }
  /// JSON: every diagnostic, one object a line, no limit and no count line.
  void setFormat(DiagnosticFormat format) { format_ = format; }
  /// Formats one location + message + source line + caret.
  std::string format(Severity severity, SourceLocation loc,
                     const std::string &message) const;

private:
  const SourceManager &sources_;
  std::vector<Diagnostic> diags_;
  unsigned errorCount_ = 0;
  unsigned errorLimit_ = 20;
  DiagnosticFormat format_ = DiagnosticFormat::Text;
};

/// One diagnostic as a JSON object on one line, without the newline:
/// {"file": ..., "line": N, "column": N, "severity": ..., "message": ...,
///  "notes": [{"file", "line", "column", "message"}, ...]}. The fields
/// are JSON-escaped; a location without a file has file "" and line 0.
struct JsonDiagnosticNote {
  std::string file;
  uint32_t line = 0, column = 0;
  std::string message;
};
std::string jsonDiagnosticLine(const std::string &file, uint32_t line,
                               uint32_t column, const std::string &severity,
                               const std::string &message,
                               const std::vector<JsonDiagnosticNote> &notes);

/// Number of UTF-8 code points in `text` (invalid bytes count as one each).
uint32_t countCodePoints(std::string_view text);
/// Validates UTF-8; on failure returns false and the 1-based line and
/// column (in code points) of the first bad byte.
bool validateUtf8(std::string_view text, uint32_t &line, uint32_t &col);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_DIAGNOSTICS_H
