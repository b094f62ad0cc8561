//===- Overrides.cpp - `--set NAME.FIELD=VALUE` on the syntax tree --------===//
#include "frontend/Overrides.h"

#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <algorithm>
#include <cctype>
#include <memory>

using namespace plexus::frontend;

namespace {

/// One `--set` flag as a buffer of its own: `--set ` and the argument, so
/// that a diagnostic shows the flag as the user typed it.
class Override {
public:
  Override(const std::string &argument, SourceManager &sources,
           DiagnosticEngine &diags)
      : sources_(sources), diags_(diags) {
    text_ = std::string(kPrefix) + argument;
    fileId_ = sources_.addBuffer(kCommandLineBuffer, text_);
  }

  void apply(Program &program) {
    const size_t eq = text_.find('=', kPrefixSize);
    if (eq == std::string::npos || text_.find('\n') < eq) {
      error(kPrefixSize, text_.size() - kPrefixSize,
            "--set expects NAME.FIELD=VALUE (e.g. --set job.strategy.sp=8)");
      return;
    }
    // The path: identifiers joined by dots, at least a name and a field.
    std::vector<std::pair<std::string, size_t>> parts; // text, offset
    size_t start = kPrefixSize;
    for (size_t i = kPrefixSize; i <= eq; ++i) {
      if (i != eq && text_[i] != '.')
        continue;
      std::string part = text_.substr(start, i - start);
      // `sp = 2` reads as `sp=2`: spaces around the names are dropped.
      size_t lead = part.find_first_not_of(" \t");
      if (lead != std::string::npos && lead > 0) {
        part.erase(0, lead);
        start += lead;
      }
      while (!part.empty() && (part.back() == ' ' || part.back() == '\t'))
        part.pop_back();
      if (!isIdentifier(part)) {
        error(start, std::max<size_t>(1, part.size()),
              part.empty() ? "expected a name here (--set "
                             "NAME.FIELD=VALUE)"
                           : "'" + part +
                                 "' is not a name (letters, digits and '_', "
                                 "not starting with a digit)");
        return;
      }
      parts.emplace_back(part, start);
      start = i + 1;
    }
    if (parts.size() < 2) {
      error(parts[0].second, parts[0].first.size(),
            "--set needs a declaration and a field: NAME.FIELD=VALUE (e.g. "
            "--set " +
                parts[0].first + ".batch=256)");
      return;
    }
    if (text_.find_first_not_of(" \t\r\n", eq + 1) == std::string::npos) {
      error(eq, 1,
            "--set " + text_.substr(kPrefixSize, eq - kPrefixSize) +
                "= needs a value after '='");
      return;
    }
    std::unique_ptr<Value> value =
        parseValueAt(fileId_, eq + 1, sources_, diags_);
    if (!value)
      return;

    // The declaration, by name.
    Declaration *decl = nullptr;
    std::vector<std::string> names;
    for (Declaration &d : program.decls) {
      names.push_back(d.name);
      if (!decl && d.name == parts[0].first)
        decl = &d;
    }
    if (!decl) {
      error(parts[0].second, parts[0].first.size(),
            "--set names no declaration '" + parts[0].first + "'" +
                didYouMean(parts[0].first, names));
      return;
    }
    // The blocks on the way to the field.
    Block *block = &decl->body;
    std::string path = parts[0].first;
    for (size_t i = 1; i + 1 < parts.size(); ++i) {
      const auto &[key, offset] = parts[i];
      Field *field = find(*block, key);
      if (!field) {
        // `strategy { }`, as if written: the semantic pass says whether the
        // declaration has such a block.
        Field added;
        added.key = key;
        added.keyLoc = loc(offset, key.size());
        added.value = std::make_unique<Value>();
        added.value->kind = Value::Kind::Named;
        added.value->loc = added.keyLoc;
        added.value->name = key;
        added.value->block = std::make_unique<Block>();
        added.value->block->loc = added.keyLoc;
        block->fields.push_back(std::move(added));
        field = &block->fields.back();
      } else if (field->value->kind != Value::Kind::Named ||
                 !field->value->block) {
        Diagnostic &d = diags_.error(loc(offset, key.size()),
                                     "'" + path + "." + key + "' is " +
                                         field->value->describe() +
                                         ", not a block; set it whole: --set " +
                                         path + "." + key + "=VALUE");
        DiagnosticEngine::note(d, field->value->loc, "it is written here");
        return;
      }
      block = field->value->block.get();
      path += "." + key;
    }
    const auto &[key, offset] = parts.back();
    if (Field *field = find(*block, key)) {
      field->value = std::move(value);
      return;
    }
    Field added;
    added.key = key;
    added.keyLoc = loc(offset, key.size());
    added.value = std::move(value);
    block->fields.push_back(std::move(added));
  }

private:
  static constexpr const char *kPrefix = "--set ";
  static constexpr size_t kPrefixSize = 6;

  static bool isIdentifier(const std::string &s) {
    if (s.empty() ||
        !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
      return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
  }

  static Field *find(Block &block, const std::string &key) {
    // The last one: a duplicate the file wrote is the semantic pass's to
    // report, and the override replaces the value that would be used.
    for (auto it = block.fields.rbegin(); it != block.fields.rend(); ++it)
      if (it->key == key)
        return &*it;
    return nullptr;
  }

  SourceLocation loc(size_t offset, size_t length) const {
    return sources_.locationAt(fileId_, offset, static_cast<uint32_t>(length));
  }

  void error(size_t offset, size_t length, const std::string &message) {
    diags_.error(loc(offset, std::max<size_t>(1, length)), message);
  }

  SourceManager &sources_;
  DiagnosticEngine &diags_;
  std::string text_;
  uint32_t fileId_ = 0;
};

} // namespace

void plexus::frontend::applyOverrides(Program &program,
                                      const std::vector<std::string> &overrides,
                                      SourceManager &sources,
                                      DiagnosticEngine &diags) {
  for (const std::string &argument : overrides)
    Override(argument, sources, diags).apply(program);
}
