//===- Diagnostics.cpp - Source buffers and clang-style diagnostics -------===//
#include "frontend/Diagnostics.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <sstream>

using namespace plexus::frontend;

namespace {
const std::string kEmpty;
} // namespace

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  Buffer buffer;
  buffer.name = std::move(name);
  buffer.text = std::move(text);
  buffer.lineStarts.push_back(0);
  for (uint32_t i = 0; i < buffer.text.size(); ++i)
    if (buffer.text[i] == '\n')
      buffer.lineStarts.push_back(i + 1);
  buffers_.push_back(std::move(buffer));
  return buffers_.size();
}

SourceLocation SourceManager::locationAt(uint32_t fileId, size_t offset,
                                         uint32_t length) const {
  if (fileId == 0 || fileId > buffers_.size())
    return {};
  const Buffer &b = buffers_[fileId - 1];
  offset = std::min(offset, b.text.size());
  auto next = std::upper_bound(b.lineStarts.begin(), b.lineStarts.end(),
                               static_cast<uint32_t>(offset));
  const uint32_t line = static_cast<uint32_t>(next - b.lineStarts.begin());
  const uint32_t start = *std::prev(next);
  const uint32_t col =
      countCodePoints(std::string_view(b.text).substr(start, offset - start)) +
      1;
  return {fileId, line, col, std::max<uint32_t>(1, length)};
}

void SourceManager::setOrigin(uint32_t fileId, SourceLocation loc,
                              std::string note) {
  if (fileId == 0 || fileId > buffers_.size())
    return;
  buffers_[fileId - 1].origin = {loc, std::move(note)};
}

const DiagnosticNoteOrigin *SourceManager::origin(uint32_t fileId) const {
  if (fileId == 0 || fileId > buffers_.size() ||
      !buffers_[fileId - 1].origin.loc.isValid())
    return nullptr;
  return &buffers_[fileId - 1].origin;
}

const std::string &SourceManager::name(uint32_t fileId) const {
  if (fileId == 0 || fileId > buffers_.size())
    return kEmpty;
  return buffers_[fileId - 1].name;
}

const std::string &SourceManager::text(uint32_t fileId) const {
  if (fileId == 0 || fileId > buffers_.size())
    return kEmpty;
  return buffers_[fileId - 1].text;
}

std::string_view SourceManager::lineText(uint32_t fileId, uint32_t line) const {
  if (fileId == 0 || fileId > buffers_.size() || line == 0)
    return {};
  const Buffer &b = buffers_[fileId - 1];
  if (line > b.lineStarts.size())
    return {};
  uint32_t begin = b.lineStarts[line - 1];
  uint32_t end =
      line < b.lineStarts.size() ? b.lineStarts[line] : b.text.size();
  std::string_view view(b.text.data() + begin, end - begin);
  while (!view.empty() && (view.back() == '\n' || view.back() == '\r'))
    view.remove_suffix(1);
  return view;
}

Diagnostic &DiagnosticEngine::error(SourceLocation loc, std::string message) {
  ++errorCount_;
  diags_.push_back({Severity::Error, loc, std::move(message), {}});
  return diags_.back();
}

Diagnostic &DiagnosticEngine::warning(SourceLocation loc, std::string message) {
  diags_.push_back({Severity::Warning, loc, std::move(message), {}});
  return diags_.back();
}

void DiagnosticEngine::note(Diagnostic &diag, SourceLocation loc,
                            std::string message) {
  diag.notes.push_back({loc, std::move(message)});
}

static const char *severityName(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "error";
  case Severity::Warning:
    return "warning";
  case Severity::Note:
    return "note";
  }
  return "error";
}

/// Length in bytes of the UTF-8 sequence starting with `lead` (1 for
/// invalid lead bytes, so that scanning always advances).
static unsigned utf8SequenceLength(unsigned char lead) {
  if (lead < 0x80)
    return 1;
  if ((lead >> 5) == 0x6)
    return 2;
  if ((lead >> 4) == 0xE)
    return 3;
  if ((lead >> 3) == 0x1E)
    return 4;
  return 1;
}

uint32_t plexus::frontend::countCodePoints(std::string_view text) {
  uint32_t count = 0;
  for (size_t i = 0; i < text.size(); ++count)
    i += utf8SequenceLength(static_cast<unsigned char>(text[i]));
  return count;
}

bool plexus::frontend::validateUtf8(std::string_view text, uint32_t &line,
                                    uint32_t &col) {
  line = 1;
  col = 1;
  size_t i = 0;
  while (i < text.size()) {
    unsigned char lead = static_cast<unsigned char>(text[i]);
    unsigned len = utf8SequenceLength(lead);
    if (lead >= 0x80 && len == 1)
      return false;
    if (i + len > text.size())
      return false;
    uint32_t cp = len == 1   ? lead
                  : len == 2 ? (lead & 0x1F)
                  : len == 3 ? (lead & 0x0F)
                             : (lead & 0x07);
    for (unsigned k = 1; k < len; ++k) {
      unsigned char c = static_cast<unsigned char>(text[i + k]);
      if ((c >> 6) != 0x2)
        return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    // Overlong forms, surrogates and out-of-range code points.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
      return false;
    if (lead == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
    i += len;
  }
  return true;
}

std::string DiagnosticEngine::format(Severity severity, SourceLocation loc,
                                     const std::string &message) const {
  std::ostringstream os;
  const std::string &file = sources_.name(loc.fileId);
  if (!file.empty()) {
    os << file;
    if (loc.isValid())
      os << ':' << loc.line << ':' << loc.col;
    os << ": ";
  }
  os << severityName(severity) << ": " << message << '\n';
  if (!loc.isValid())
    return os.str();
  std::string_view line = sources_.lineText(loc.fileId, loc.line);
  if (line.empty())
    return os.str();
  // Control characters (NUL, ESC ...) would garble the terminal: show them
  // as spaces, which keeps the caret's column.
  for (char c : line)
    os << ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7F
               ? ' '
               : c);
  os << '\n';
  // Re-create the line's leading whitespace (tabs stay tabs) so the caret
  // lines up in any terminal; every other character becomes a space.
  uint32_t column = 1;
  size_t i = 0;
  std::string caret;
  while (i < line.size() && column < loc.col) {
    caret += line[i] == '\t' ? '\t' : ' ';
    i += utf8SequenceLength(static_cast<unsigned char>(line[i]));
    ++column;
  }
  caret += '^';
  uint32_t remaining = countCodePoints(line.substr(std::min(i, line.size())));
  uint32_t tilde = std::min(loc.length, remaining);
  for (uint32_t k = 1; k < tilde; ++k)
    caret += '~';
  os << caret << '\n';
  return os.str();
}

namespace {
/// A JSON string literal of UTF-8 text: quotes, backslashes and control
/// characters escaped.
std::string jsonString(const std::string &text) {
  // JSON text is UTF-8: a message that echoes invalid bytes (a data file's,
  // a parser's "last read") gets U+FFFD for every byte above 0x7F.
  uint32_t badLine = 0, badCol = 0;
  const bool utf8 = validateUtf8(text, badLine, badCol);
  std::string out = "\"";
  for (unsigned char c : text) {
    if (!utf8 && c >= 0x80) {
      out += "\\ufffd";
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (c < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x", c);
        out += buffer;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}
} // namespace

std::string plexus::frontend::jsonDiagnosticLine(
    const std::string &file, uint32_t line, uint32_t column,
    const std::string &severity, const std::string &message,
    const std::vector<JsonDiagnosticNote> &notes) {
  std::string out = "{\"file\": " + jsonString(file) +
                    ", \"line\": " + std::to_string(line) +
                    ", \"column\": " + std::to_string(column) +
                    ", \"severity\": " + jsonString(severity) +
                    ", \"message\": " + jsonString(message) + ", \"notes\": [";
  for (size_t i = 0; i < notes.size(); ++i)
    out += std::string(i ? ", " : "") +
           "{\"file\": " + jsonString(notes[i].file) +
           ", \"line\": " + std::to_string(notes[i].line) +
           ", \"column\": " + std::to_string(notes[i].column) +
           ", \"message\": " + jsonString(notes[i].message) + "}";
  return out + "]}";
}

void DiagnosticEngine::print(std::ostream &os) const {
  if (format_ == DiagnosticFormat::Json) {
    auto note = [&](SourceLocation loc, const std::string &message) {
      return JsonDiagnosticNote{sources_.name(loc.fileId), loc.line, loc.col,
                                message};
    };
    for (const Diagnostic &d : diags_) {
      std::vector<JsonDiagnosticNote> notes;
      for (const DiagnosticNote &n : d.notes)
        notes.push_back(note(n.loc, n.message));
      if (const DiagnosticNoteOrigin *o = sources_.origin(d.loc.fileId))
        notes.push_back(note(o->loc, o->note));
      os << jsonDiagnosticLine(sources_.name(d.loc.fileId), d.loc.line,
                               d.loc.col, severityName(d.severity), d.message,
                               notes)
         << "\n";
    }
    return;
  }
  unsigned shown = 0;
  for (const Diagnostic &d : diags_) {
    if (d.severity == Severity::Error && errorLimit_ != 0 &&
        shown == errorLimit_) {
      os << "error: too many errors; " << errorCount_ - shown
         << " more not shown (plxc --error-limit=0 shows all)\n";
      break;
    }
    if (d.severity == Severity::Error)
      ++shown;
    os << format(d.severity, d.loc, d.message);
    for (const DiagnosticNote &n : d.notes)
      os << format(Severity::Note, n.loc, n.message);
    // A diagnostic inside a file the spec named (a Hugging Face config)
    // leads back to where it was named.
    if (const DiagnosticNoteOrigin *o = sources_.origin(d.loc.fileId))
      os << format(Severity::Note, o->loc, o->note);
  }
  if (errorCount_ == 1)
    os << "1 error generated.\n";
  else if (errorCount_ > 1)
    os << errorCount_ << " errors generated.\n";
}
