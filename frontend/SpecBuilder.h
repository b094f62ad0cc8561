//===- SpecBuilder.h - Build .plx declarations from C++ ---------*- C++ -*-===//
//
// The embedding API: other C++ tools declare models, datasets, fabrics and
// jobs with the same vocabulary as the .plx language and get the same
// checks and the same spec IR. The builder renders its declarations as .plx
// text in a virtual buffer, so a diagnostic about a built spec shows the
// offending line and a caret just as for a file.
//
//   SpecBuilder b("examples");
//   b.declare("model", "tiny")
//       .set("layers", 4).set("hidden", 256).set("heads", 4)
//       .set("ffn", 1024).set("vocab", 1000);
//   b.declare("fabric", "cpu8")
//       .set("chip", PlxValue::name("CPU")).set("nodes", 2)
//       .set("chips_per_node", 4)
//       .set("topology", PlxValue::named("fat_tree", BlockBuilder()
//            .set("radix", 4).set("tiers", 2)
//            .set("link", PlxValue::quantity(100, "Gb/s"))));
//   Program program = b.build(sources);
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_SPECBUILDER_H
#define PLEXUS_FRONTEND_SPECBUILDER_H

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace plexus::frontend {

class BlockBuilder;
class SpecRenderer;

/// A field value: a number with an optional unit, a name (`adaptive`,
/// `H100`, a declaration to refer to), a string, `file("...")`, a call with
/// named arguments, a list, or a name with a block (`railx { ... }`).
class PlxValue {
public:
  PlxValue(int value) : PlxValue(static_cast<int64_t>(value)) {}
  PlxValue(int64_t value);
  PlxValue(double value);

  static PlxValue quantity(double number, std::string unit);
  static PlxValue quantity(int64_t number, std::string unit);
  static PlxValue name(std::string name);
  static PlxValue string(std::string text);
  static PlxValue file(std::string path);
  static PlxValue call(std::string function,
                       std::vector<std::pair<std::string, PlxValue>> args);
  static PlxValue list(std::vector<PlxValue> elements);
  static PlxValue named(std::string name, const BlockBuilder &block);

private:
  friend class SpecBuilder;
  friend class BlockBuilder;
  friend class SpecRenderer;
  PlxValue() = default;
  Value::Kind kind_ = Value::Kind::Quantity;
  std::string text_; // number text, name, string or function name
  std::string unit_;
  bool integral_ = true;
  std::vector<std::pair<std::string, std::shared_ptr<const PlxValue>>>
      children_; // call arguments, list elements (empty keys), block fields
  bool hasBlock_ = false;
};

/// The fields of one `{ ... }` block, in the order they are set.
class BlockBuilder {
public:
  BlockBuilder &set(std::string key, PlxValue value);
  /// `key { ... }`, as for `strategy { sp = adaptive; }`.
  BlockBuilder &block(std::string key, const BlockBuilder &body);

private:
  friend class SpecBuilder;
  friend class PlxValue;
  friend class SpecRenderer;
  std::vector<std::pair<std::string, std::shared_ptr<const PlxValue>>> fields_;
  std::vector<bool> isBlockSugar_;
};

class SpecBuilder {
public:
  /// Relative file paths in the built spec resolve against `baseDir`.
  explicit SpecBuilder(std::string baseDir = ".");

  /// Adds `kind name { ... }`; returns its block to fill. The reference
  /// stays valid until build().
  BlockBuilder &declare(std::string kind, std::string name);

  /// Renders the declarations into a virtual buffer registered in `sources`
  /// and returns the program whose nodes point into it.
  Program build(SourceManager &sources) const;

  /// The .plx text build() renders.
  std::string render() const;

private:
  std::string baseDir_;
  std::vector<
      std::tuple<std::string, std::string, std::unique_ptr<BlockBuilder>>>
      decls_;
};

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_SPECBUILDER_H
