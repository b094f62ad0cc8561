//===- Parser.cpp - .plx text to syntax tree, imports resolved ------------===//
//
// Built with exceptions enabled (ANTLR's runtime needs them); every call into
// ANTLR is wrapped so that nothing thrown leaves this file.
//
//===----------------------------------------------------------------------===//
#include "frontend/Parser.h"
#include "frontend/HfConfig.h"
#include "frontend/Overrides.h"

#include "PlxLexer.h"
#include "PlxParser.h"
#include "antlr4-runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
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

/// What a syntax error says about the rest of its declaration. After an
/// exact recovery (a conjured ';', a deleted stray token) later errors are
/// real; after a resynchronisation, later errors in the same top-level
/// declaration are usually echoes of the first and are dropped.
enum class Recovery { Auto, Exact, SkipDeclaration, SkipFile };

/// One syntax error, collected first so that errors can be put in order and
/// the cascades of one mistake dropped before anything is reported.
struct SyntaxError {
  size_t token = 0;     // index of the token it is about (ordering, cascades)
  size_t lastToken = 0; // the last token it covers (a malformed number)
  SourceLocation loc;
  std::string message;
  SourceLocation noteLoc; // invalid when there is no note
  std::string note;
  Recovery recovery = Recovery::Exact; // Auto: decided from the parser error
};

/// A parser error as ANTLR's error strategy saw it.
struct ParserError {
  // Extraneous: one token deleted and parsing goes on; Unwanted: a stray
  // token at the end of a loop, after which ANTLR skips ahead.
  enum class Kind { Missing, Extraneous, Unwanted, Mismatch, NoViable };
  Kind kind;
  antlr4::Token *offending;
  antlr4::Token *start; // NoViable: where the undecidable input starts
  antlr4::misc::IntervalSet expected;
  size_t rule;
};

/// ANTLR's default recovery, with the reporting replaced: the errors are
/// recorded with their expected-token sets, and worded later (wording needs
/// the whole token stream, e.g. to find the '{' that is never closed).
class RecordingErrorStrategy : public antlr4::DefaultErrorStrategy {
public:
  explicit RecordingErrorStrategy(std::vector<ParserError> &errors)
      : errors_(errors) {}

protected:
  void
  reportNoViableAlternative(antlr4::Parser *parser,
                            const antlr4::NoViableAltException &e) override {
    errors_.push_back({ParserError::Kind::NoViable, e.getOffendingToken(),
                       e.getStartToken(), parser->getExpectedTokens(),
                       ruleOf(parser)});
  }
  void reportInputMismatch(antlr4::Parser *parser,
                           const antlr4::InputMismatchException &e) override {
    errors_.push_back({ParserError::Kind::Mismatch, e.getOffendingToken(),
                       nullptr, e.getExpectedTokens(), ruleOf(parser)});
  }
  void
  reportFailedPredicate(antlr4::Parser *parser,
                        const antlr4::FailedPredicateException &e) override {
    // The grammar has no predicates; recorded like a mismatch regardless.
    errors_.push_back({ParserError::Kind::Mismatch, e.getOffendingToken(),
                       nullptr, parser->getExpectedTokens(), ruleOf(parser)});
  }
  void reportUnwantedToken(antlr4::Parser *parser) override {
    if (inErrorRecoveryMode(parser))
      return;
    beginErrorCondition(parser);
    errors_.push_back({deleting_ ? ParserError::Kind::Extraneous
                                 : ParserError::Kind::Unwanted,
                       parser->getCurrentToken(), nullptr,
                       getExpectedTokens(parser), ruleOf(parser)});
  }
  antlr4::Token *singleTokenDeletion(antlr4::Parser *parser) override {
    // Reports from here are followed by exactly one deleted token; reports
    // from sync() at a loop's end by skipping to a resynchronisation point.
    deleting_ = true;
    antlr4::Token *deleted = DefaultErrorStrategy::singleTokenDeletion(parser);
    deleting_ = false;
    return deleted;
  }
  void reportMissingToken(antlr4::Parser *parser) override {
    if (inErrorRecoveryMode(parser))
      return;
    beginErrorCondition(parser);
    errors_.push_back({ParserError::Kind::Missing, parser->getCurrentToken(),
                       nullptr, getExpectedTokens(parser), ruleOf(parser)});
  }

private:
  static size_t ruleOf(antlr4::Parser *parser) {
    antlr4::ParserRuleContext *ctx = parser->getContext();
    return ctx ? ctx->getRuleIndex() : static_cast<size_t>(PlxParser::RuleFile);
  }

  std::vector<ParserError> &errors_;
  bool deleting_ = false;
};

/// Lexer errors cannot happen (ERROR_CHAR matches any character), but if
/// one did it must still become a diagnostic, not vanish.
class LexerErrorListener : public antlr4::BaseErrorListener {
public:
  explicit LexerErrorListener(std::vector<SyntaxError> &errors, uint32_t fileId)
      : errors_(errors), fileId_(fileId) {}

  void syntaxError(antlr4::Recognizer *, antlr4::Token *, size_t line,
                   size_t charPositionInLine, const std::string &msg,
                   std::exception_ptr) override {
    SyntaxError e;
    e.loc = {fileId_, static_cast<uint32_t>(line),
             static_cast<uint32_t>(charPositionInLine + 1), 1};
    e.message = msg;
    e.recovery = Recovery::SkipFile;
    errors_.push_back(std::move(e));
  }

private:
  std::vector<SyntaxError> &errors_;
  uint32_t fileId_;
};

const char *const kDeclKinds[] = {"model",  "dataset", "workload",
                                  "fabric", "train",   "serve"};

/// Words for syntax errors over one file's token stream.
class SyntaxErrorWriter {
public:
  SyntaxErrorWriter(uint32_t fileId, const SourceManager &sources,
                    std::vector<antlr4::Token *> tokens,
                    const antlr4::dfa::Vocabulary &vocabulary)
      : fileId_(fileId), sources_(sources), tokens_(std::move(tokens)),
        vocabulary_(vocabulary) {
    computeSegments();
  }

  /// Errors that need no parser: stray characters, unterminated strings and
  /// comments, malformed numbers.
  void scanTokens(std::vector<SyntaxError> &out) const {
    for (size_t i = 0; i < tokens_.size(); ++i) {
      antlr4::Token *t = tokens_[i];
      if (t->getType() == PlxLexer::NUMBER ||
          (is(i, PlxLexer::ERROR_CHAR, ".") && adjacent(i, PlxLexer::NUMBER))) {
        size_t last = malformedNumberEnd(i);
        if (last == i)
          continue;
        std::string text;
        for (size_t k = i; k <= last; ++k)
          text += tokens_[k]->getText();
        SyntaxError e = at(i, "malformed number '" + clip(text) +
                                  "' (numbers are written as 32, 1_000, "
                                  "1.5 or 2e9)");
        e.loc.length = countCodePoints(text);
        e.lastToken = last;
        e.recovery = Recovery::SkipDeclaration;
        out.push_back(std::move(e));
        i = last;
        continue;
      }
      std::string c = t->getText();
      if (c == "/" && is(i + 1, PlxLexer::ERROR_CHAR, "*") &&
          adjacent(i, PlxLexer::ERROR_CHAR)) {
        // `/*` without `*/`: BLOCK_COMMENT did not match, so everything
        // after it is comment text that was never meant to be parsed.
        SyntaxError e = at(i, "unterminated comment: '/*' without '*/'");
        e.loc.length = 2;
        e.recovery = Recovery::SkipFile;
        out.push_back(std::move(e));
        return;
      }
      if (t->getType() != PlxLexer::ERROR_CHAR)
        continue;
      if (c == "\"") {
        SyntaxError e = at(i, "unterminated string: a string must end on "
                              "the line where it starts");
        uint32_t lineLength =
            countCodePoints(sources_.lineText(fileId_, e.loc.line));
        e.loc.length = lineLength >= e.loc.col ? lineLength - e.loc.col + 1 : 1;
        e.recovery = Recovery::SkipDeclaration;
        out.push_back(std::move(e));
      } else {
        out.push_back(strayCharacter(i));
      }
    }
  }

  /// Words one error of the parser.
  SyntaxError word(const ParserError &p) const {
    size_t i = p.offending ? p.offending->getTokenIndex() : tokens_.size() - 1;
    i = std::min(i, tokens_.size() - 1);
    SyntaxError e = wordAt(p, i);
    if (e.recovery == Recovery::Auto)
      e.recovery =
          exactRecovery(p, i) ? Recovery::Exact : Recovery::SkipDeclaration;
    return e;
  }

private:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  /// Whether ANTLR's recovery from `p` put the parser back on track. A
  /// conjured ';' does (it is the usual typo); a conjured '{' or '}' is a
  /// guess (`# note` at the top level conjures a '{' after `note` and
  /// swallows the rest of the file). Deleting a stray token is exact
  /// unless that token was structure: `layers = ;` deletes the ';' and
  /// reads the next line as the value.
  bool exactRecovery(const ParserError &p, size_t i) const {
    if (p.kind == ParserError::Kind::Missing)
      return containsLiteral(p.expected, ";");
    if (p.kind != ParserError::Kind::Extraneous)
      return false;
    for (const char *structural : {";", "{", "}", "=", "(", ")", "[", "]"})
      if (is(i, 0, structural))
        return false;
    return true;
  }

  SyntaxError wordAt(const ParserError &p, size_t i) const {
    SyntaxError e;
    antlr4::Token *t = tokens_[i];
    bool atEof = t->getType() == antlr4::Token::EOF;

    // `dataset d {` inside a block: the previous declaration lacks its '}'.
    size_t keyword = i;
    if (p.start)
      keyword = std::min<size_t>(keyword, p.start->getTokenIndex());
    for (size_t k = keyword; k <= i && k < tokens_.size(); ++k) {
      if (!startsDeclaration(k) || depthBefore_[k] == 0)
        continue;
      e = at(k, "expected '}' before '" + tokens_[k]->getText() + "'");
      size_t opener = innermostOpener(k);
      if (opener != kNone)
        addNote(e, opener,
                "to match this '" + tokens_[opener]->getText() + "'");
      e.token = i;
      // Every later brace is now off by one: nothing after this is
      // reliable.
      e.recovery = Recovery::SkipFile;
      return e;
    }

    std::string expected = phrase(p.expected, p.rule);
    if (atEof) {
      e = endOfFile(i);
      size_t opener = innermostOpener(i);
      std::string closer =
          opener == kNone ? "" : closerOf(tokens_[opener]->getText());
      if (!closer.empty() && containsLiteral(p.expected, closer)) {
        e.message = "expected '" + closer + "' at end of file";
        addNote(e, opener,
                "to match this '" + tokens_[opener]->getText() + "'");
      } else {
        e.message = "expected " + expected + " at end of file";
        if (opener != kNone)
          addNote(e, opener,
                  "the '" + tokens_[opener]->getText() +
                      "' opened here is never closed");
      }
      e.token = i;
      e.recovery = Recovery::SkipFile;
      return e;
    }

    if (p.rule == PlxParser::RuleFile && is(i, 0, "}")) {
      e = at(i, "unmatched '}'");
      e.recovery = Recovery::Exact;
      return e;
    }
    if (p.rule == PlxParser::RuleFile && is(i, 0, "import")) {
      e = at(i, "imports must come before the first declaration");
      e.recovery = Recovery::SkipDeclaration;
      return e;
    }
    // What the user left out at the end of a line goes right after the last
    // token of that line, not on the next line where the parser noticed.
    // A name after a number reads as its unit even across a line break:
    // `layers = 32` followed by `hidden = 8` takes `hidden` for the unit of
    // 32, so the missing ';' belongs after the number.
    size_t anchor = i == 0 ? 0 : i - 1;
    bool unitOnNextLine =
        anchor >= 1 && tokens_[anchor]->getType() == PlxLexer::IDENT &&
        tokens_[anchor - 1]->getType() == PlxLexer::NUMBER &&
        tokens_[anchor]->getLine() > tokens_[anchor - 1]->getLine();
    if (unitOnNextLine)
      --anchor;
    bool lineEnded = i > 0 && t->getLine() > tokens_[anchor]->getLine();
    // One token was expected: a ';' above all, whatever else might also
    // have continued the value.
    std::string missing;
    if (containsLiteral(p.expected, ";"))
      missing = "';'";
    else if (p.expected.size() == 1 && !p.expected.toList().empty() &&
             p.expected.toList()[0] >= 0 &&
             !literalText(p.expected.toList()[0]).empty())
      missing = "'" + literalText(p.expected.toList()[0]) + "'";
    // Only when it is clear what is missing (punctuation): `= 4;` at the
    // start of a line lacks its key, not a name after the line above.
    bool punctuation = true;
    for (ssize_t type : p.expected.toList())
      punctuation &= type >= 0 && !literalText(type).empty();
    if (lineEnded && (unitOnNextLine || !missing.empty() || punctuation)) {
      e = after(anchor, "expected " + (missing.empty() ? expected : missing) +
                            " after '" + clip(quantityText(anchor)) + "'");
      e.token = i;
      return e;
    }
    if (!missing.empty()) {
      e = at(i, "expected " + missing + ", got " + describeToken(t));
      return e;
    }
    std::string hint;
    if (is(i, 0, "{") && i > 0 && is(i - 1, 0, "="))
      hint = "; a block field is written 'key { ... }', without '='";
    e = at(i, "expected " + expected + ", got " + describeToken(t) + hint);
    return e;
  }

public:
  /// Puts errors in order and drops cascades; returns what to report.
  std::vector<SyntaxError> filter(std::vector<SyntaxError> errors) const {
    std::stable_sort(errors.begin(), errors.end(),
                     [](const SyntaxError &a, const SyntaxError &b) {
                       return a.token < b.token;
                     });
    std::vector<SyntaxError> out;
    size_t skipSegment = kNone, coveredUpTo = kNone;
    for (SyntaxError &e : errors) {
      size_t segment = segmentOf(e.token);
      if (segment == skipSegment)
        continue;
      bool covered = coveredUpTo != kNone && e.token <= coveredUpTo;
      if (!covered) {
        coveredUpTo = std::max(e.token, e.lastToken);
        out.push_back(e);
      }
      // A covered error's recovery still counts: a stray character that
      // made the parser resynchronise leaves echoes behind.
      if (e.recovery == Recovery::SkipFile)
        break;
      if (e.recovery == Recovery::SkipDeclaration)
        skipSegment = segment;
    }
    return out;
  }

private:
  /// Whether token i has `type` (0: any) and, if given, `text`.
  bool is(size_t i, size_t type, const char *text = nullptr) const {
    if (i >= tokens_.size() || tokens_[i]->getType() == antlr4::Token::EOF)
      return false;
    if (type != 0 && tokens_[i]->getType() != type)
      return false;
    return !text || tokens_[i]->getText() == text;
  }

  /// Whether token i + 1 has `type` and starts right where token i ends.
  bool adjacent(size_t i, size_t type) const {
    return i + 1 < tokens_.size() && tokens_[i + 1]->getType() == type &&
           tokens_[i + 1]->getStartIndex() == tokens_[i]->getStopIndex() + 1;
  }

  /// The last token of a malformed number starting at token i (i itself
  /// when the number is fine). `40GB` and `384Ki` are numbers with units;
  /// `1__0`, `1e`, `0x10`, `3.2.1`, `1.` and `.5` are not numbers at all.
  size_t malformedNumberEnd(size_t i) const {
    bool bad = tokens_[i]->getType() == PlxLexer::ERROR_CHAR; // `.5`
    size_t last = i;
    while (last + 1 < tokens_.size() && tokens_[last + 1]->getStartIndex() ==
                                            tokens_[last]->getStopIndex() + 1) {
      antlr4::Token *next = tokens_[last + 1];
      std::string text = next->getText();
      if (next->getType() == PlxLexer::NUMBER) {
        ++last;
        continue;
      }
      if (next->getType() == PlxLexer::ERROR_CHAR &&
          (text == "." || text == "+")) {
        bad = true;
        ++last;
        continue;
      }
      if (next->getType() == PlxLexer::IDENT) {
        char first = text[0];
        bool hex =
            tokens_[last]->getText() == "0" &&
            (first == 'x' || first == 'X' || first == 'o' || first == 'O');
        bool notUnit = first == '_' || first == 'e' || first == 'E' || hex;
        if (!notUnit && !bad)
          break; // a unit written without a space
        bad = true;
        ++last;
        continue;
      }
      break;
    }
    return bad ? last : i;
  }

  SyntaxError strayCharacter(size_t i) const {
    std::string c = tokens_[i]->getText();
    uint32_t cp = decode(c);
    std::string shown;
    if (cp >= 0x20 && cp < 0x7F)
      shown = "'" + c + "'";
    else {
      char hex[16];
      std::snprintf(hex, sizeof(hex), "U+%04X", cp);
      shown = cp > 0x7F && cp != 0xFEFF ? "'" + c + "' (" + hex + ")" : hex;
    }
    std::string hint;
    if (c == ":" && i > 0 && tokens_[i - 1]->getType() == PlxLexer::IDENT)
      hint = "; fields are set with '=', as in 'layers = 32;'";
    else if (cp > 0x7F && adjacentTo(i, PlxLexer::IDENT) &&
             (isLatinLetter(cp) || insideWord(i)))
      hint = "; names may only hold ASCII letters, digits and '_'";
    else if (c == "#")
      hint = "; comments start with '//'";
    SyntaxError e = at(i, "unexpected character " + shown + hint);
    // Inside a block the parser's own error at this character decides how
    // well it recovered. A '#' starts what was meant as a comment, and junk
    // at the top level reads as declarations: the rest is echoes.
    e.recovery = c == "#" || depthBefore_[i] == 0 ? Recovery::SkipDeclaration
                                                  : Recovery::Exact;
    return e;
  }

  /// Accented Latin letters (U+00C0 to U+024F but for × and ÷): the usual
  /// non-ASCII characters in a name someone meant to write.
  static bool isLatinLetter(uint32_t cp) {
    return cp >= 0xC0 && cp <= 0x24F && cp != 0xD7 && cp != 0xF7;
  }

  /// Whether token i sits between two names with no space (`mod`è`le`).
  bool insideWord(size_t i) const {
    return i > 0 && adjacent(i - 1, tokens_[i]->getType()) &&
           tokens_[i - 1]->getType() == PlxLexer::IDENT &&
           adjacent(i, PlxLexer::IDENT);
  }

  bool adjacentTo(size_t i, size_t type) const {
    return adjacent(i, type) ||
           (i > 0 && tokens_[i - 1]->getType() == type &&
            tokens_[i]->getStartIndex() == tokens_[i - 1]->getStopIndex() + 1);
  }

  static uint32_t decode(const std::string &utf8) {
    if (utf8.empty())
      return 0;
    unsigned char lead = static_cast<unsigned char>(utf8[0]);
    unsigned len = lead < 0x80          ? 1
                   : (lead >> 5) == 0x6 ? 2
                   : (lead >> 4) == 0xE ? 3
                                        : 4;
    uint32_t cp = len == 1   ? lead
                  : len == 2 ? (lead & 0x1F)
                  : len == 3 ? (lead & 0x0F)
                             : (lead & 0x07);
    for (unsigned k = 1; k < len && k < utf8.size(); ++k)
      cp = (cp << 6) | (static_cast<unsigned char>(utf8[k]) & 0x3F);
    return cp;
  }

  /// "'hidden'", "end of file", control characters spelled out.
  std::string describeToken(antlr4::Token *t) const {
    if (t->getType() == antlr4::Token::EOF)
      return "end of file";
    std::string text = t->getText();
    if (t->getType() == PlxLexer::ERROR_CHAR) {
      uint32_t cp = decode(text);
      if (cp < 0x20 || cp == 0x7F) {
        char hex[16];
        std::snprintf(hex, sizeof(hex), "U+%04X", cp);
        return hex;
      }
    }
    return "'" + clip(text) + "'";
  }

  static std::string clip(const std::string &text) {
    if (text.size() <= 48)
      return text;
    size_t cut = 40;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
      --cut;
    return text.substr(0, cut) + "...";
  }

  /// The expected-token set in words, for the rule where it was expected.
  std::string phrase(const antlr4::misc::IntervalSet &set, size_t rule) const {
    std::vector<ssize_t> types = set.toList();
    auto has = [&](ssize_t type) {
      return std::find(types.begin(), types.end(), type) != types.end();
    };
    std::vector<std::string> words;
    bool value = has(PlxLexer::IDENT) && has(PlxLexer::NUMBER) &&
                 has(PlxLexer::STRING) && containsLiteral(set, "[");
    if (value)
      words.push_back("a value");
    for (ssize_t type : types) {
      if (type == -1 || static_cast<size_t>(type) == antlr4::Token::EOF) {
        words.push_back("end of file");
        continue;
      }
      if (value && (type == PlxLexer::IDENT || type == PlxLexer::NUMBER ||
                    type == PlxLexer::STRING))
        continue;
      std::string literal = vocabulary_.getLiteralName(type);
      if (value && (literal == "'['" || literal == "'-'"))
        continue;
      if (literal == "'import'" && rule == PlxParser::RuleFile &&
          has(PlxLexer::IDENT))
        continue; // "a declaration" says it
      if (!literal.empty()) {
        words.push_back(literal);
      } else if (type == PlxLexer::IDENT) {
        words.push_back(rule == PlxParser::RuleFile ? "a declaration"
                        : rule == PlxParser::RuleBlock ||
                                rule == PlxParser::RuleField
                            ? "a field name"
                        : rule == PlxParser::RuleUnit ? "a unit"
                                                      : "a name");
      } else if (type == PlxLexer::NUMBER) {
        words.push_back("a number");
      } else if (type == PlxLexer::STRING) {
        words.push_back(rule == PlxParser::RuleImportDecl ? "a quoted file name"
                                                          : "a string");
      } else {
        words.push_back(vocabulary_.getDisplayName(type));
      }
    }
    std::string out;
    for (size_t k = 0; k < words.size(); ++k) {
      if (k)
        out += k + 1 == words.size() ? " or " : ", ";
      out += words[k];
    }
    return out.empty() ? "something else" : out;
  }

  bool containsLiteral(const antlr4::misc::IntervalSet &set,
                       const std::string &text) const {
    for (ssize_t type : set.toList())
      if (type >= 0 && vocabulary_.getLiteralName(static_cast<size_t>(type)) ==
                           "'" + text + "'")
        return true;
    return false;
  }

  /// The text of the quantity that ends at token i (`400 Gb/s`, `8Ki`), or
  /// of token i alone when it ends none: "after 's'" would say nothing.
  std::string quantityText(size_t i) const {
    size_t start = i;
    auto sameLine = [&](size_t a, size_t b) {
      return tokens_[a]->getLine() == tokens_[b]->getLine();
    };
    if (is(i, PlxLexer::IDENT) && i >= 3 && is(i - 1, 0, "/") &&
        is(i - 2, PlxLexer::IDENT) && is(i - 3, PlxLexer::NUMBER) &&
        sameLine(i - 3, i))
      start = i - 3;
    else if (is(i, PlxLexer::IDENT) && i >= 1 && is(i - 1, PlxLexer::NUMBER) &&
             sameLine(i - 1, i))
      start = i - 1;
    std::string text = tokens_[start]->getText();
    for (size_t k = start + 1; k <= i; ++k) {
      if (tokens_[k]->getStartIndex() != tokens_[k - 1]->getStopIndex() + 1)
        text += ' ';
      text += tokens_[k]->getText();
    }
    return text;
  }

  /// `{` for the literal token '{', "" for the others.
  std::string literalText(ssize_t type) const {
    std::string literal = vocabulary_.getLiteralName(static_cast<size_t>(type));
    return literal.size() >= 2 ? literal.substr(1, literal.size() - 2) : "";
  }

  static std::string closerOf(const std::string &opener) {
    return opener == "{" ? "}" : opener == "[" ? "]" : opener == "(" ? ")" : "";
  }

  SourceLocation locOf(size_t i) const {
    antlr4::Token *t = tokens_[i];
    return {fileId_, static_cast<uint32_t>(t->getLine()),
            static_cast<uint32_t>(t->getCharPositionInLine() + 1),
            std::max<uint32_t>(1, countCodePoints(t->getText()))};
  }

  SyntaxError at(size_t i, std::string message) const {
    SyntaxError e;
    e.recovery = Recovery::Auto;
    e.token = e.lastToken = i;
    e.loc = locOf(i);
    e.message = std::move(message);
    return e;
  }

  /// Just after token i (where a missing ';' goes).
  SyntaxError after(size_t i, std::string message) const {
    SyntaxError e = at(i, std::move(message));
    e.loc.col += e.loc.length;
    e.loc.length = 1;
    return e;
  }

  /// At end of file: just after the last real token, whose line shows what
  /// was left unfinished (the EOF line itself is usually empty).
  SyntaxError endOfFile(size_t eof) const {
    if (eof == 0) {
      SyntaxError e;
      e.token = e.lastToken = eof;
      e.loc = {fileId_, 1, 1, 1};
      return e;
    }
    SyntaxError e = after(eof - 1, "");
    e.token = e.lastToken = eof;
    return e;
  }

  void addNote(SyntaxError &e, size_t i, std::string note) const {
    e.noteLoc = locOf(i);
    e.note = std::move(note);
  }

  /// Whether token i starts `kind name {` with a known kind at the start of
  /// its line, the shape of a declaration.
  bool startsDeclaration(size_t i) const {
    if (!is(i, PlxLexer::IDENT) || !is(i + 1, PlxLexer::IDENT) ||
        !is(i + 2, 0, "{"))
      return false;
    if (i > 0 && tokens_[i - 1]->getLine() == tokens_[i]->getLine())
      return false;
    const std::string &kind = tokens_[i]->getText();
    return std::find(std::begin(kDeclKinds), std::end(kDeclKinds), kind) !=
           std::end(kDeclKinds);
  }

  /// The innermost bracket still open before token i, or kNone.
  size_t innermostOpener(size_t i) const {
    std::vector<size_t> open;
    for (size_t k = 0; k < i && k < tokens_.size(); ++k) {
      if (is(k, 0, "{") || is(k, 0, "[") || is(k, 0, "("))
        open.push_back(k);
      else if ((is(k, 0, "}") || is(k, 0, "]") || is(k, 0, ")")) &&
               !open.empty())
        open.pop_back();
    }
    return open.empty() ? kNone : open.back();
  }

  /// Top-level declarations (and imports) split the file into segments; a
  /// segment starts at a depth-0 name or 'import' after nothing, '}' or ';'.
  void computeSegments() {
    segment_.resize(tokens_.size());
    depthBefore_.resize(tokens_.size());
    size_t segment = 0;
    long depth = 0;
    for (size_t k = 0; k < tokens_.size(); ++k) {
      depthBefore_[k] = depth;
      bool boundary = k == 0 || is(k - 1, 0, "}") || is(k - 1, 0, ";");
      if (depth == 0 && boundary && is(k, PlxLexer::IDENT))
        ++segment;
      else if (depth == 0 && boundary && is(k, 0, "import"))
        ++segment;
      segment_[k] = segment;
      if (is(k, 0, "{") || is(k, 0, "[") || is(k, 0, "("))
        ++depth;
      else if (is(k, 0, "}") || is(k, 0, "]") || is(k, 0, ")"))
        depth = std::max(0L, depth - 1);
    }
  }

  size_t segmentOf(size_t i) const {
    return segment_.empty() ? 0 : segment_[std::min(i, segment_.size() - 1)];
  }

  uint32_t fileId_;
  const SourceManager &sources_;
  const std::vector<antlr4::Token *> tokens_; // a copy: getTokens() returns one
  const antlr4::dfa::Vocabulary &vocabulary_;
  std::vector<size_t> segment_;
  std::vector<long> depthBefore_;
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

  /// From `start` to the end of `stop` when both are on one line (so that
  /// `-4`, `40 GB` and `lognormal(mu = 5, sigma = 1)` are underlined whole);
  /// else just `start`.
  SourceLocation span(antlr4::Token *start, antlr4::Token *stop) const {
    SourceLocation l = loc(start);
    if (!start || !stop || stop->getLine() != start->getLine() ||
        stop->getCharPositionInLine() < start->getCharPositionInLine())
      return l;
    l.length = static_cast<uint32_t>(stop->getCharPositionInLine() -
                                     start->getCharPositionInLine()) +
               countCodePoints(stop->getText());
    return l;
  }

  std::unique_ptr<Value> value(PlxParser::ValueContext *ctx) {
    auto v = std::make_unique<Value>();
    v->loc = span(ctx->getStart(), ctx->getStop());
    if (auto *q = dynamic_cast<PlxParser::QuantityValueContext *>(ctx)) {
      quantity(q->quantity(), *v);
    } else if (auto *s = dynamic_cast<PlxParser::StringValueContext *>(ctx)) {
      v->kind = Value::Kind::String;
      v->text = unquote(s->STRING()->getText());
    } else if (auto *n = dynamic_cast<PlxParser::NamedValueContext *>(ctx)) {
      v->kind = Value::Kind::Named;
      v->name = n->IDENT()->getText();
      // `fat_tree { ... }`: errors about the value are about its name.
      v->loc = loc(n->IDENT()->getSymbol());
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

/// "byte 0xFF" or "bytes 0xE2 0x82" at a position validateUtf8 reported.
static std::string badByteText(const std::string &text, uint32_t line,
                               uint32_t col) {
  size_t pos = 0;
  for (uint32_t l = 1; l < line && pos < text.size(); ++pos)
    if (text[pos] == '\n')
      ++l;
  // Skip col - 1 valid characters (a lead byte and its continuations).
  for (uint32_t c = 1; c < col && pos < text.size(); ++c) {
    ++pos;
    while (pos < text.size() &&
           (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80)
      ++pos;
  }
  if (pos >= text.size())
    return "at end of file";
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02X",
                static_cast<unsigned char>(text[pos]));
  return std::string("byte ") + hex;
}

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
        diags.error({fileId, line, col, 1}, "nesting deeper than " +
                                                std::to_string(kMaxDepth) +
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

namespace {
/// Parses `text` as the contents of buffer `fileId`: tokens, errors and the
/// tree's locations are the buffer's lines and columns. `text` is the
/// buffer's own text, or (parseValueAt) one with the same line breaks.
SourceFile parseText(uint32_t fileId, const std::string &text,
                     const SourceManager &sources, DiagnosticEngine &diags) {
  uint32_t badLine = 0, badCol = 0;
  if (!validateUtf8(text, badLine, badCol)) {
    diags.error({fileId, badLine, badCol, 1},
                "invalid UTF-8 " + badByteText(text, badLine, badCol) +
                    "; a .plx file must be UTF-8 text");
    return SourceFile{fileId, {}, {}};
  }
  if (!checkNesting(fileId, text, diags))
    return SourceFile{fileId, {}, {}};
  try {
    antlr4::ANTLRInputStream input(text);
    PlxLexer lexer(&input);
    std::vector<SyntaxError> errors;
    LexerErrorListener lexerListener(errors, fileId);
    lexer.removeErrorListeners();
    lexer.addErrorListener(&lexerListener);
    antlr4::CommonTokenStream tokens(&lexer);
    tokens.fill();
    PlxParser parser(&tokens);
    parser.removeErrorListeners();
    std::vector<ParserError> parserErrors;
    parser.setErrorHandler(
        std::make_shared<RecordingErrorStrategy>(parserErrors));
    PlxParser::FileContext *tree = parser.file();

    SyntaxErrorWriter writer(fileId, sources, tokens.getTokens(),
                             parser.getVocabulary());
    writer.scanTokens(errors);
    for (const ParserError &p : parserErrors)
      errors.push_back(writer.word(p));
    if (errors.empty())
      return TreeBuilder(fileId).build(tree);
    for (const SyntaxError &e : writer.filter(std::move(errors))) {
      Diagnostic &d = diags.error(e.loc, e.message);
      if (e.noteLoc.isValid())
        DiagnosticEngine::note(d, e.noteLoc, e.note);
    }
    return SourceFile{fileId, {}, {}};
  } catch (const std::exception &e) {
    diags.error({fileId, 0, 0, 1},
                std::string("internal parser error: ") + e.what());
  } catch (...) {
    diags.error({fileId, 0, 0, 1}, "internal parser error");
  }
  return SourceFile{fileId, {}, {}};
}
} // namespace

SourceFile plexus::frontend::parseBuffer(uint32_t fileId,
                                         const SourceManager &sources,
                                         DiagnosticEngine &diags) {
  return parseText(fileId, sources.text(fileId), sources, diags);
}

std::unique_ptr<Value>
plexus::frontend::parseValueAt(uint32_t fileId, size_t offset,
                               const SourceManager &sources,
                               DiagnosticEngine &diags) {
  // The value is parsed as the field of a declaration whose first tokens
  // take the place of the bytes before it, so that every token keeps its
  // column in the buffer and the grammar's own error wording applies.
  const std::string &text = sources.text(fileId);
  const std::string head = "x x{v=";
  if (offset < head.size() || offset > text.size() ||
      text.find('\n') < offset) {
    diags.error({fileId, 1, 1, 1}, "internal error: a value at column " +
                                       std::to_string(offset + 1) +
                                       " cannot be parsed in place");
    return nullptr;
  }
  // A ';' outside a string would end the field early and start another:
  // the value is the whole rest of the flag.
  bool quoted = false;
  for (size_t i = offset; i < text.size(); ++i) {
    if (text[i] == '\\' && quoted) {
      ++i;
      continue;
    }
    if (text[i] == '"')
      quoted = !quoted;
    else if (text[i] == ';' && !quoted) {
      diags.error(sources.locationAt(fileId, i),
                  "a --set value is the rest of the flag; ';' cannot end it "
                  "(give each field its own --set)");
      return nullptr;
    }
  }
  // The field's end goes on a line of its own, so that a '//' comment in
  // the value does not swallow it.
  std::string padded =
      head + std::string(offset - head.size(), ' ') + text.substr(offset);
  padded += "\n;}";
  unsigned before = diags.errorCount();
  const size_t first = diags.diagnostics().size();
  SourceFile file = parseText(fileId, padded, sources, diags);
  // The ';' that would end the field is ours, not the user's; an error
  // at it (on the line added after the flag) is at the flag's end.
  const uint32_t lines =
      1 + static_cast<uint32_t>(std::count(text.begin(), text.end(), '\n'));
  for (size_t i = first; i < diags.diagnostics().size(); ++i) {
    Diagnostic &d = diags.diagnostic(i);
    if (d.message.rfind("expected ';'", 0) == 0)
      d.message.replace(0, 12, "expected the end of the value");
    if (d.loc.fileId == fileId && d.loc.line > lines) {
      d.loc = sources.locationAt(fileId, text.size());
      const std::string got = ", got ';'";
      if (size_t at = d.message.find(got); at != std::string::npos)
        d.message.replace(at, got.size(), " at the end of the flag");
    }
  }
  if (diags.errorCount() != before)
    return nullptr;
  if (file.decls.size() != 1 || file.decls[0].body.fields.size() != 1) {
    diags.error(sources.locationAt(fileId, offset),
                "a --set value must be one value");
    return nullptr;
  }
  return std::move(file.decls[0].body.fields[0].value);
}

bool plexus::frontend::readFile(const std::string &path, std::string &contents,
                                std::string &reason) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    reason = "it is a directory";
    return false;
  }
  // Devices and pipes (/dev/zero, a FIFO) could block or never end.
  fs::file_status status = fs::status(path, ec);
  if (!ec && fs::exists(status) && !fs::is_regular_file(status)) {
    reason = "it is not a regular file";
    return false;
  }
  constexpr uintmax_t kMaxBytes = uintmax_t(4) << 30;
  uintmax_t size = ec ? 0 : fs::file_size(path, ec);
  if (!ec && size > kMaxBytes) {
    reason = "it is larger than 4 GiB";
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
  // Editors on Windows may start a UTF-8 file with a byte order mark. It is
  // not text: dropped here, it neither trips the lexer nor shifts the
  // columns of line 1 (terminals do not show it).
  if (contents.compare(0, 3, "\xEF\xBB\xBF") == 0)
    contents.erase(0, 3);
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
    auto onStack =
        std::find_if(stack_.begin(), stack_.end(),
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

namespace {
/// After the files are parsed: the command line's `--set` overrides, then
/// the Hugging Face configs the models name (whose fields the block, and so
/// an override, may replace).
std::optional<Program> finishLoading(Program program, SourceManager &sources,
                                     DiagnosticEngine &diags,
                                     const LoadOptions &options) {
  unsigned before = diags.errorCount();
  applyOverrides(program, options.overrides, sources, diags);
  if (diags.errorCount() != before)
    return std::nullopt;
  expandHfConfigs(program, sources, diags);
  if (diags.errorCount() != before)
    return std::nullopt;
  return program;
}
} // namespace

std::optional<Program>
plexus::frontend::loadProgram(const std::string &path, SourceManager &sources,
                              DiagnosticEngine &diags,
                              const LoadOptions &options) {
  unsigned before = diags.errorCount();
  ProgramLoader loader(sources, diags);
  try {
    loader.loadFile(path, SourceLocation{});
  } catch (...) {
    diags.error({}, "internal error while reading '" + path + "'");
  }
  if (diags.errorCount() != before)
    return std::nullopt;
  return finishLoading(loader.take(), sources, diags, options);
}

std::optional<Program> plexus::frontend::loadProgramFromText(
    const std::string &name, std::string text, SourceManager &sources,
    DiagnosticEngine &diags, const LoadOptions &options) {
  unsigned before = diags.errorCount();
  ProgramLoader loader(sources, diags);
  try {
    loader.loadText(name, std::move(text));
  } catch (...) {
    diags.error({}, "internal error while reading '" + name + "'");
  }
  if (diags.errorCount() != before)
    return std::nullopt;
  return finishLoading(loader.take(), sources, diags, options);
}
