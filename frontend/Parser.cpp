//===- Parser.cpp - .plx text to syntax tree, imports resolved ------------===//
//
// Built with exceptions enabled (ANTLR's runtime needs them); every call into
// ANTLR is wrapped so that nothing thrown leaves this file.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"

#include "PlxLexer.h"
#include "PlxParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace plexus::frontend;
namespace fs = std::filesystem;

namespace {

/// Turns ANTLR's syntax errors into our diagnostics.
class DiagnosticErrorListener : public antlr4::BaseErrorListener {
public:
  DiagnosticErrorListener(uint32_t fileId, DiagnosticEngine &diags)
      : fileId_(fileId), diags_(diags) {}

  void syntaxError(antlr4::Recognizer *, antlr4::Token *offending,
                   size_t line, size_t charPositionInLine,
                   const std::string &msg, std::exception_ptr) override {
    SourceLocation loc{fileId_, static_cast<uint32_t>(line),
                       static_cast<uint32_t>(charPositionInLine + 1), 1};
    if (offending && offending->getType() != antlr4::Token::EOF)
      loc.length = std::max<uint32_t>(
          1, countCodePoints(offending->getText()));
    diags_.error(loc, reword(msg));
    ++count_;
  }

  unsigned count() const { return count_; }

private:
  /// ANTLR says "mismatched input '}' expecting ';'"; we say it the way a
  /// compiler user expects.
  static std::string reword(std::string msg) {
    auto replaceAll = [&](const std::string &from, const std::string &to) {
      for (size_t pos = msg.find(from); pos != std::string::npos;
           pos = msg.find(from, pos + to.size()))
        msg.replace(pos, from.size(), to);
    };
    replaceAll("'<EOF>'", "end of file");
    replaceAll("<EOF>", "end of file");
    replaceAll("expecting", "expected");
    replaceAll("mismatched input", "unexpected");
    replaceAll("extraneous input", "unexpected");
    replaceAll("no viable alternative at input", "cannot parse");
    replaceAll("token recognition error at:", "invalid character");
    replaceAll("IDENT", "a name");
    replaceAll("NUMBER", "a number");
    replaceAll("STRING", "a string");
    replaceAll("ERROR_CHAR", "a character");
    return msg;
  }

  uint32_t fileId_;
  DiagnosticEngine &diags_;
  unsigned count_ = 0;
};

/// Builds our AST from ANTLR's parse tree (only called on error-free trees).
class TreeBuilder {
public:
  TreeBuilder(uint32_t fileId) : fileId_(fileId) {}

  SourceLocation loc(antlr4::Token *token) const {
    if (!token)
      return {};
    return {fileId_, static_cast<uint32_t>(token->getLine()),
            static_cast<uint32_t>(token->getCharPositionInLine() + 1),
            std::max<uint32_t>(1, countCodePoints(token->getText()))};
  }

  SourceFile build(PlxParser::FileContext *ctx) {
    SourceFile file;
    file.fileId = fileId_;
    for (auto *imp : ctx->importDecl()) {
      Import import;
      import.path = unquote(imp->STRING()->getText());
      import.loc = loc(imp->STRING()->getSymbol());
      file.imports.push_back(std::move(import));
    }
    for (auto *declCtx : ctx->declaration()) {
      Declaration decl;
      decl.kind = declCtx->kind->getText();
      decl.kindLoc = loc(declCtx->kind);
      decl.name = declCtx->name->getText();
      decl.nameLoc = loc(declCtx->name);
      decl.body = block(declCtx->body);
      file.decls.push_back(std::move(decl));
    }
    return file;
  }

private:
  Block block(PlxParser::BlockContext *ctx) {
    Block b;
    b.loc = loc(ctx->getStart());
    for (auto *fieldCtx : ctx->field()) {
      Field f;
      f.key = fieldCtx->key->getText();
      f.keyLoc = loc(fieldCtx->key);
      if (fieldCtx->value()) {
        f.value = value(fieldCtx->value());
      } else {
        // `key { ... }` is sugar for `key = key { ... }`.
        f.value = std::make_unique<Value>();
        f.value->kind = Value::Kind::Named;
        f.value->loc = f.keyLoc;
        f.value->name = f.key;
        f.value->block = std::make_unique<Block>(block(fieldCtx->block()));
      }
      b.fields.push_back(std::move(f));
    }
    return b;
  }

  std::unique_ptr<Value> value(PlxParser::ValueContext *ctx) {
    auto v = std::make_unique<Value>();
    v->loc = loc(ctx->getStart());
    if (auto *q = dynamic_cast<PlxParser::QuantityValueContext *>(ctx)) {
      quantity(q->quantity(), *v);
    } else if (auto *s = dynamic_cast<PlxParser::StringValueContext *>(ctx)) {
      v->kind = Value::Kind::String;
      v->text = unquote(s->STRING()->getText());
    } else if (auto *n = dynamic_cast<PlxParser::NamedValueContext *>(ctx)) {
      v->kind = Value::Kind::Named;
      v->name = n->IDENT()->getText();
      if (n->block())
        v->block = std::make_unique<Block>(block(n->block()));
    } else if (auto *c = dynamic_cast<PlxParser::CallValueContext *>(ctx)) {
      v->kind = Value::Kind::Call;
      v->name = c->IDENT()->getText();
      for (auto *argCtx : c->argument()) {
        Argument arg;
        if (argCtx->key) {
          arg.key = argCtx->key->getText();
          arg.keyLoc = loc(argCtx->key);
        }
        arg.value = value(argCtx->value());
        v->args.push_back(std::move(arg));
      }
    } else if (auto *l = dynamic_cast<PlxParser::ListValueContext *>(ctx)) {
      v->kind = Value::Kind::List;
      for (auto *element : l->value())
        v->elements.push_back(value(element));
    }
    return v;
  }

  void quantity(PlxParser::QuantityContext *ctx, Value &v) {
    v.kind = Value::Kind::Quantity;
    std::string text = ctx->NUMBER()->getText();
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    if (ctx->sign)
      text.insert(text.begin(), '-');
    v.numberText = text;
    v.integral = text.find_first_of(".eE") == std::string::npos;
    v.number = std::strtod(text.c_str(), nullptr);
    if (auto *unit = ctx->unit()) {
      v.unit = unit->getText();
      v.unitLoc = loc(unit->getStart());
      v.unitLoc.length = countCodePoints(v.unit);
    }
  }

  static std::string unquote(const std::string &quoted) {
    std::string out;
    for (size_t i = 1; i + 1 < quoted.size(); ++i) {
      char c = quoted[i];
      if (c == '\\' && i + 2 < quoted.size()) {
        char e = quoted[++i];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      } else {
        out += c;
      }
    }
    return out;
  }

  uint32_t fileId_;
};

} // namespace

/// The parser recurses once per nesting level; refuse absurd nesting before
/// it can exhaust the stack. Strings and comments are skipped.
static bool checkNesting(uint32_t fileId, const std::string &text,
                         DiagnosticEngine &diags) {
  constexpr int kMaxDepth = 64;
  int depth = 0;
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
      while (i < text.size() && text[i] != '\n')
        ++i;
      ++line;
      col = 1;
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      size_t end = text.find("*/", i + 2);
      size_t stop = end == std::string::npos ? text.size() : end + 2;
      for (; i < stop; ++i)
        if (text[i] == '\n') {
          ++line;
          col = 1;
        }
      --i;
      continue;
    }
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\')
          ++i;
      if (i < text.size() && text[i] == '\n') {
        ++line;
        col = 1;
      }
      continue;
    }
    if (c == '{' || c == '[' || c == '(') {
      if (++depth > kMaxDepth) {
        diags.error({fileId, line, col, 1},
                    "nesting deeper than " + std::to_string(kMaxDepth) +
                        " levels");
        return false;
      }
    } else if (c == '}' || c == ']' || c == ')') {
      depth = std::max(0, depth - 1);
    }
    if (c == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++col;
    }
  }
  return true;
}

SourceFile plexus::frontend::parseBuffer(uint32_t fileId,
                                         const SourceManager &sources,
                                         DiagnosticEngine &diags) {
  const std::string &text = sources.text(fileId);
  uint32_t badLine = 0, badCol = 0;
  if (!validateUtf8(text, badLine, badCol)) {
    diags.error({fileId, badLine, badCol, 1},
                "the file is not valid UTF-8 text");
    return SourceFile{fileId, {}, {}};
  }
  if (!checkNesting(fileId, text, diags))
    return SourceFile{fileId, {}, {}};
  try {
    antlr4::ANTLRInputStream input(text);
    PlxLexer lexer(&input);
    DiagnosticErrorListener listener(fileId, diags);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&listener);
    antlr4::CommonTokenStream tokens(&lexer);
    PlxParser parser(&tokens);
    parser.removeErrorListeners();
    parser.addErrorListener(&listener);
    PlxParser::FileContext *tree = parser.file();
    if (listener.count() != 0 || parser.getNumberOfSyntaxErrors() != 0)
      return SourceFile{fileId, {}, {}};
    return TreeBuilder(fileId).build(tree);
  } catch (const std::exception &e) {
    diags.error({fileId, 0, 0, 1},
                std::string("internal parser error: ") + e.what());
  } catch (...) {
    diags.error({fileId, 0, 0, 1}, "internal parser error");
  }
  return SourceFile{fileId, {}, {}};
}

bool plexus::frontend::readFile(const std::string &path, std::string &contents,
                                std::string &reason) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    reason = "it is a directory";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    reason = std::strerror(errno);
    return false;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    reason = "read error";
    return false;
  }
  contents = buffer.str();
  return true;
}

namespace {

/// Depth-first import resolution with cycle detection.
class ProgramLoader {
public:
  ProgramLoader(SourceManager &sources, DiagnosticEngine &diags)
      : sources_(sources), diags_(diags) {}

  void loadText(const std::string &name, std::string text) {
    std::string key = canonical(name);
    uint32_t fileId = sources_.addBuffer(name, std::move(text));
    visit(key, fileId);
  }

  void loadFile(const std::string &path, SourceLocation importLoc) {
    std::string key = canonical(path);
    if (done_.count(key))
      return; // already loaded through another import
    auto onStack = std::find_if(stack_.begin(), stack_.end(),
                                [&](const auto &entry) { return entry.first == key; });
    if (onStack != stack_.end()) {
      std::string chain;
      for (auto it = onStack; it != stack_.end(); ++it)
        chain += sources_.name(it->second) + " -> ";
      chain += path;
      Diagnostic &d = diags_.error(importLoc, "import cycle: " + chain);
      for (auto it = onStack; it != stack_.end(); ++it) {
        auto next = std::next(it);
        if (next != stack_.end() && importLocs_.count(next->second))
          DiagnosticEngine::note(d, importLocs_[next->second],
                                 "imported from here");
      }
      return;
    }
    std::string text, reason;
    if (!readFile(path, text, reason)) {
      diags_.error(importLoc, "cannot read '" + path + "': " + reason);
      return;
    }
    uint32_t fileId = sources_.addBuffer(path, std::move(text));
    if (importLoc.isValid())
      importLocs_[fileId] = importLoc;
    visit(key, fileId);
  }

  Program take() { return std::move(program_); }

private:
  void visit(const std::string &key, uint32_t fileId) {
    stack_.push_back({key, fileId});
    SourceFile file = parseBuffer(fileId, sources_, diags_);
    fs::path dir = fs::path(sources_.name(fileId)).parent_path();
    for (const Import &import : file.imports) {
      fs::path target = fs::path(import.path);
      if (target.is_relative())
        target = dir / target;
      loadFile(target.lexically_normal().string(), import.loc);
    }
    for (Declaration &decl : file.decls)
      program_.decls.push_back(std::move(decl));
    stack_.pop_back();
    done_.insert(key);
  }

  static std::string canonical(const std::string &path) {
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::path(path), ec);
    return ec ? fs::path(path).lexically_normal().string() : p.string();
  }

  SourceManager &sources_;
  DiagnosticEngine &diags_;
  std::vector<std::pair<std::string, uint32_t>> stack_;
  std::set<std::string> done_;
  std::map<uint32_t, SourceLocation> importLocs_;
  Program program_;
};

} // namespace

std::optional<Program> plexus::frontend::loadProgram(const std::string &path,
                                                     SourceManager &sources,
                                                     DiagnosticEngine &diags) {
  unsigned before = diags.errorCount();
  ProgramLoader loader(sources, diags);
  try {
    loader.loadFile(path, SourceLocation{});
  } catch (...) {
    diags.error({}, "internal error while reading '" + path + "'");
  }
  if (diags.errorCount() != before)
    return std::nullopt;
  return loader.take();
}

std::optional<Program> plexus::frontend::loadProgramFromText(
    const std::string &name, std::string text, SourceManager &sources,
    DiagnosticEngine &diags) {
  unsigned before = diags.errorCount();
  ProgramLoader loader(sources, diags);
  try {
    loader.loadText(name, std::move(text));
  } catch (...) {
    diags.error({}, "internal error while reading '" + name + "'");
  }
  if (diags.errorCount() != before)
    return std::nullopt;
  return loader.take();
}
