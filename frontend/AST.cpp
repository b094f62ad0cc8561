//===- AST.cpp - Syntax tree of a .plx file -------------------------------===//
#include "frontend/AST.h"

using namespace plexus::frontend;

std::string Value::describe() const {
  switch (kind) {
  case Kind::Quantity:
    return "'" + numberText + (unit.empty() ? "" : " " + unit) + "'";
  case Kind::String:
    return "the string \"" + text + "\"";
  case Kind::Named:
    return block ? "'" + name + " { ... }'" : "'" + name + "'";
  case Kind::Call:
    return "'" + name + "(...)'";
  case Kind::List:
    return "a list";
  }
  return "a value";
}

static void indent(std::ostream &os, int depth) {
  for (int i = 0; i < depth; ++i)
    os << "  ";
}

static void printLoc(std::ostream &os, const SourceManager &sources,
                     SourceLocation loc) {
  os << " <" << sources.name(loc.fileId) << ':' << loc.line << ':' << loc.col
     << '>';
}

static void printBlock(const Block &block, const SourceManager &sources,
                       std::ostream &os, int depth);

static void printValue(const Value &value, const SourceManager &sources,
                       std::ostream &os, int depth) {
  switch (value.kind) {
  case Value::Kind::Quantity:
    os << "Quantity " << value.numberText;
    if (!value.unit.empty())
      os << ' ' << value.unit;
    printLoc(os, sources, value.loc);
    os << '\n';
    return;
  case Value::Kind::String:
    os << "String \"" << value.text << '"';
    printLoc(os, sources, value.loc);
    os << '\n';
    return;
  case Value::Kind::Named:
    os << "Named " << value.name;
    printLoc(os, sources, value.loc);
    os << '\n';
    if (value.block)
      printBlock(*value.block, sources, os, depth + 1);
    return;
  case Value::Kind::Call:
    os << "Call " << value.name;
    printLoc(os, sources, value.loc);
    os << '\n';
    for (const Argument &arg : value.args) {
      indent(os, depth + 1);
      os << "Arg " << (arg.key.empty() ? "_" : arg.key) << " = ";
      printValue(*arg.value, sources, os, depth + 1);
    }
    return;
  case Value::Kind::List:
    os << "List";
    printLoc(os, sources, value.loc);
    os << '\n';
    for (const auto &element : value.elements) {
      indent(os, depth + 1);
      printValue(*element, sources, os, depth + 1);
    }
    return;
  }
}

static void printBlock(const Block &block, const SourceManager &sources,
                       std::ostream &os, int depth) {
  for (const Field &field : block.fields) {
    indent(os, depth);
    os << "Field " << field.key << " = ";
    printValue(*field.value, sources, os, depth);
  }
}

void plexus::frontend::printProgram(const Program &program,
                                    const SourceManager &sources,
                                    std::ostream &os) {
  for (const Declaration &decl : program.decls) {
    os << "Declaration " << decl.kind << ' ' << decl.name;
    printLoc(os, sources, decl.nameLoc);
    os << '\n';
    printBlock(decl.body, sources, os, 1);
  }
}
