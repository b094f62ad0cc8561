//===- AST.h - Syntax tree of a .plx file -----------------------*- C++ -*-===//
//
// The parser's output: imports and declarations `kind name { key = value; }`
// with a location on every node. Values are untyped here; the semantic pass
// (Sema.h) decides what each field may hold.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_FRONTEND_AST_H
#define PLEXUS_FRONTEND_AST_H

#include "frontend/Diagnostics.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace plexus::frontend {

struct Value;

/// `key = value;` or `key { ... }` (then the value is a Named value whose
/// name is the key).
struct Field {
  std::string key;
  SourceLocation keyLoc;
  std::unique_ptr<Value> value;
};

struct Block {
  SourceLocation loc; // the opening brace
  std::vector<Field> fields;
};

/// An argument of a call value: `mu = 6.5` or a positional `"file.txt"`.
struct Argument {
  std::string key; // empty when positional
  SourceLocation keyLoc;
  std::unique_ptr<Value> value;
};

struct Value {
  enum class Kind { Quantity, String, Named, Call, List };
  Kind kind = Kind::Quantity;
  SourceLocation loc; // the whole value's first token

  // Quantity: the number as written (underscores removed), whether it was
  // written without '.' or exponent, its value, and the unit spelling.
  std::string numberText;
  bool integral = true;
  double number = 0;
  std::string unit;
  SourceLocation unitLoc;

  // String: the unescaped text.
  std::string text;

  // Named (`railx { ... }`, `adaptive`, `H100`) and Call (`file("x")`).
  std::string name;
  std::unique_ptr<Block> block; // Named only, may be null
  std::vector<Argument> args;   // Call only

  // List: `[1, 2, 3]`.
  std::vector<std::unique_ptr<Value>> elements;

  /// A short description for diagnostics: "the number 32", "'H100'" ...
  std::string describe() const;
};

struct Import {
  std::string path; // as written
  SourceLocation loc;
};

struct Declaration {
  std::string kind;
  SourceLocation kindLoc;
  std::string name;
  SourceLocation nameLoc;
  Block body;
};

/// One parsed file.
struct SourceFile {
  uint32_t fileId = 0;
  std::vector<Import> imports;
  std::vector<Declaration> decls;
};

/// Every declaration of a spec and its imports, imported files first, each
/// file once.
struct Program {
  std::vector<Declaration> decls;
};

/// Prints the tree, one node a line, for `plxc --emit=ast`.
void printProgram(const Program &program, const SourceManager &sources,
                  std::ostream &os);

} // namespace plexus::frontend

#endif // PLEXUS_FRONTEND_AST_H
