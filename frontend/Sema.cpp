//===- Sema.cpp - Semantic checks of a .plx program -----------------------===//
//
// Structure: a BlockReader checks one `{ ... }` block against the keys it
// may hold (unknown and duplicate keys) and converts field values with
// units and ranges; one analyze function per declaration kind fills the
// resolved Spec; jobs are analysed last, once every declaration they can
// refer to is known.
//
//===----------------------------------------------------------------------===//
#include "frontend/Sema.h"

#include "frontend/Parser.h"
#include "frontend/Units.h"
#include "dialects/Common/JobRules.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace plexus;
using namespace plexus::frontend;
namespace fs = std::filesystem;

size_t plexus::frontend::editDistance(const std::string &a,
                                      const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + cost});
      diagonal = above;
    }
  }
  return row[b.size()];
}

namespace {

/// The closest candidate within a small edit distance, or "". A candidate
/// that shares no character position with the word (distance as large as
/// the word itself, as 'x' -> 'mu') is a guess, not a suggestion.
std::string closest(const std::string &word,
                    const std::vector<std::string> &candidates) {
  std::string best;
  size_t bestDistance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string &c : candidates) {
    size_t d = editDistance(word, c);
    if (d < bestDistance && d < word.size()) {
      bestDistance = d;
      best = c;
    }
  }
  return best;
}

/// User text echoed in a message, cut short so that a 10^6-character name
/// does not produce a megabyte of diagnostic (the source line is shown
/// anyway). Cuts on a UTF-8 character boundary.
std::string clip(const std::string &text) {
  constexpr size_t kMax = 48;
  if (text.size() <= kMax)
    return text;
  size_t cut = 40;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return text.substr(0, cut) + "...";
}

/// Value::describe(), clipped.
std::string describe(const Value &v) {
  std::string text = v.describe();
  if (text.size() <= 48)
    return text;
  char close = text.back();
  return clip(text) +
         (close == '\'' || close == '"' ? std::string(1, close) : "");
}

/// A number as written, unquoted as the project's messages write numbers
/// ("must be at least 1, got 0"), with its unit ("got 100 GB").
std::string writtenNumber(const Value &v) {
  return clip(v.numberText + (v.unit.empty() ? "" : " " + v.unit));
}

/// 'a', 'b' and 'c'.
std::string listQuoted(const std::vector<std::string> &words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i)
      out += i + 1 == words.size() ? " and " : ", ";
    out += "'" + words[i] + "'";
  }
  return out;
}

std::string joinQuoted(const std::vector<std::string> &words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i ? ", '" : "'") + words[i] + "'";
  return out;
}

/// The unit spellings of a dimension, most common first.
std::vector<std::string> unitSpellings(Dimension dim) {
  static const char *const kPrefixes[] = {"",   "K",  "M",  "G",  "T", "P",
                                          "Ki", "Mi", "Gi", "Ti", "Pi"};
  std::vector<std::string> out;
  auto add = [&](const char *base) {
    for (const char *prefix : kPrefixes)
      out.push_back(std::string(prefix) + base);
  };
  switch (dim) {
  case Dimension::Count:
    add("");
    break;
  case Dimension::Bytes:
    add("B");
    break;
  case Dimension::BytesPerSecond:
    add("B/s");
    add("b/s");
    break;
  case Dimension::FlopsPerSecond:
    add("FLOPS");
    break;
  case Dimension::Seconds:
    out = {"s", "ms", "us", "ns"};
    break;
  case Dimension::Dollars:
    out = {"USD", "KUSD", "MUSD", "GUSD"};
    break;
  }
  out.erase(std::remove(out.begin(), out.end(), ""), out.end());
  return out;
}

/// A known spelling close to an unknown unit: the one spelling that differs
/// only in case ('gib' -> 'GiB'), else the closest by edit distance
/// ('Gbps' -> 'Gb/s'). Case-only matches that are ambiguous ('gb/s': GB/s or
/// Gb/s, a factor of 8 apart) suggest nothing rather than guess.
std::string unitSuggestion(const std::string &unit, Dimension dim) {
  std::vector<std::string> spellings = unitSpellings(dim);
  auto lower = [](std::string text) {
    for (char &c : text)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
  };
  std::vector<std::string> caseMatches;
  for (const std::string &spelling : spellings)
    if (lower(spelling) == lower(unit))
      caseMatches.push_back(spelling);
  if (caseMatches.size() == 1)
    return "; did you mean '" + caseMatches[0] + "'?";
  if (!caseMatches.empty())
    return "";
  return didYouMean(unit, spellings);
}

/// A range bound as the user would write it: plain for counts ("100000"),
/// with its unit otherwise ("1 MiB", "1 KB/s").
std::string bound(int64_t value, Dimension dim) {
  return dim == Dimension::Count
             ? std::to_string(value)
             : formatQuantity(static_cast<double>(value), dim);
}

/// Checks one block's keys and converts its values. Every getter reports
/// its own errors and marks the reader failed; a missing optional field is
/// not an error.
class BlockReader {
public:
  BlockReader(const Block &block, std::string context, SourceLocation ownerLoc,
              std::vector<std::string> allowed, DiagnosticEngine &diags)
      : block_(block), context_(std::move(context)), ownerLoc_(ownerLoc),
        allowed_(std::move(allowed)), diags_(diags) {
    std::map<std::string, const Field *> seen;
    for (const Field &field : block_.fields) {
      if (std::find(allowed_.begin(), allowed_.end(), field.key) ==
          allowed_.end()) {
        std::string best = closest(field.key, allowed_);
        diags_.error(
            field.keyLoc,
            "unknown field '" + clip(field.key) + "' in " + context_ +
                (best.empty() ? "" : "; did you mean '" + best + "'?"));
        // The misspelt field stands for `best`: do not also report `best`
        // as missing.
        if (!best.empty())
          suggested_.insert(best);
        failed_ = otherFailure_ = true;
        continue;
      }
      auto [it, inserted] = seen.emplace(field.key, &field);
      if (!inserted) {
        Diagnostic &d = diags_.error(
            field.keyLoc, "duplicate field '" + field.key + "' in " + context_);
        DiagnosticEngine::note(d, it->second->keyLoc, "first set here");
        failed_ = otherFailure_ = true;
        continue;
      }
      fields_[field.key] = &field;
    }
  }

  /// Reports the missing required fields, if not done yet.
  ~BlockReader() { reportMissing(); }
  BlockReader(const BlockReader &) = delete;
  BlockReader &operator=(const BlockReader &) = delete;

  bool failed() const { return failed_; }
  /// Whether `key` was recorded as missing (its rules have nothing to
  /// check).
  bool isMissing(const std::string &key) const {
    return std::any_of(missing_.begin(), missing_.end(),
                       [&](const auto &entry) { return entry.first == key; }) ||
           suggested_.count(key);
  }
  /// Whether anything failed other than missing fields.
  bool failedOtherThanMissing() const { return otherFailure_; }
  const std::string &context() const { return context_; }
  const Field *get(const std::string &key) const {
    auto it = fields_.find(key);
    return it == fields_.end() ? nullptr : it->second;
  }
  bool has(const std::string &key) const { return get(key) != nullptr; }
  SourceLocation locOf(const std::string &key) const {
    const Field *f = get(key);
    return f ? f->keyLoc : ownerLoc_;
  }
  SourceLocation valueLocOf(const std::string &key) const {
    const Field *f = get(key);
    return f ? f->value->loc : ownerLoc_;
  }

  /// Records a missing required field. All of a block's missing fields
  /// become one error (reportMissing): `model m { }` lacks four fields, and
  /// four errors at the same brace would only be noise.
  void missing(const std::string &key, const std::string &what = "") {
    failed_ = true;
    if (suggested_.count(key))
      return; // an unknown field close to `key` was reported instead
    if (std::none_of(missing_.begin(), missing_.end(),
                     [&](const auto &entry) { return entry.first == key; }))
      missing_.emplace_back(key, what);
  }

  /// Emits the error for the fields recorded by missing(). One field keeps
  /// its hint ("(a bandwidth, e.g. ...)"); several are listed by name.
  void reportMissing() {
    if (reported_ == missing_.size())
      return;
    if (missing_.size() - reported_ == 1) {
      const auto &[key, what] = missing_.back();
      diags_.error(ownerLoc_, context_ + " is missing required field '" + key +
                                  "'" +
                                  (what.empty() ? "" : " (" + what + ")"));
    } else {
      std::vector<std::string> keys;
      for (size_t i = reported_; i < missing_.size(); ++i)
        keys.push_back(missing_[i].first);
      diags_.error(ownerLoc_, context_ + " is missing required fields " +
                                  listQuoted(keys));
    }
    reported_ = missing_.size();
  }

  /// A whole number in `dim` (usually Count), within [min, max].
  std::optional<int64_t> integer(const std::string &key, bool required,
                                 int64_t min, int64_t max,
                                 Dimension dim = Dimension::Count) {
    const Field *f = get(key);
    if (!f) {
      if (required)
        missing(key, dim == Dimension::Count
                         ? ""
                         : std::string(dimensionDescription(dim)) + ", e.g. " +
                               dimensionExample(dim));
      return std::nullopt;
    }
    return integerValue(*f->value, "field '" + key + "'", min, max, dim);
  }

  std::optional<int64_t> integerValue(const Value &v, const std::string &what,
                                      int64_t min, int64_t max,
                                      Dimension dim = Dimension::Count) {
    std::optional<double> scaled = quantityValue(v, what, dim);
    if (!scaled)
      return std::nullopt;
    double value = *scaled;
    // The range first, on the double (which may be infinite for a number
    // of a thousand digits): "must be at most 100000" says more than "too
    // large" or "not a whole number" would.
    if (value < static_cast<double>(min))
      return fail(v.loc, what + " must be at least " + bound(min, dim) +
                             ", got " + writtenNumber(v));
    if (value > static_cast<double>(max))
      return fail(v.loc, what + " must be at most " + bound(max, dim) +
                             ", got " + writtenNumber(v));
    if (value != std::floor(value)) {
      return fail(v.loc,
                  what + " must be a whole number, got " + writtenNumber(v));
    }
    int64_t result = 0;
    if (v.integral && v.unit.empty()) {
      // Exact parse of plain integers (doubles lose precision above 2^53).
      errno = 0;
      long long exact = std::strtoll(v.numberText.c_str(), nullptr, 10);
      if (errno == ERANGE || exact > max)
        return fail(v.loc, what + " must be at most " + bound(max, dim) +
                               ", got " + writtenNumber(v));
      if (exact < min)
        return fail(v.loc, what + " must be at least " + bound(min, dim) +
                               ", got " + writtenNumber(v));
      result = exact;
    } else if (value >= 9.2e18) {
      // Within a max close to INT64_MAX but not representable.
      return fail(v.loc, what + " must be at most " + bound(max, dim) +
                             ", got " + writtenNumber(v));
    } else {
      result = static_cast<int64_t>(value);
    }
    return result;
  }

  /// A real number in `dim` converted to base units, within [min, max].
  std::optional<double> real(const std::string &key, bool required,
                             Dimension dim, double min, double max) {
    const Field *f = get(key);
    if (!f) {
      if (required)
        missing(key, std::string(dimensionDescription(dim)) + ", e.g. " +
                         dimensionExample(dim));
      return std::nullopt;
    }
    return realValue(*f->value, "field '" + key + "'", dim, min, max);
  }

  std::optional<double> realValue(const Value &v, const std::string &what,
                                  Dimension dim, double min, double max) {
    std::optional<double> value = quantityValue(v, what, dim);
    if (!value)
      return std::nullopt;
    if (*value < min)
      return failReal(v.loc, what + " must be at least " +
                                 formatQuantity(min, dim) + ", got " +
                                 writtenNumber(v));
    if (*value > max)
      return failReal(v.loc, what + " must be at most " +
                                 formatQuantity(max, dim) + ", got " +
                                 writtenNumber(v));
    return value;
  }

  /// One of `choices`, written as a bare name.
  std::optional<std::string> keyword(const std::string &key, bool required,
                                     const std::vector<std::string> &choices) {
    const Field *f = get(key);
    if (!f) {
      if (required)
        missing(key, "one of " + joinQuoted(choices));
      return std::nullopt;
    }
    const Value &v = *f->value;
    if (v.kind != Value::Kind::Named || v.block) {
      failed_ = otherFailure_ = true;
      diags_.error(v.loc, "field '" + key + "' expects one of " +
                              joinQuoted(choices) + ", got " + describe(v));
      return std::nullopt;
    }
    if (std::find(choices.begin(), choices.end(), v.name) == choices.end()) {
      failed_ = otherFailure_ = true;
      diags_.error(v.loc, "field '" + key + "' expects one of " +
                              joinQuoted(choices) + ", got '" + v.name + "'" +
                              didYouMean(v.name, choices));
      return std::nullopt;
    }
    return v.name;
  }

  std::optional<bool> boolean(const std::string &key) {
    auto word = keyword(key, false, {"true", "false"});
    if (!word)
      return std::nullopt;
    return *word == "true";
  }

  /// A reference to another declaration, written as a bare name.
  std::optional<std::pair<std::string, SourceLocation>>
  reference(const std::string &key, const std::string &what) {
    const Field *f = get(key);
    if (!f) {
      missing(key, "the name of a " + what);
      return std::nullopt;
    }
    const Value &v = *f->value;
    if (v.kind != Value::Kind::Named || v.block) {
      failed_ = otherFailure_ = true;
      diags_.error(v.loc, "field '" + key + "' expects the name of a " + what +
                              ", got " + describe(v));
      return std::nullopt;
    }
    return std::make_pair(v.name, v.loc);
  }

  void error(SourceLocation loc, const std::string &message) {
    failed_ = otherFailure_ = true;
    diags_.error(loc, message);
  }
  /// Fails the block for an error reported elsewhere.
  void markFailed() { failed_ = otherFailure_ = true; }
  Diagnostic &errorWithNotes(SourceLocation loc, const std::string &message) {
    failed_ = otherFailure_ = true;
    return diags_.error(loc, message);
  }
  DiagnosticEngine &diags() { return diags_; }

private:
  std::optional<double> quantityValue(const Value &v, const std::string &what,
                                      Dimension dim) {
    if (v.kind != Value::Kind::Quantity) {
      failed_ = otherFailure_ = true;
      diags_.error(v.loc, what + " expects " + dimensionDescription(dim) +
                              " (e.g. " + dimensionExample(dim) + "), got " +
                              describe(v));
      return std::nullopt;
    }
    std::optional<UnitInfo> unit = lookupUnit(v.unit);
    if (!unit) {
      failed_ = otherFailure_ = true;
      std::string hint = unitSuggestion(v.unit, dim);
      diags_.error(v.unitLoc,
                   "unknown unit '" + clip(v.unit) + "'" +
                       (hint.empty()
                            ? "; " + what + " expects " +
                                  dimensionDescription(dim) + " (e.g. " +
                                  dimensionExample(dim) + ")"
                            : hint));
      return std::nullopt;
    }
    if (unit->dimension != dim) {
      failed_ = otherFailure_ = true;
      if (unit->dimension == Dimension::Count && dim != Dimension::Count)
        diags_.error(v.loc, what +
                                " needs a unit: " + dimensionDescription(dim) +
                                " (e.g. " + dimensionExample(dim) + "), got " +
                                describe(v));
      else
        diags_.error(
            v.unit.empty() ? v.loc : v.unitLoc,
            "wrong unit: " + what + " expects " + dimensionDescription(dim) +
                " (e.g. " + dimensionExample(dim) + "), got " +
                dimensionDescription(unit->dimension) + " " + describe(v));
      return std::nullopt;
    }
    // May be infinite (a thousand-digit number); the callers' range checks
    // report it against their bounds.
    return v.number * unit->scale;
  }

  std::optional<int64_t> fail(SourceLocation loc, const std::string &message) {
    failed_ = otherFailure_ = true;
    diags_.error(loc, message);
    return std::nullopt;
  }
  std::optional<double> failReal(SourceLocation loc,
                                 const std::string &message) {
    failed_ = otherFailure_ = true;
    diags_.error(loc, message);
    return std::nullopt;
  }

  const Block &block_;
  std::string context_;
  SourceLocation ownerLoc_;
  std::vector<std::string> allowed_;
  DiagnosticEngine &diags_;
  std::map<std::string, const Field *> fields_;
  std::set<std::string> suggested_; // keys offered for unknown fields
  std::vector<std::pair<std::string, std::string>> missing_; // key, hint
  size_t reported_ = 0; // missing_[0, reported_) are reported
  bool failed_ = false;
  bool otherFailure_ = false; // failed for more than missing fields
};

constexpr int64_t kBig = int64_t(1) << 40;

/// The bad lines of a data file named by a spec (lengths, trajectories).
/// The first few are reported where they are, in the data file; a note
/// leads back to the spec line that named the file, and one more note
/// counts the lines not shown.
class BadLines {
public:
  BadLines(uint32_t fileId, SourceLocation namedAt, std::string what)
      : fileId_(fileId), namedAt_(namedAt), what_(std::move(what)) {}

  void add(SourceLocation loc, std::string message) {
    if (shown_.size() < kShown)
      shown_.emplace_back(loc, std::move(message));
    ++count_;
  }

  /// Reports what was added; returns whether there was anything.
  bool report(BlockReader &r) {
    for (size_t i = 0; i < shown_.size(); ++i) {
      Diagnostic &d = r.errorWithNotes(shown_[i].first, shown_[i].second);
      if (i == 0)
        DiagnosticEngine::note(d, namedAt_, "the " + what_ + " is named here");
      if (i + 1 == shown_.size() && count_ > shown_.size())
        DiagnosticEngine::note(
            d, {fileId_, 0, 0, 1},
            std::to_string(count_ - shown_.size()) + " more bad line" +
                (count_ - shown_.size() > 1 ? "s" : "") + " not shown");
    }
    return count_ != 0;
  }

private:
  static constexpr size_t kShown = 5;
  uint32_t fileId_;
  SourceLocation namedAt_;
  std::string what_;
  std::vector<std::pair<SourceLocation, std::string>> shown_;
  size_t count_ = 0;
};

const std::vector<std::string> kDeclKinds = {"model",  "dataset", "workload",
                                             "fabric", "train",   "serve"};

class Analyzer {
public:
  Analyzer(SourceManager &sources, DiagnosticEngine &diags)
      : sources_(sources), diags_(diags) {}

  std::optional<Spec> run(const Program &program) {
    unsigned before = diags_.errorCount();
    // Pass 1: names and kinds.
    for (const Declaration &decl : program.decls) {
      if (std::find(kDeclKinds.begin(), kDeclKinds.end(), decl.kind) ==
          kDeclKinds.end()) {
        diags_.error(decl.kindLoc,
                     "unknown declaration kind '" + clip(decl.kind) + "'" +
                         didYouMean(decl.kind, kDeclKinds) +
                         " (expected one of " + joinQuoted(kDeclKinds) + ")");
        // A job naming it would otherwise get a second, misleading "unknown
        // model" error.
        unknownKindNames_.insert(decl.name);
        continue;
      }
      auto [it, inserted] = names_.emplace(decl.name, &decl);
      if (!inserted) {
        Diagnostic &d = diags_.error(decl.nameLoc, "duplicate name '" +
                                                       clip(decl.name) + "'");
        DiagnosticEngine::note(d, it->second->nameLoc,
                               "previous declaration is here (" +
                                   it->second->kind + ")");
      }
    }
    // Pass 2: everything a job may refer to.
    for (const Declaration &decl : program.decls) {
      if (names_.count(decl.name) && names_[decl.name] != &decl)
        continue; // duplicate, already reported
      if (decl.kind == "model")
        analyzeModel(decl);
      else if (decl.kind == "dataset")
        analyzeDataset(decl);
      else if (decl.kind == "workload")
        analyzeWorkload(decl);
      else if (decl.kind == "fabric")
        analyzeFabric(decl);
    }
    // Pass 3: jobs.
    for (const Declaration &decl : program.decls) {
      if (names_.count(decl.name) && names_[decl.name] != &decl)
        continue;
      if (decl.kind == "train")
        analyzeTrain(decl);
      else if (decl.kind == "serve")
        analyzeServe(decl);
    }
    checkFabricShares();
    if (diags_.errorCount() != before)
      return std::nullopt;
    // Source order.
    std::map<const Declaration *, std::pair<Spec::Kind, size_t>> index;
    for (const auto &[decl, entry] : placed_)
      index[decl] = entry;
    for (const Declaration &decl : program.decls)
      if (index.count(&decl))
        spec_.order.push_back(index[&decl]);
    return std::move(spec_);
  }

private:
  std::string contextOf(const Declaration &decl) const {
    return decl.kind + " '" + clip(decl.name) + "'";
  }

  fs::path directoryOf(SourceLocation loc) const {
    return fs::path(sources_.name(loc.fileId)).parent_path();
  }

  /// A `file("path")` value: the path resolved against the directory of the
  /// file that wrote it.
  std::optional<std::string> filePath(const Value &v, const std::string &what,
                                      BlockReader &reader) {
    if (v.kind != Value::Kind::Call || v.name != "file" || v.args.size() != 1 ||
        !v.args[0].key.empty() ||
        v.args[0].value->kind != Value::Kind::String) {
      reader.error(v.loc, what + " expects file(\"path\"), got " + describe(v));
      return std::nullopt;
    }
    fs::path path(v.args[0].value->text);
    if (path.empty()) {
      reader.error(v.args[0].value->loc, "empty file path");
      return std::nullopt;
    }
    if (path.is_relative())
      path = directoryOf(v.loc) / path;
    // Absolute, so that the spec IR names the same file wherever it is read.
    std::error_code ec;
    fs::path absolute = fs::absolute(path, ec);
    return (ec ? path : absolute).lexically_normal().string();
  }

  //===--------------------------------------------------------------------===//
  // model
  //===--------------------------------------------------------------------===//

  void analyzeModel(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
                   "vocab", "mlp", "tied_embeddings", "experts", "top_k",
                   "shared_experts", "moe_ffn", "dense_layers", "mtp_layers",
                   "dtype", "hf"},
                  diags_);
    cost::TransformerShape s;
    auto layers = r.integer("layers", true, 1, 100000);
    auto hidden = r.integer("hidden", true, 1, 1 << 22);
    auto heads = r.integer("heads", true, 1, 1 << 16);
    auto kvHeads = r.integer("kv_heads", false, 1, 1 << 16);
    auto headDim = r.integer("head_dim", false, 1, 1 << 16);
    auto experts = r.integer("experts", false, 0, 1 << 20);
    auto ffn = r.integer("ffn", false, 0, 1 << 24);
    auto vocab = r.integer("vocab", true, 1, 1 << 30);
    auto topK = r.integer("top_k", false, 0, 1 << 20);
    auto shared = r.integer("shared_experts", false, 0, 1 << 10);
    auto moeFfn = r.integer("moe_ffn", false, 0, 1 << 24);
    auto dense = r.integer("dense_layers", false, 0, 100000);
    auto mtp = r.integer("mtp_layers", false, 0, 64);
    auto mlp = r.keyword("mlp", false, {"swiglu", "gelu"});
    auto tied = r.boolean("tied_embeddings");
    auto dtype = r.keyword("dtype", false, {"bf16", "fp16", "fp8", "fp32"});
    // Which widths are required depends on `experts`; guess nothing when
    // experts itself is wrong.
    bool expertsKnown = !r.has("experts") || experts;
    if (expertsKnown && experts.value_or(0) == 0 && !r.has("ffn"))
      r.missing("ffn", "the dense MLP width");
    if (expertsKnown && experts.value_or(0) > 0) {
      // Missing, not "top_k (0) must be between 1 and experts": the user
      // wrote no 0.
      if (!r.has("top_k"))
        r.missing("top_k", "the experts each token is routed to, needed with "
                           "experts = " +
                               std::to_string(*experts));
      if (!r.has("moe_ffn"))
        r.missing("moe_ffn", "the width of one expert's MLP, needed with "
                             "experts = " +
                                 std::to_string(*experts));
      if (dense.value_or(0) > 0 && !r.has("ffn"))
        r.missing("ffn", "the dense MLP width, used by the first "
                         "dense_layers = " +
                             std::to_string(*dense) + " layer" +
                             (*dense > 1 ? "s" : ""));
    }
    r.reportMissing();
    // Missing MoE widths leave the other shape rules worth checking; any
    // other failure leaves nothing sound to check them on.
    if (r.failedOtherThanMissing() || !layers || !hidden || !heads || !vocab)
      return;
    s.layers = *layers;
    s.hidden = *hidden;
    s.heads = *heads;
    s.kvHeads = kvHeads.value_or(*heads);
    s.headDim = headDim.value_or(0); // 0: derive, the shape rules check it
    s.ffn = ffn.value_or(0);
    s.vocab = *vocab;
    s.experts = experts.value_or(0);
    s.topK = topK.value_or(0);
    s.sharedExperts = shared.value_or(0);
    s.moeFfn = moeFfn.value_or(0);
    s.denseLayers = dense.value_or(0);
    s.mtpLayers = mtp.value_or(0);
    s.mlp = mlp.value_or("swiglu") == "gelu" ? cost::MlpKind::GeLU
                                             : cost::MlpKind::SwiGLU;
    s.tiedEmbeddings = tied.value_or(false);
    std::string dt = dtype.value_or("bf16");
    s.dtype = dt == "fp16"   ? cost::DType::FP16
              : dt == "fp8"  ? cost::DType::FP8
              : dt == "fp32" ? cost::DType::FP32
                             : cost::DType::BF16;
    auto problems = cost::checkTransformerShape(s);
    std::vector<std::pair<SourceLocation, std::string>> located;
    for (const cost::ShapeProblem &p : problems)
      if (!r.isMissing(p.field)) // reported as missing already
        located.emplace_back(
            r.has(p.field) ? r.valueLocOf(p.field) : decl.nameLoc, p.message);
    // In source order, as the user reads the block.
    std::stable_sort(located.begin(), located.end(),
                     [](const auto &a, const auto &b) {
                       return std::make_pair(a.first.line, a.first.col) <
                              std::make_pair(b.first.line, b.first.col);
                     });
    for (const auto &[loc, message] : located)
      r.error(loc, message);
    if (!problems.empty() || r.failed())
      return;
    if (s.headDim == 0)
      s.headDim = s.hidden / s.heads;
    place(decl, Spec::Kind::Model, spec_.models.size());
    spec_.models.push_back({decl.name, decl.nameLoc, s});
  }

  //===--------------------------------------------------------------------===//
  // dataset
  //===--------------------------------------------------------------------===//

  void analyzeDataset(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"lengths", "clamp", "padding", "overlong"}, diags_);
    DatasetSpec d;
    d.name = decl.name;
    d.loc = decl.nameLoc;
    auto clamp = r.integer("clamp", false, 0, kBig);
    auto padding = r.integer("padding", false, 1, 1 << 20);
    auto overlong = r.keyword("overlong", false, {"drop", "truncate"});
    const Field *lengths = r.get("lengths");
    if (!lengths) {
      r.missing("lengths", "file(\"...\"), lognormal(mu = ..., sigma = ...) "
                           "or histogram(bounds = [...], weights = [...])");
      return;
    }
    const Value &v = *lengths->value;
    bool ok = !r.failed();
    if (v.kind == Value::Kind::Call && v.name == "file") {
      auto path = filePath(v, "field 'lengths'", r);
      ok = path && readLengths(*path, v.args[0].value->loc, d, r) && ok;
      if (path)
        d.path = *path;
      d.source = DatasetSpec::Source::LengthsFile;
    } else if (v.kind == Value::Kind::Call && v.name == "lognormal") {
      ok = readLognormal(v, d, r) && ok;
    } else if (v.kind == Value::Kind::Call && v.name == "histogram") {
      ok = readHistogram(v, d, r) && ok;
    } else {
      r.error(v.loc,
              "field 'lengths' expects file(\"...\"), lognormal(...) "
              "or histogram(...), got " +
                  describe(v) +
                  (v.kind == Value::Kind::Call
                       ? didYouMean(v.name, {"file", "lognormal", "histogram"})
                       : ""));
      ok = false;
    }
    if (!ok || r.failed())
      return;
    d.clamp = clamp.value_or(0);
    d.padding = padding.value_or(1);
    d.truncate = overlong.value_or("drop") == "truncate";
    if (d.clamp > 0 && d.padding > d.clamp) {
      r.error(r.valueLocOf("padding"), "padding (" + std::to_string(d.padding) +
                                           ") exceeds clamp (" +
                                           std::to_string(d.clamp) + ")");
      return;
    }
    if (overlong && clamp.value_or(0) == 0) {
      r.error(r.locOf("overlong"),
              "field 'overlong' needs a positive 'clamp' to apply to");
      return;
    }
    place(decl, Spec::Kind::Dataset, spec_.datasets.size());
    spec_.datasets.push_back(std::move(d));
  }

  /// Named arguments of a call, checked against `allowed`.
  std::map<std::string, const Argument *>
  namedArgs(const Value &call, const std::vector<std::string> &allowed,
            BlockReader &r, bool &ok) {
    std::map<std::string, const Argument *> args;
    for (const Argument &arg : call.args) {
      if (arg.key.empty()) {
        // One error for the call, not one per positional argument.
        if (ok) {
          std::string example;
          for (const std::string &key : allowed)
            example += (example.empty() ? "" : ", ") + key + " = ...";
          r.error(arg.value->loc, "arguments of " + call.name +
                                      "(...) are named: write " + call.name +
                                      "(" + example + ")");
        }
        ok = false;
        continue;
      }
      if (std::find(allowed.begin(), allowed.end(), arg.key) == allowed.end()) {
        r.error(arg.keyLoc, "unknown argument '" + clip(arg.key) + "' of " +
                                call.name + "(...)" +
                                didYouMean(arg.key, allowed));
        ok = false;
        continue;
      }
      auto [it, inserted] = args.emplace(arg.key, &arg);
      if (!inserted) {
        Diagnostic &d =
            r.errorWithNotes(arg.keyLoc, "duplicate argument '" + arg.key +
                                             "' of " + call.name + "(...)");
        DiagnosticEngine::note(d, it->second->keyLoc, "first set here");
        ok = false;
      }
    }
    std::vector<std::string> absent;
    for (const std::string &key : allowed)
      if (!args.count(key))
        absent.push_back(key);
    if (!absent.empty() && ok) {
      r.error(call.loc, call.name + "(...) is missing argument" +
                            (absent.size() > 1 ? "s " : " ") +
                            listQuoted(absent));
      ok = false;
    }
    return args;
  }

  bool readLognormal(const Value &v, DatasetSpec &d, BlockReader &r) {
    bool ok = true;
    auto args = namedArgs(v, {"mu", "sigma"}, r, ok);
    if (!ok)
      return false;
    auto mu = r.realValue(*args["mu"]->value, "lognormal mu", Dimension::Count,
                          0.0, 25.0);
    auto sigma = r.realValue(*args["sigma"]->value, "lognormal sigma",
                             Dimension::Count, 1e-6, 10.0);
    if (!mu || !sigma)
      return false;
    d.source = DatasetSpec::Source::Lognormal;
    d.mu = *mu;
    d.sigma = *sigma;
    return true;
  }

  bool readHistogram(const Value &v, DatasetSpec &d, BlockReader &r) {
    bool ok = true;
    auto args = namedArgs(v, {"bounds", "weights"}, r, ok);
    if (!ok)
      return false;
    const Value &bounds = *args["bounds"]->value;
    const Value &weights = *args["weights"]->value;
    if (bounds.kind != Value::Kind::List) {
      r.error(bounds.loc, "histogram bounds expects a list such as "
                          "[2Ki, 8Ki, 32Ki], got " +
                              describe(bounds));
      return false;
    }
    if (weights.kind != Value::Kind::List) {
      r.error(weights.loc, "histogram weights expects a list such as "
                           "[0.6, 0.3, 0.1], got " +
                               describe(weights));
      return false;
    }
    if (bounds.elements.empty()) {
      r.error(bounds.loc, "histogram needs at least one bin");
      return false;
    }
    if (bounds.elements.size() != weights.elements.size()) {
      r.error(weights.loc,
              "histogram has " + std::to_string(bounds.elements.size()) +
                  " bounds but " + std::to_string(weights.elements.size()) +
                  " weights");
      return false;
    }
    int64_t previous = 0;
    double total = 0;
    for (size_t i = 0; i < bounds.elements.size(); ++i) {
      auto bound =
          r.integerValue(*bounds.elements[i], "histogram bound", 1, kBig);
      auto weight = r.realValue(*weights.elements[i], "histogram weight",
                                Dimension::Count, 0.0, 1e12);
      if (!bound || !weight)
        return false;
      if (*bound <= previous) {
        r.error(bounds.elements[i]->loc,
                "histogram bounds must increase: " + std::to_string(*bound) +
                    " follows " + std::to_string(previous));
        return false;
      }
      previous = *bound;
      total += *weight;
      d.bounds.push_back(*bound);
      d.weights.push_back(*weight);
    }
    if (total <= 0) {
      r.error(weights.loc, "histogram weights sum to zero");
      return false;
    }
    d.source = DatasetSpec::Source::Histogram;
    return true;
  }

  /// Whether a data file is text. A binary file (a wrong path, a compressed
  /// file) gets one error at the spec's file(...) instead of a bad-line
  /// error that echoes binary garbage to the terminal.
  bool isText(const std::string &text, const std::string &what,
              const std::string &path, SourceLocation at, BlockReader &r) {
    uint32_t line = 0, col = 0;
    std::string problem;
    if (!validateUtf8(text, line, col)) {
      problem = "invalid UTF-8";
    } else if (size_t nul = text.find('\0'); nul != std::string::npos) {
      problem = "a NUL byte";
      line = 1 + static_cast<uint32_t>(
                     std::count(text.begin(), text.begin() + nul, '\n'));
      size_t lineStart = text.rfind('\n', nul);
      lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
      col = 1 + countCodePoints(
                    std::string_view(text).substr(lineStart, nul - lineStart));
    }
    if (problem.empty())
      return true;
    r.error(at, what + " '" + path + "' is not text: " + problem + " at line " +
                    std::to_string(line) + ", column " + std::to_string(col));
    return false;
  }

  /// Reads a lengths file: one positive integer a line (blank lines are
  /// skipped). Errors point into the file itself.
  bool readLengths(const std::string &path, SourceLocation at, DatasetSpec &d,
                   BlockReader &r) {
    std::string text, reason;
    if (!readFile(path, text, reason)) {
      r.error(at, "cannot read lengths file '" + path + "': " + reason);
      return false;
    }
    if (!isText(text, "lengths file", path, at, r))
      return false;
    uint32_t fileId = sources_.addBuffer(path, std::move(text));
    const std::string &body = sources_.text(fileId);
    int64_t count = 0, max = 0;
    BadLines bad(fileId, at, "lengths file");
    uint32_t line = 0;
    size_t pos = 0;
    while (pos < body.size()) {
      size_t end = body.find('\n', pos);
      if (end == std::string::npos)
        end = body.size();
      ++line;
      std::string_view text(body.data() + pos, end - pos);
      pos = end + 1;
      while (!text.empty() &&
             (text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
        text.remove_suffix(1);
      size_t lead = 0;
      while (lead < text.size() && (text[lead] == ' ' || text[lead] == '\t'))
        ++lead;
      text.remove_prefix(lead);
      if (text.empty())
        continue;
      bool digits = std::all_of(text.begin(), text.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
      int64_t value = digits && text.size() <= 12
                          ? std::strtoll(std::string(text).c_str(), nullptr, 10)
                          : 0;
      SourceLocation where{fileId, line, static_cast<uint32_t>(lead + 1),
                           std::max<uint32_t>(1, countCodePoints(text))};
      if (digits && text.size() > 12) {
        bad.add(where, "token count '" + clip(std::string(text)) +
                           "' is too large (at most 12 digits)");
        continue;
      }
      if (!digits || value <= 0) {
        bad.add(where, "expected a positive token count, got '" +
                           clip(std::string(text)) + "'");
        continue;
      }
      ++count;
      max = std::max(max, value);
    }
    if (bad.report(r))
      return false;
    if (count == 0) {
      r.error(at, "lengths file '" + path + "' holds no lengths");
      return false;
    }
    d.count = count;
    d.max = max;
    return true;
  }

  //===--------------------------------------------------------------------===//
  // workload
  //===--------------------------------------------------------------------===//

  void analyzeWorkload(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"trajectories", "synthetic", "concurrency"}, diags_);
    WorkloadSpec w;
    w.name = decl.name;
    w.loc = decl.nameLoc;
    if (r.has("trajectories") && r.has("synthetic")) {
      Diagnostic &d = r.errorWithNotes(
          r.locOf("synthetic"),
          "conflicting fields: a workload is either 'trajectories' or "
          "'synthetic', not both");
      DiagnosticEngine::note(d, r.locOf("trajectories"),
                             "'trajectories' is set here");
      return;
    }
    auto concurrency = r.integer("concurrency", false, 1, 1 << 24);
    if (const Field *f = r.get("trajectories")) {
      auto path = filePath(*f->value, "field 'trajectories'", r);
      if (!path || !readTrajectories(*path, f->value->args[0].value->loc, w, r))
        return;
      if (!concurrency) {
        if (!r.failed())
          r.missing("concurrency", "tasks in flight at once");
        return;
      }
      w.source = WorkloadSpec::Source::Trajectories;
      w.path = *path;
      w.concurrency = *concurrency;
    } else if (const Field *f = r.get("synthetic")) {
      if (!readSynthetic(*f->value, concurrency, w, r))
        return;
    } else {
      // Not "missing required field 'trajectories'": either field will do.
      r.error(r.locOf("trajectories"),
              r.context() + " needs 'trajectories = file(\"...\")' or "
                            "'synthetic = <preset>'");
      return;
    }
    if (r.failed())
      return;
    place(decl, Spec::Kind::Workload, spec_.workloads.size());
    spec_.workloads.push_back(std::move(w));
  }

  bool readTrajectories(const std::string &path, SourceLocation at,
                        WorkloadSpec &w, BlockReader &r) {
    std::string text, reason;
    if (!readFile(path, text, reason)) {
      r.error(at, "cannot read trajectories file '" + path + "': " + reason);
      return false;
    }
    if (!isText(text, "trajectories file", path, at, r))
      return false;
    uint32_t fileId = sources_.addBuffer(path, std::move(text));
    const std::string &body = sources_.text(fileId);
    int64_t tasks = 0;
    BadLines bad(fileId, at, "trajectories file");
    uint32_t line = 0;
    size_t pos = 0;
    while (pos < body.size()) {
      size_t end = body.find('\n', pos);
      if (end == std::string::npos)
        end = body.size();
      ++line;
      std::string row = body.substr(pos, end - pos);
      pos = end + 1;
      if (row.find_first_not_of(" \t\r") == std::string::npos)
        continue;
      if (!row.empty() && row.back() == '\r')
        row.pop_back();
      // nlohmann reports where the JSON breaks (e.byte, 1-based); point the
      // caret there instead of at the start of a long line.
      nlohmann::json json;
      std::string problem;
      uint32_t column = 1;
      try {
        json = nlohmann::json::parse(row);
      } catch (const nlohmann::json::parse_error &e) {
        std::string what = e.what();
        size_t dash = what.find(" - ");
        problem = "not valid JSON (" +
                  (dash == std::string::npos ? std::string("parse error")
                                             : what.substr(dash + 3)) +
                  ")";
        size_t byte = std::min<size_t>(e.byte == 0 ? 1 : e.byte, row.size());
        column = std::max<uint32_t>(
            1, countCodePoints(std::string_view(row).substr(0, byte)));
      }
      if (problem.empty() &&
          (!json.is_object() || !json.contains("turns") ||
           !json["turns"].is_array() || json["turns"].empty()))
        problem = "expected a JSON object with a non-empty \"turns\" list";
      if (!problem.empty()) {
        bad.add({fileId, line, column, 1}, "bad trajectory: " + problem);
        continue;
      }
      ++tasks;
    }
    if (bad.report(r))
      return false;
    if (tasks == 0) {
      r.error(at, "trajectories file '" + path + "' holds no tasks");
      return false;
    }
    w.tasks = tasks;
    return true;
  }

  bool readSynthetic(const Value &v, std::optional<int64_t> concurrency,
                     WorkloadSpec &w, BlockReader &outer) {
    const std::vector<std::string> presets = {"swe_bench", "browsecomp",
                                              "custom"};
    if (v.kind != Value::Kind::Named ||
        std::find(presets.begin(), presets.end(), v.name) == presets.end()) {
      outer.error(
          v.loc, "field 'synthetic' expects a preset " + joinQuoted(presets) +
                     " with an optional { ... } block, got " + describe(v) +
                     (v.kind == Value::Kind::Named ? didYouMean(v.name, presets)
                                                   : ""));
      return false;
    }
    // Preset means (docs/language.md says where each figure comes from).
    w.source = WorkloadSpec::Source::Synthetic;
    if (v.name == "swe_bench") {
      w.preset = WorkloadSpec::Preset::SweBench;
      w.tasks = 512, w.concurrency = 128, w.turns = 30, w.prompt = 8000;
      w.newTokens = 1500, w.outputTokens = 600, w.toolLatency = 3.0;
      w.maxLen = 81920;
    } else if (v.name == "browsecomp") {
      w.preset = WorkloadSpec::Preset::BrowseComp;
      w.tasks = 512, w.concurrency = 80, w.turns = 20, w.prompt = 2000;
      w.newTokens = 3000, w.outputTokens = 400, w.toolLatency = 2.0;
      w.maxLen = 81920;
    } else {
      w.preset = WorkloadSpec::Preset::Custom;
    }
    static const Block empty;
    const Block &block = v.block ? *v.block : empty;
    BlockReader r(block, "synthetic workload '" + v.name + "'", v.loc,
                  {"tasks", "turns", "prompt", "new_tokens", "output_tokens",
                   "tool_latency", "max_len"},
                  outer.diags());
    bool custom = w.preset == WorkloadSpec::Preset::Custom;
    auto tasks = r.integer("tasks", custom, 1, 1 << 24);
    auto turns = r.integer("turns", custom, 1, 100000);
    auto prompt = r.integer("prompt", custom, 1, kBig);
    auto newTokens = r.integer("new_tokens", custom, 1, kBig);
    auto output = r.integer("output_tokens", custom, 1, kBig);
    auto latency =
        r.real("tool_latency", custom, Dimension::Seconds, 0.0, 86400.0);
    auto maxLen = r.integer("max_len", custom, 1, kBig);
    if (custom && !concurrency && !r.failed())
      outer.missing("concurrency", "tasks in flight at once");
    if (r.failed() || outer.failed())
      return false;
    w.tasks = tasks.value_or(w.tasks);
    w.turns = turns.value_or(w.turns);
    w.prompt = prompt.value_or(w.prompt);
    w.newTokens = newTokens.value_or(w.newTokens);
    w.outputTokens = output.value_or(w.outputTokens);
    w.toolLatency = latency.value_or(w.toolLatency);
    w.maxLen = maxLen.value_or(w.maxLen);
    w.concurrency = concurrency.value_or(w.concurrency);
    if (w.maxLen < w.prompt + w.outputTokens) {
      r.error(r.has("max_len") ? r.valueLocOf("max_len") : v.loc,
              "max_len (" + std::to_string(w.maxLen) +
                  ") cannot hold the first turn (" + std::to_string(w.prompt) +
                  " prompt + " + std::to_string(w.outputTokens) +
                  " output tokens)");
      return false;
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // fabric
  //===--------------------------------------------------------------------===//

  void analyzeFabric(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"chip", "nodes", "chips_per_node", "chips", "intra_node",
                   "intra_node_bw", "topology", "failed", "prices"},
                  diags_);
    FabricSpec f;
    f.name = decl.name;
    f.loc = decl.nameLoc;
    auto nodes = r.integer("nodes", true, 1, 10000000);
    auto perNode = r.integer("chips_per_node", true, 1, 1024);
    auto chips = r.integer("chips", false, 1, kBig);
    auto intra = r.keyword("intra_node", false, {"nvswitch", "mesh", "ring"});
    auto intraBw =
        r.real("intra_node_bw", false, Dimension::BytesPerSecond, 0.0, 1e15);
    bool chipOk = readChip(r, f);
    bool topoOk = readTopology(r, f);
    std::vector<SourceLocation> faultLocs[3]; // chips, links, ports
    bool faultsOk = readFaults(r, f.faults, faultLocs);
    bool pricesOk = readPrices(r, f);
    if (r.failed() || !chipOk || !topoOk || !faultsOk || !pricesOk)
      return;
    f.nodes = *nodes;
    f.chipsPerNode = *perNode;
    if (chips && *chips != f.chips()) {
      Diagnostic &d = r.errorWithNotes(
          r.valueLocOf("chips"),
          "chip count does not match: chips = " + std::to_string(*chips) +
              " but nodes x chips_per_node = " + std::to_string(f.nodes) +
              " x " + std::to_string(f.chipsPerNode) + " = " +
              std::to_string(f.chips()));
      DiagnosticEngine::note(d, r.locOf("nodes"), "nodes is set here");
      return;
    }
    std::string in = intra.value_or("nvswitch");
    f.intraNode = in == "mesh"   ? FabricSpec::IntraNode::Mesh
                  : in == "ring" ? FabricSpec::IntraNode::Ring
                                 : FabricSpec::IntraNode::NVSwitch;
    // Catalog NVLink figures count both directions; links in a .plx fabric
    // are stated per direction, so the default is half the catalog figure.
    f.intraNodeBandwidth = intraBw.value_or(f.chip.nvlinkBandwidth / 2);
    if (f.chipsPerNode > 1 && !(f.intraNodeBandwidth > 0)) {
      if (intraBw)
        r.error(r.valueLocOf("intra_node_bw"),
                "field 'intra_node_bw' must be positive with " +
                    std::to_string(f.chipsPerNode) + " chips per node");
      else
        r.error(
            r.valueLocOf("chip"),
            "chip '" + f.chip.name +
                "' has no NVLink figure, but there "
                "are " +
                std::to_string(f.chipsPerNode) +
                " chips per node: set 'intra_node_bw' in the fabric" +
                (f.chip.name == "custom" ? " or 'nvlink' in the chip" : ""));
      return;
    }
    auto problems =
        fabric::checkTopologyShape(f.topology, f.nodes, f.chipsPerNode);
    const Field *topo = r.get("topology");
    std::vector<std::pair<SourceLocation, const fabric::TopologyProblem *>>
        located;
    for (const fabric::TopologyProblem &p : problems) {
      SourceLocation loc = topo->value->loc;
      if (topo->value->block)
        for (const Field &tf : topo->value->block->fields)
          if (tf.key == p.field)
            loc = tf.value->loc;
      located.emplace_back(loc, &p);
    }
    // In source order, as the user reads the block.
    std::stable_sort(located.begin(), located.end(),
                     [](const auto &a, const auto &b) {
                       return std::make_pair(a.first.line, a.first.col) <
                              std::make_pair(b.first.line, b.first.col);
                     });
    for (const auto &[loc, problem] : located) {
      const fabric::TopologyProblem &p = *problem;
      Diagnostic &d = r.errorWithNotes(loc, p.message);
      // Point at the fabric figure the rule compared against: "the fabric
      // has N nodes", "the chips per node (8)", "(64 nodes x 8 chips)".
      if (p.message.find(" nodes") != std::string::npos)
        DiagnosticEngine::note(d, r.locOf("nodes"), "nodes is set here");
      if (p.message.find("chips per node") != std::string::npos ||
          p.message.find(" chips)") != std::string::npos)
        DiagnosticEngine::note(d, r.locOf("chips_per_node"),
                               "chips_per_node is set here");
    }
    if (!problems.empty())
      return;
    // Report in source order, whatever list an entry went to.
    std::vector<std::pair<SourceLocation, std::string>> faultErrors;
    for (const fabric::FaultProblem &p :
         fabric::checkFaults(f.topology, f.nodes, f.chipsPerNode, f.faults)) {
      int list = p.kind == "chip" ? 0 : p.kind == "link" ? 1 : 2;
      faultErrors.emplace_back(faultLocs[list][p.index], p.message);
    }
    std::stable_sort(faultErrors.begin(), faultErrors.end(),
                     [](const auto &x, const auto &y) {
                       return std::tie(x.first.line, x.first.col) <
                              std::tie(y.first.line, y.first.col);
                     });
    for (const auto &[loc, message] : faultErrors)
      r.error(loc, message);
    if (r.failed())
      return;
    place(decl, Spec::Kind::Fabric, spec_.fabrics.size());
    spec_.fabrics.push_back(std::move(f));
  }

  /// `prices { ocs_port = 300 USD; ocs_radix = 300; fibre = 50 USD;
  /// speeds = [speed(800 Gb/s, transceiver = 600 USD, switch_port = 800 USD,
  /// switch_radix = 64, nic = 0 USD), ...]; }` over the defaults of
  /// dialects/Common/Prices.h. A speed class replaces the default class of
  /// its rate (fields it leaves out keep that class's prices) or adds one
  /// (then transceiver, switch_port and switch_radix are required).
  bool readPrices(BlockReader &outer, FabricSpec &f) {
    const Field *field = outer.get("prices");
    if (!field)
      return true;
    const Value &v = *field->value;
    if (v.kind != Value::Kind::Named || v.name != "prices" || !v.block) {
      outer.error(v.loc, "field 'prices' expects a block such as prices { "
                         "ocs_port = 300 USD; }, got " +
                             describe(v));
      return false;
    }
    BlockReader r(*v.block, "prices of fabric '" + clip(f.name) + "'",
                  field->keyLoc, {"ocs_port", "ocs_radix", "fibre", "speeds"},
                  outer.diags());
    constexpr double kMaxUsd = 1e9; // one part; more is a typo
    fabric::PriceTable table;
    auto ocsPort = r.real("ocs_port", false, Dimension::Dollars, 0.0, kMaxUsd);
    auto ocsRadix = r.integer("ocs_radix", false, 2, 1 << 20);
    auto fibre = r.real("fibre", false, Dimension::Dollars, 0.0, kMaxUsd);
    if (ocsPort)
      table.ocsPortUsd = *ocsPort;
    if (ocsRadix)
      table.ocsRadix = *ocsRadix;
    if (fibre)
      table.fibreUsd = *fibre;
    bool ok = !r.failed();
    if (const Field *speeds = r.get("speeds")) {
      const Value &list = *speeds->value;
      if (list.kind != Value::Kind::List || list.elements.empty()) {
        r.error(list.loc, "field 'speeds' expects a list such as "
                          "[speed(800 Gb/s, transceiver = 600 USD)], got " +
                              describe(list));
        return false;
      }
      const fabric::PriceTable defaults;
      std::vector<std::pair<double, SourceLocation>> seen;
      for (const auto &entry : list.elements) {
        const Value &e = *entry;
        if (e.kind != Value::Kind::Call || e.name != "speed" ||
            e.args.empty() || !e.args[0].key.empty()) {
          r.error(e.loc, "a speed class is speed(<line rate>, transceiver = "
                         "..., switch_port = ..., switch_radix = ..., nic = "
                         "...), got " +
                             describe(e));
          ok = false;
          continue;
        }
        auto rate = r.realValue(*e.args[0].value, "the line rate of speed(...)",
                                Dimension::BytesPerSecond, 1e6, 1e15);
        if (!rate) {
          ok = false;
          continue;
        }
        const double gbps = *rate * 8 / 1e9;
        bool entryOk = true;
        for (const auto &[other, loc] : seen)
          if (other == gbps) {
            Diagnostic &d = r.errorWithNotes(
                e.loc, "speed class " + formatGbps(gbps) + " is given twice");
            DiagnosticEngine::note(d, loc, "first given here");
            entryOk = false;
          }
        seen.emplace_back(gbps, e.loc);
        fabric::SpeedClassPrice c;
        c.gbps = gbps;
        const fabric::SpeedClassPrice *base = nullptr;
        for (const fabric::SpeedClassPrice &d : defaults.speeds)
          if (d.gbps == gbps)
            base = &d;
        if (base)
          c = *base;
        bool hasTransceiver = false, hasSwitchPort = false, hasRadix = false;
        std::set<std::string> keys;
        for (size_t k = 1; k < e.args.size(); ++k) {
          const Argument &arg = e.args[k];
          if (arg.key.empty()) {
            r.error(arg.value->loc, "after the line rate, the arguments of "
                                    "speed(...) are named: transceiver, "
                                    "switch_port, switch_radix, nic");
            entryOk = false;
            continue;
          }
          if (!keys.insert(arg.key).second) {
            r.error(arg.keyLoc,
                    "argument '" + arg.key + "' of speed(...) is given twice");
            entryOk = false;
            continue;
          }
          const Value &a = *arg.value;
          std::string what = "'" + arg.key + "' of speed(...)";
          if (arg.key == "switch_radix") {
            auto n = r.integerValue(a, what, 2, 1 << 20);
            entryOk &= n.has_value();
            c.switchRadix = n.value_or(0);
            hasRadix = true;
            continue;
          }
          double *price = arg.key == "transceiver"   ? &c.transceiverUsd
                          : arg.key == "switch_port" ? &c.switchPortUsd
                          : arg.key == "nic"         ? &c.nicPortUsd
                                                     : nullptr;
          if (!price) {
            r.error(arg.keyLoc,
                    "unknown argument '" + clip(arg.key) + "' of speed(...)" +
                        didYouMean(arg.key, {"transceiver", "switch_port",
                                             "switch_radix", "nic"}) +
                        " (known: transceiver, switch_port, switch_radix, "
                        "nic)");
            entryOk = false;
            continue;
          }
          auto usd = r.realValue(a, what, Dimension::Dollars, 0.0, kMaxUsd);
          entryOk &= usd.has_value();
          *price = usd.value_or(0);
          hasTransceiver |= arg.key == "transceiver";
          hasSwitchPort |= arg.key == "switch_port";
        }
        if (entryOk && !base &&
            (!hasTransceiver || !hasSwitchPort || !hasRadix)) {
          std::string need;
          for (auto [given, name] : {std::pair{hasTransceiver, "transceiver"},
                                     std::pair{hasSwitchPort, "switch_port"},
                                     std::pair{hasRadix, "switch_radix"}})
            if (!given)
              need += std::string(need.empty() ? "" : ", ") + name;
          r.error(e.loc, "speed class " + formatGbps(gbps) +
                             " has no default prices (the defaults are " +
                             defaultRates(defaults) + "): give " + need);
          entryOk = false;
        }
        if (entryOk)
          fabric::mergeSpeedClass(table, c);
        ok &= entryOk;
      }
    }
    if (!ok || r.failed())
      return false;
    // The per-field ranges above keep every rule of checkPrices, which
    // #plx.prices' verifier applies to what MLIRGen builds.
    f.prices = std::move(table);
    f.pricesGiven = true;
    return true;
  }

  static std::string formatGbps(double gbps) {
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "%g Gb/s", gbps);
    return buffer;
  }

  static std::string defaultRates(const fabric::PriceTable &t) {
    std::string out;
    for (const fabric::SpeedClassPrice &c : t.speeds)
      out += (out.empty() ? "" : ", ") + formatGbps(c.gbps);
    return out;
  }

  /// `failed = [chip(node, local), link(a, b), port(row|col, index, rail,
  /// position), ...]`; the location of each entry is kept for range errors.
  bool readFaults(BlockReader &r, fabric::FabricFaults &faults,
                  std::vector<SourceLocation> (&locs)[3]) {
    const Field *field = r.get("failed");
    if (!field)
      return true;
    const Value &list = *field->value;
    if (list.kind != Value::Kind::List) {
      r.error(list.loc, "field 'failed' expects a list such as [chip(3, 1), "
                        "link(4, 5), port(row, 2, 0, 7)], got " +
                            describe(list));
      return false;
    }
    bool ok = true;
    for (const auto &entry : list.elements) {
      const Value &e = *entry;
      size_t arity = e.name == "chip" || e.name == "link" ? 2
                     : e.name == "port"                   ? 4
                                                          : 0;
      if (e.kind != Value::Kind::Call || arity == 0) {
        r.error(e.loc, "a failed entry is chip(node, index), link(node, "
                       "node) or port(row|col, index, rail, position), got " +
                           describe(e));
        ok = false;
        continue;
      }
      if (e.args.size() != arity) {
        r.error(e.loc, e.name + "(...) takes " + std::to_string(arity) +
                           " arguments, got " + std::to_string(e.args.size()));
        ok = false;
        continue;
      }
      std::vector<int64_t> numbers;
      bool entryOk = true;
      for (size_t k = 0; k < arity; ++k) {
        const Argument &arg = e.args[k];
        if (!arg.key.empty()) {
          r.error(arg.keyLoc,
                  "arguments of " + e.name + "(...) are positional");
          entryOk = false;
          break;
        }
        if (e.name == "port" && k == 0) {
          const Value &axis = *arg.value;
          if (axis.kind != Value::Kind::Named || axis.block ||
              (axis.name != "row" && axis.name != "col")) {
            r.error(axis.loc, "the first argument of port(...) is 'row' or "
                              "'col', got " +
                                  describe(axis));
            entryOk = false;
            break;
          }
          numbers.push_back(axis.name == "row" ? 0 : 1);
          continue;
        }
        auto n = r.integerValue(*arg.value, e.name + " argument", 0, kBig);
        if (!n) {
          entryOk = false;
          break;
        }
        numbers.push_back(*n);
      }
      if (!entryOk) {
        ok = false;
        continue;
      }
      if (e.name == "chip") {
        faults.chips.push_back({numbers[0], numbers[1]});
        locs[0].push_back(e.loc);
      } else if (e.name == "link") {
        faults.links.push_back({numbers[0], numbers[1]});
        locs[1].push_back(e.loc);
      } else {
        faults.ports.push_back(
            {numbers[0] == 0 ? fabric::RailAxis::Row : fabric::RailAxis::Col,
             numbers[1], numbers[2], numbers[3]});
        locs[2].push_back(e.loc);
      }
    }
    return ok;
  }

  bool readChip(BlockReader &outer, FabricSpec &f) {
    const Field *field = outer.get("chip");
    if (!field) {
      outer.missing("chip", "a catalog name such as 'H100', or 'custom { ... "
                            "}'");
      return false;
    }
    const Value &v = *field->value;
    if (v.kind != Value::Kind::Named) {
      outer.error(v.loc, "field 'chip' expects a catalog name (" +
                             cost::chipCatalogKeys() +
                             ") or 'custom { ... }', got " + describe(v));
      return false;
    }
    bool custom = v.name == "custom";
    if (!custom) {
      auto chip = cost::findChip(v.name);
      if (!chip) {
        std::vector<std::string> keys;
        for (const auto &c : cost::chipCatalog())
          keys.push_back(c.name);
        keys.push_back("custom");
        outer.error(v.loc, "unknown chip '" + clip(v.name) + "'" +
                               didYouMean(v.name, keys) + " (known chips: " +
                               cost::chipCatalogKeys() + ", or 'custom')");
        return false;
      }
      f.chip = *chip;
    } else {
      f.chip = cost::ChipSpec{};
      f.chip.name = "custom";
      f.chip.displayName = "custom chip";
    }
    static const Block empty;
    BlockReader r(v.block ? *v.block : empty, "chip '" + v.name + "'", v.loc,
                  {"bf16", "fp8", "hbm", "hbm_bw", "nvlink", "overlap_slowdown",
                   "overlap_comm_efficiency", "gemm_efficiency",
                   "attention_efficiency", "memory_efficiency", "sm_count"},
                  outer.diags());
    auto bf16 = r.real("bf16", custom, Dimension::FlopsPerSecond, 1e6, 1e18);
    auto fp8 = r.real("fp8", false, Dimension::FlopsPerSecond, 0.0, 1e18);
    auto hbm =
        r.integer("hbm", custom, 1 << 20, int64_t(1) << 50, Dimension::Bytes);
    auto hbmBw = r.real("hbm_bw", custom, Dimension::BytesPerSecond, 1e6, 1e15);
    auto nvlink = r.real("nvlink", false, Dimension::BytesPerSecond, 0.0, 1e15);
    auto overlapSlowdown =
        r.real("overlap_slowdown", false, Dimension::Count, 0.0, 4.0);
    auto overlapComm =
        r.real("overlap_comm_efficiency", false, Dimension::Count, 0.01, 1.0);
    auto gemm = r.real("gemm_efficiency", false, Dimension::Count, 0.01, 1.0);
    auto attention =
        r.real("attention_efficiency", false, Dimension::Count, 0.01, 1.0);
    auto memory =
        r.real("memory_efficiency", false, Dimension::Count, 0.01, 1.0);
    auto sms = r.integer("sm_count", false, 0, 1024);
    if (r.failed())
      return false;
    if (sms)
      f.chip.smCount = *sms;
    if (gemm)
      f.chip.gemmEfficiency = *gemm;
    if (attention)
      f.chip.attentionEfficiency = *attention;
    if (memory)
      f.chip.memoryEfficiency = *memory;
    if (overlapSlowdown)
      f.chip.overlapComputeSlowdown = *overlapSlowdown;
    if (overlapComm)
      f.chip.overlapCommEfficiency = *overlapComm;
    if (bf16)
      f.chip.bf16Flops = *bf16;
    if (fp8)
      f.chip.fp8Flops = *fp8;
    if (hbm)
      f.chip.hbmBytes = *hbm;
    if (hbmBw)
      f.chip.hbmBandwidth = *hbmBw;
    if (nvlink)
      f.chip.nvlinkBandwidth = *nvlink;
    // A catalog chip with changed figures is no longer that product: say so
    // wherever its name is shown ("H100 (modified: hbm)").
    if (!custom && v.block && !v.block->fields.empty()) {
      std::string changed;
      for (const Field &field : v.block->fields)
        changed += (changed.empty() ? "" : ", ") + field.key;
      f.chip.name += " (modified: " + changed + ")";
    }
    return true;
  }

  bool readTopology(BlockReader &outer, FabricSpec &f) {
    const Field *field = outer.get("topology");
    const std::vector<std::string> kinds = {"railx", "fat_tree",
                                            "rail_optimized", "torus"};
    if (!field) {
      outer.missing("topology", "one of " + joinQuoted(kinds));
      return false;
    }
    const Value &v = *field->value;
    if (v.kind != Value::Kind::Named ||
        std::find(kinds.begin(), kinds.end(), v.name) == kinds.end()) {
      outer.error(
          v.loc,
          "field 'topology' expects one of " + joinQuoted(kinds) +
              " with a { ... } block, got " + describe(v) +
              (v.kind == Value::Kind::Named ? didYouMean(v.name, kinds) : ""));
      return false;
    }
    static const Block empty;
    const Block &block = v.block ? *v.block : empty;
    fabric::TopologyShape &t = f.topology;
    std::string context = "topology '" + v.name + "'";
    if (v.name == "railx") {
      BlockReader r(block, context, v.loc,
                    {"rows", "cols", "rails", "link", "directed"},
                    outer.diags());
      t.kind = fabric::TopologyKind::RailX;
      auto rows = r.integer("rows", true, 1, 1 << 20);
      auto cols = r.integer("cols", true, 1, 1 << 20);
      auto rails = r.integer("rails", true, 1, 1024);
      auto link = r.real("link", true, Dimension::BytesPerSecond, 1e3, 1e15);
      auto directed = r.boolean("directed");
      if (r.failed())
        return false;
      t.rows = *rows, t.cols = *cols, t.rails = *rails;
      t.linkBandwidth = *link;
      t.directed = directed.value_or(false);
    } else if (v.name == "fat_tree" || v.name == "rail_optimized") {
      bool fatTree = v.name == "fat_tree";
      std::vector<std::string> keys = {"radix", "link", "oversubscription"};
      keys.push_back(fatTree ? "tiers" : "rails");
      BlockReader r(block, context, v.loc, keys, outer.diags());
      t.kind = fatTree ? fabric::TopologyKind::FatTree
                       : fabric::TopologyKind::RailOptimized;
      auto radix = r.integer("radix", true, 2, 4096);
      auto link = r.real("link", true, Dimension::BytesPerSecond, 1e3, 1e15);
      auto over =
          r.real("oversubscription", false, Dimension::Count, 1.0, 1024.0);
      std::optional<int64_t> tiers, rails;
      if (fatTree)
        tiers = r.integer("tiers", true, 1, 8);
      else
        rails = r.integer("rails", true, 1, 1024);
      if (r.failed())
        return false;
      t.radix = *radix;
      t.linkBandwidth = *link;
      t.oversubscription = over.value_or(1.0);
      t.tiers = tiers.value_or(0);
      t.rails = rails.value_or(0);
    } else {
      BlockReader r(block, context, v.loc, {"dims", "link"}, outer.diags());
      t.kind = fabric::TopologyKind::Torus;
      auto link = r.real("link", true, Dimension::BytesPerSecond, 1e3, 1e15);
      const Field *dims = r.get("dims");
      if (!dims) {
        r.missing("dims", "a list such as [4, 4, 4]");
        return false;
      }
      if (dims->value->kind != Value::Kind::List) {
        r.error(dims->value->loc, "field 'dims' expects a list such as "
                                  "[4, 4, 4], got " +
                                      describe(*dims->value));
        return false;
      }
      for (const auto &element : dims->value->elements) {
        auto extent = r.integerValue(*element, "torus extent", 1, 1 << 20);
        if (!extent)
          return false;
        t.dims.push_back(*extent);
      }
      if (r.failed() || !link)
        return false;
      t.linkBandwidth = *link;
    }
    return true;
  }

  //===--------------------------------------------------------------------===//
  // Jobs
  //===--------------------------------------------------------------------===//

  /// Resolves a reference to a declaration of `kind`; reports unknown names
  /// and names of the wrong kind.
  const Declaration *resolve(BlockReader &r, const std::string &key,
                             const std::string &kind) {
    auto ref = r.reference(key, kind);
    if (!ref)
      return nullptr;
    auto it = names_.find(ref->first);
    if (it == names_.end() && unknownKindNames_.count(ref->first)) {
      r.markFailed(); // its kind was reported, the reference adds nothing
      return nullptr;
    }
    if (it == names_.end()) {
      std::vector<std::string> sameKind;
      for (const auto &[name, decl] : names_)
        if (decl->kind == kind)
          sameKind.push_back(name);
      r.error(ref->second, "unknown " + kind + " '" + clip(ref->first) + "'" +
                               didYouMean(ref->first, sameKind));
      return nullptr;
    }
    if (it->second->kind != kind) {
      Diagnostic &d = r.errorWithNotes(
          ref->second, "'" + clip(ref->first) + "' is a " + it->second->kind +
                           ", but field '" + key + "' needs a " + kind);
      DiagnosticEngine::note(d, it->second->nameLoc,
                             "'" + clip(ref->first) + "' is declared here");
      return nullptr;
    }
    return it->second;
  }

  template <typename T>
  const T *findSpec(const std::vector<T> &specs, const std::string &name) {
    for (const T &s : specs)
      if (s.name == name)
        return &s;
    return nullptr;
  }

  /// A job's `strategy { ... }` block (an empty one when absent), or null
  /// after reporting a strategy that is not a block.
  const Block *strategyBlock(BlockReader &r, const Field *field,
                             const char *example) {
    static const Block empty;
    if (!field)
      return &empty;
    const Value &v = *field->value;
    if (v.kind != Value::Kind::Named || v.name != "strategy" || !v.block) {
      r.error(v.loc, std::string("field 'strategy' expects a block such as ") +
                         example + ", got " + describe(v));
      return nullptr;
    }
    return v.block.get();
  }

  void analyzeTrain(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"model", "data", "fabric", "chips", "batch", "steps", "seed",
                   "strategy"},
                  diags_);
    TrainSpec t;
    t.name = decl.name;
    t.loc = decl.nameLoc;
    const Declaration *model = resolve(r, "model", "model");
    const Declaration *data = resolve(r, "data", "dataset");
    const Declaration *fab = resolve(r, "fabric", "fabric");
    auto batch = r.integer("batch", true, 1, 1 << 30);
    auto steps = r.integer("steps", false, 1, 1 << 20);
    auto seed = r.integer("seed", false, 0, INT64_MAX);
    auto jobChips = r.integer("chips", false, 1, kBig);
    const Field *strategyField = r.get("strategy");
    const Block *strategy =
        strategyBlock(r, strategyField, "strategy { sp = adaptive; }");
    if (!strategy)
      return;
    r.reportMissing(); // in source order, before the strategy's errors
    BlockReader s(*strategy, "strategy of train '" + clip(decl.name) + "'",
                  strategyField ? strategyField->keyLoc : decl.nameLoc,
                  {"sp", "pp", "tp", "cp", "checkpoint", "zero", "memory_limit",
                   "micro_batch", "memory_reserve", "attention",
                   "virtual_stages", "zero_prefetch", "checkpoint_layers"},
                  diags_);
    // Every field is read before giving up, so that each gets its error.
    bool degreesOk = readDegree(s, "sp", {"adaptive", "best_homogeneous"},
                                t.spDegree, [&](const std::string &mode) {
                                  t.sp = mode == "adaptive"
                                             ? TrainSpec::Sp::Adaptive
                                             : TrainSpec::Sp::BestHomogeneous;
                                });
    degreesOk &=
        readDegree(s, "pp", {"dynamic"}, t.ppDegree,
                   [&](const std::string &) { t.pp = TrainSpec::Pp::Dynamic; });
    auto tp = s.integer("tp", false, 1, 1 << 16);
    auto cp = s.integer("cp", false, 1, 1 << 16);
    auto zero = s.integer("zero", false, 0, 3);
    auto checkpoint =
        s.keyword("checkpoint", false,
                  {"none", "selective", "attention_mlp", "full", "adaptive"});
    auto memLimit = s.integer("memory_limit", false, 1 << 20, int64_t(1) << 50,
                              Dimension::Bytes);
    auto microBatch = s.integer("micro_batch", false, 1, 1 << 30);
    auto memReserve = s.integer("memory_reserve", false, 0, int64_t(1) << 50,
                                Dimension::Bytes);
    auto attention = s.keyword("attention", false, {"fused", "eager"});
    auto virtualStages = s.integer("virtual_stages", false, 1, 1 << 10);
    auto zeroPrefetch = s.integer("zero_prefetch", false, 0, 1);
    auto checkpointLayers = s.integer("checkpoint_layers", false, 1, 1 << 20);
    // Every step's batch is drawn, packed and simulated sequence by
    // sequence: refuse up front what would not finish, rather than hang.
    constexpr int64_t kMaxBatchSequences = int64_t(1) << 20;
    if (batch && *batch > kMaxBatchSequences) {
      r.error(r.valueLocOf("batch"),
              "batch of " + std::to_string(*batch) +
                  " sequences is more than plxc plans per step (at most " +
                  std::to_string(kMaxBatchSequences) +
                  "): each step's sequences are drawn, packed and simulated "
                  "one by one");
      return;
    }
    if (!degreesOk || r.failed() || s.failed() || !model || !data || !fab)
      return;
    t.model = model->name, t.data = data->name, t.fabric = fab->name;
    t.batch = *batch;
    t.steps = steps.value_or(1);
    t.seed = seed.value_or(0);
    t.tp = tp.value_or(1), t.cp = cp.value_or(1), t.zero = zero.value_or(3);
    t.memoryLimit = memLimit.value_or(0);
    t.microBatch = microBatch.value_or(0);
    t.memoryReserve = memReserve.value_or(-1);
    t.eagerAttention = attention.value_or("fused") == "eager";
    t.virtualStages = virtualStages.value_or(1);
    t.zeroPrefetch = zeroPrefetch.value_or(1);
    t.checkpointLayers = checkpointLayers.value_or(0);
    if (zeroPrefetch && t.zero != 3) {
      // Only ZeRO-3 gathers weights; a prefetch of nothing is a mistake.
      Diagnostic &d = s.errorWithNotes(
          s.valueLocOf("zero_prefetch"),
          "zero_prefetch says how ZeRO-3 gathers weights, but the strategy "
          "runs ZeRO-" +
              std::to_string(t.zero) + ", which gathers none");
      if (s.has("zero"))
        DiagnosticEngine::note(d, s.valueLocOf("zero"), "zero is set here");
      return;
    }
    std::string ck = checkpoint.value_or("none");
    t.checkpoint = ck == "selective"       ? TrainSpec::Checkpoint::Selective
                   : ck == "attention_mlp" ? TrainSpec::Checkpoint::AttentionMlp
                   : ck == "full"          ? TrainSpec::Checkpoint::Full
                   : ck == "adaptive"      ? TrainSpec::Checkpoint::Adaptive
                                           : TrainSpec::Checkpoint::None;
    if (t.checkpoint == TrainSpec::Checkpoint::Adaptive &&
        t.pp != TrainSpec::Pp::Dynamic) {
      Diagnostic &d = s.errorWithNotes(
          s.valueLocOf("checkpoint"),
          "conflicting fields: checkpoint = adaptive is stage-aware and "
          "needs pp = dynamic");
      if (s.has("pp"))
        DiagnosticEngine::note(d, s.valueLocOf("pp"), "pp is set here");
      return;
    }
    const ModelSpec *m = findSpec(spec_.models, t.model);
    const FabricSpec *f = findSpec(spec_.fabrics, t.fabric);
    if (!m || !f || !findSpec(spec_.datasets, t.data))
      return; // the referenced declaration had errors of its own
    if (t.virtualStages > 1) {
      // Interleaving splits a fixed pipeline's stages into model chunks.
      if (t.pp != TrainSpec::Pp::Static || t.ppDegree < 2) {
        Diagnostic &d = s.errorWithNotes(
            s.valueLocOf("virtual_stages"),
            "virtual_stages = " + std::to_string(t.virtualStages) +
                " interleaves model chunks over pipeline stages and needs a "
                "fixed pp of at least 2");
        if (s.has("pp"))
          DiagnosticEngine::note(d, s.valueLocOf("pp"), "pp is set here");
        return;
      }
      if (t.virtualStages > m->shape.layers / t.ppDegree) {
        Diagnostic &d = s.errorWithNotes(
            s.valueLocOf("virtual_stages"),
            "virtual_stages = " + std::to_string(t.virtualStages) + " x pp " +
                std::to_string(t.ppDegree) +
                " virtual stages, but the model has " +
                std::to_string(m->shape.layers) + " layers");
        DiagnosticEngine::note(d, s.valueLocOf("pp"), "pp is set here");
        return;
      }
    }
    if (checkpointLayers) {
      // Megatron's block recompute of the first N layers, on a model that
      // is not pipelined (a stage's "first layers" would differ).
      const std::string n = std::to_string(*checkpointLayers);
      if (t.checkpoint == TrainSpec::Checkpoint::None ||
          t.checkpoint == TrainSpec::Checkpoint::Adaptive) {
        Diagnostic &d = s.errorWithNotes(
            s.valueLocOf("checkpoint_layers"),
            "checkpoint_layers = " + n +
                " limits checkpointing to the first layers, but checkpoint "
                "is " +
                (t.checkpoint == TrainSpec::Checkpoint::None
                     ? std::string("none")
                     : std::string("adaptive, which chooses per chunk")) +
                "; say checkpoint = selective, attention_mlp or full");
        if (s.has("checkpoint"))
          DiagnosticEngine::note(d, s.valueLocOf("checkpoint"),
                                 "checkpoint is set here");
        return;
      }
      if (t.pp != TrainSpec::Pp::Static || t.ppDegree != 1) {
        Diagnostic &d = s.errorWithNotes(
            s.valueLocOf("checkpoint_layers"),
            "checkpoint_layers = " + n +
                " counts the first layers of an unpipelined model, but "
                "the strategy pipelines it");
        DiagnosticEngine::note(d, s.valueLocOf("pp"), "pp is set here");
        return;
      }
      if (*checkpointLayers > m->shape.layers) {
        Diagnostic &d = s.errorWithNotes(
            s.valueLocOf("checkpoint_layers"),
            "checkpoint_layers = " + n + ", but model '" + clip(m->name) +
                "' has " + std::to_string(m->shape.layers) + " layers");
        DiagnosticEngine::note(d, m->loc, "model declared here");
        return;
      }
    }
    cost::TrainDegrees degrees;
    degrees.sp = t.sp == TrainSpec::Sp::Static ? t.spDegree : 0;
    degrees.pp = t.pp == TrainSpec::Pp::Static ? t.ppDegree : 0;
    degrees.tp = t.tp, degrees.cp = t.cp, degrees.zero = t.zero;
    degrees.memoryLimitBytes = t.memoryLimit;
    degrees.memoryReserveBytes = t.memoryReserve;
    if (!checkJobChips(r, jobChips, *f, *fab))
      return;
    t.chips = jobChips.value_or(0);
    auto problems = cost::checkTrainJob(m->shape, f->chip,
                                        jobChips.value_or(f->chips()), degrees);
    reportJobProblems(problems, r, s, decl, *model, *fab);
    if (!problems.empty())
      return;
    place(decl, Spec::Kind::Train, spec_.trains.size());
    spec_.trains.push_back(std::move(t));
  }

  /// `key = N` (a static degree) or `key = <mode>`.
  template <typename SetMode>
  bool readDegree(BlockReader &s, const std::string &key,
                  const std::vector<std::string> &modes, int64_t &degree,
                  SetMode setMode, const std::string &noun = "a degree") {
    const Field *f = s.get(key);
    if (!f)
      return true;
    const Value &v = *f->value;
    if (v.kind == Value::Kind::Named && !v.block) {
      if (std::find(modes.begin(), modes.end(), v.name) == modes.end()) {
        s.error(v.loc, "field '" + key + "' expects " + noun + " or one of " +
                           joinQuoted(modes) + ", got '" + v.name + "'" +
                           didYouMean(v.name, modes));
        return false;
      }
      setMode(v.name);
      degree = 0;
      return true;
    }
    auto value = s.integerValue(v, "field '" + key + "'", 1, 1 << 20);
    if (!value)
      return false;
    degree = *value;
    return true;
  }

  void reportJobProblems(const std::vector<cost::JobProblem> &problems,
                         BlockReader &r, BlockReader &s, const Declaration &job,
                         const Declaration &model, const Declaration &fab) {
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> blamed;
    for (const cost::JobProblem &p : problems) {
      // The strategy field the rule names, else the job's own reference
      // (`model = wide;` for a layer that does not fit, `fabric = f;` for
      // the chip count), else the job.
      std::string field = p.field == "chips" ? "fabric" : p.field;
      SourceLocation loc = s.has(field)   ? s.valueLocOf(field)
                           : r.has(field) ? r.valueLocOf(field)
                                          : job.nameLoc;
      // One error per value: `sp = 5` divides neither 32 heads nor 32 chips,
      // but the first reason is enough to make the user pick another sp.
      if (!blamed.insert({loc.fileId, loc.line, loc.col}).second)
        continue;
      Diagnostic &d = s.errorWithNotes(loc, p.message);
      // Notes only for the declarations the rule compared against.
      const std::string &m = p.message;
      auto mentions = [&](const char *word) {
        return m.find(word) != std::string::npos;
      };
      bool aboutModel = mentions("heads") || mentions("layer") ||
                        mentions("experts") || mentions("weights");
      bool aboutFabric = mentions("chip") || mentions("HBM");
      if (aboutModel || !aboutFabric)
        DiagnosticEngine::note(d, model.nameLoc,
                               "model '" + model.name + "' is declared here");
      if (aboutFabric || !aboutModel)
        DiagnosticEngine::note(d, fab.nameLoc,
                               "fabric '" + fab.name + "' is declared here");
    }
  }

  void analyzeServe(const Declaration &decl) {
    BlockReader r(decl.body, contextOf(decl), decl.nameLoc,
                  {"model", "workload", "fabric", "chips", "seed", "strategy"},
                  diags_);
    ServeSpec sv;
    sv.name = decl.name;
    sv.loc = decl.nameLoc;
    const Declaration *model = resolve(r, "model", "model");
    const Declaration *work = resolve(r, "workload", "workload");
    const Declaration *fab = resolve(r, "fabric", "fabric");
    auto seed = r.integer("seed", false, 0, INT64_MAX);
    auto jobChips = r.integer("chips", false, 1, kBig);
    const Field *strategyField = r.get("strategy");
    const Block *strategy =
        strategyBlock(r, strategyField, "strategy { pp = 2; ep = 8; }");
    if (!strategy)
      return;
    r.reportMissing();
    BlockReader s(*strategy, "strategy of serve '" + clip(decl.name) + "'",
                  strategyField ? strategyField->keyLoc : decl.nameLoc,
                  {"pp", "ep", "dp_attention", "dp_routing", "mtp",
                   "wave_interval", "memory_utilization"},
                  diags_);
    // pp and ep: a count, or `auto` (0) for the planner to choose.
    int64_t ppDegree = 1, epDegree = 1;
    if (!readDegree(
            s, "pp", {"auto"}, ppDegree, [](const std::string &) {},
            "a number of pipeline stages") ||
        !readDegree(
            s, "ep", {"auto"}, epDegree, [](const std::string &) {},
            "an expert-parallel degree"))
      return;
    auto dpAttention =
        s.keyword("dp_attention", false, {"true", "false", "auto"});
    auto dpRouting = s.keyword("dp_routing", false, {"pinned", "kv_aware"});
    auto mtp = s.integer("mtp", false, 0, 16);
    auto util =
        s.real("memory_utilization", false, Dimension::Count, 0.01, 1.0);
    int64_t wave = 0;
    if (!readDegree(
            s, "wave_interval", {"auto"}, wave, [](const std::string &) {},
            "a number of decode iterations"))
      return;
    if (r.failed() || s.failed() || !model || !work || !fab)
      return;
    sv.model = model->name, sv.workload = work->name, sv.fabric = fab->name;
    sv.seed = seed.value_or(0);
    sv.pp = ppDegree, sv.ep = epDegree;
    sv.dpAttention = dpAttention && *dpAttention == "true";
    sv.chooseAttention = dpAttention && *dpAttention == "auto";
    sv.kvAwareRouting = dpRouting && *dpRouting == "kv_aware";
    if (sv.kvAwareRouting && !sv.dpAttention && !sv.chooseAttention) {
      s.error(s.valueLocOf("dp_routing"),
              "dp_routing = " + *dpRouting +
                  " places turns on DP-attention ranks; it needs "
                  "dp_attention = true or auto");
      return;
    }
    sv.mtpDrafts = mtp.value_or(0);
    sv.waveInterval = wave;
    sv.memoryUtilization = util.value_or(0.8);
    const ModelSpec *m = findSpec(spec_.models, sv.model);
    const FabricSpec *f = findSpec(spec_.fabrics, sv.fabric);
    if (!m || !f || !findSpec(spec_.workloads, sv.workload))
      return;
    if (sv.mtpDrafts > 0 && m->shape.mtpLayers == 0) {
      Diagnostic &d = s.errorWithNotes(
          s.valueLocOf("mtp"), "mtp = " + std::to_string(sv.mtpDrafts) +
                                   " needs a model with mtp_layers > 0");
      DiagnosticEngine::note(d, model->nameLoc,
                             "model '" + model->name + "' is declared here");
      return;
    }
    cost::ServeDegrees degrees;
    degrees.pp = sv.pp, degrees.ep = sv.ep;
    degrees.memoryUtilization = sv.memoryUtilization;
    if (!checkJobChips(r, jobChips, *f, *fab))
      return;
    sv.chips = jobChips.value_or(0);
    auto problems = cost::checkServeJob(m->shape, f->chip,
                                        jobChips.value_or(f->chips()), degrees);
    reportJobProblems(problems, r, s, decl, *model, *fab);
    if (!problems.empty())
      return;
    place(decl, Spec::Kind::Serve, spec_.serves.size());
    spec_.serves.push_back(std::move(sv));
  }

  /// A job's `chips` must fit its fabric.
  bool checkJobChips(BlockReader &r, std::optional<int64_t> chips,
                     const FabricSpec &f, const Declaration &fab) {
    if (!chips || *chips <= f.chips())
      return true;
    Diagnostic &d = r.errorWithNotes(
        r.valueLocOf("chips"), "the job asks for " + std::to_string(*chips) +
                                   " chips, but fabric '" + f.name + "' has " +
                                   std::to_string(f.chips()));
    DiagnosticEngine::note(d, fab.nameLoc,
                           "fabric '" + f.name + "' is declared here");
    return false;
  }

  /// Jobs sharing a fabric get disjoint chips: together they must fit it.
  void checkFabricShares() {
    std::map<std::string, std::vector<std::pair<std::string, int64_t>>> users;
    std::map<std::string, SourceLocation> firstJob;
    auto add = [&](const std::string &fabricName, const std::string &job,
                   int64_t chips, SourceLocation loc) {
      users[fabricName].emplace_back(job, chips);
      firstJob.emplace(fabricName, loc);
    };
    for (const TrainSpec &t : spec_.trains)
      add(t.fabric, t.name, t.chips, t.loc);
    for (const ServeSpec &sv : spec_.serves)
      add(sv.fabric, sv.name, sv.chips, sv.loc);
    for (const auto &[fabricName, jobs] : users) {
      if (jobs.size() < 2)
        continue;
      const FabricSpec *f = findSpec(spec_.fabrics, fabricName);
      int64_t need = 0;
      std::string list;
      for (const auto &[job, chips] : jobs) {
        int64_t c = chips ? chips : f->chips();
        need += c;
        list += (list.empty() ? "" : ", ") + job + " " + std::to_string(c);
      }
      if (need <= f->chips())
        continue;
      Diagnostic &d = diags_.error(
          firstJob[fabricName],
          std::to_string(jobs.size()) + " jobs share fabric '" + fabricName +
              "' and need " + std::to_string(need) + " chips (" + list +
              "), but it has " + std::to_string(f->chips()) +
              "; give each job 'chips = N'");
      DiagnosticEngine::note(d, f->loc,
                             "fabric '" + fabricName + "' is declared here");
    }
  }

  void place(const Declaration &decl, Spec::Kind kind, size_t index) {
    placed_.emplace_back(&decl, std::make_pair(kind, index));
  }

  SourceManager &sources_;
  DiagnosticEngine &diags_;
  std::map<std::string, const Declaration *> names_;
  std::set<std::string> unknownKindNames_; // declared with a bad kind
  std::vector<std::pair<const Declaration *, std::pair<Spec::Kind, size_t>>>
      placed_;
  Spec spec_;
};

} // namespace

std::optional<Spec> plexus::frontend::analyzeProgram(const Program &program,
                                                     SourceManager &sources,
                                                     DiagnosticEngine &diags) {
  return Analyzer(sources, diags).run(program);
}

std::string
plexus::frontend::didYouMean(const std::string &word,
                             const std::vector<std::string> &candidates) {
  std::string best = closest(word, candidates);
  return best.empty() ? "" : "; did you mean '" + best + "'?";
}
