//===- SpecBuilder.cpp - Build .plx declarations from C++ -----------------===//
#include "frontend/SpecBuilder.h"

#include <cstdio>
#include <filesystem>

using namespace plexus::frontend;

static std::string numberText(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  std::string text = buffer;
  if (text.find_first_of(".eE") == std::string::npos)
    text += ".0"; // keep it a real number in the rendered text
  return text;
}

PlxValue::PlxValue(int64_t value) { text_ = std::to_string(value); }

PlxValue::PlxValue(double value) {
  text_ = numberText(value);
  integral_ = false;
}

PlxValue PlxValue::quantity(double number, std::string unit) {
  PlxValue v(number);
  v.unit_ = std::move(unit);
  return v;
}

PlxValue PlxValue::quantity(int64_t number, std::string unit) {
  PlxValue v(number);
  v.unit_ = std::move(unit);
  return v;
}

PlxValue PlxValue::name(std::string name) {
  PlxValue v;
  v.kind_ = Value::Kind::Named;
  v.text_ = std::move(name);
  return v;
}

PlxValue PlxValue::string(std::string text) {
  PlxValue v;
  v.kind_ = Value::Kind::String;
  v.text_ = std::move(text);
  return v;
}

PlxValue PlxValue::file(std::string path) {
  return call("file", {{"", string(std::move(path))}});
}

PlxValue PlxValue::call(std::string function,
                        std::vector<std::pair<std::string, PlxValue>> args) {
  PlxValue v;
  v.kind_ = Value::Kind::Call;
  v.text_ = std::move(function);
  for (auto &[key, value] : args)
    v.children_.emplace_back(key, std::make_shared<PlxValue>(std::move(value)));
  return v;
}

PlxValue PlxValue::list(std::vector<PlxValue> elements) {
  PlxValue v;
  v.kind_ = Value::Kind::List;
  for (auto &element : elements)
    v.children_.emplace_back("",
                             std::make_shared<PlxValue>(std::move(element)));
  return v;
}

PlxValue PlxValue::named(std::string name, const BlockBuilder &block) {
  PlxValue v;
  v.kind_ = Value::Kind::Named;
  v.text_ = std::move(name);
  v.hasBlock_ = true;
  v.children_ = block.fields_;
  return v;
}

BlockBuilder &BlockBuilder::set(std::string key, PlxValue value) {
  fields_.emplace_back(std::move(key),
                       std::make_shared<PlxValue>(std::move(value)));
  isBlockSugar_.push_back(false);
  return *this;
}

BlockBuilder &BlockBuilder::block(std::string key, const BlockBuilder &body) {
  fields_.emplace_back(key,
                       std::make_shared<PlxValue>(PlxValue::named(key, body)));
  isBlockSugar_.push_back(true);
  return *this;
}

SpecBuilder::SpecBuilder(std::string baseDir) : baseDir_(std::move(baseDir)) {}

BlockBuilder &SpecBuilder::declare(std::string kind, std::string name) {
  decls_.emplace_back(std::move(kind), std::move(name),
                      std::make_unique<BlockBuilder>());
  return *std::get<2>(decls_.back());
}

namespace plexus::frontend {

/// Renders builder nodes as .plx text and, in the same walk, builds AST
/// nodes whose locations point at the rendered text.
class SpecRenderer {
public:
  explicit SpecRenderer(uint32_t fileId) : fileId_(fileId) {}

  std::string text;

  Declaration declaration(const std::string &kind, const std::string &name,
                          const BlockBuilder &body) {
    Declaration decl;
    decl.kindLoc = here(kind.size());
    decl.kind = kind;
    emit(kind + " ");
    decl.nameLoc = here(name.size());
    decl.name = name;
    emit(name + " ");
    decl.body = block(body.fields_, &body.isBlockSugar_, 0);
    emit("\n\n");
    return decl;
  }

private:
  using Fields =
      std::vector<std::pair<std::string, std::shared_ptr<const PlxValue>>>;

  SourceLocation here(size_t length) const {
    return {fileId_, line_, col_,
            static_cast<uint32_t>(std::max<size_t>(1, length))};
  }

  void emit(const std::string &s) {
    for (char c : s) {
      text += c;
      if (c == '\n') {
        ++line_;
        col_ = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++col_;
      }
    }
  }

  void indent(int depth) { emit(std::string(2 * depth, ' ')); }

  Block block(const Fields &fields, const std::vector<bool> *sugar, int depth) {
    Block b;
    b.loc = here(1);
    emit("{\n");
    for (size_t i = 0; i < fields.size(); ++i) {
      const auto &[key, value] = fields[i];
      indent(depth + 1);
      Field f;
      f.keyLoc = here(key.size());
      f.key = key;
      emit(key);
      if (sugar && (*sugar)[i]) {
        emit(" ");
        f.value = std::make_unique<Value>();
        f.value->kind = Value::Kind::Named;
        f.value->loc = f.keyLoc;
        f.value->name = key;
        f.value->block = std::make_unique<Block>(
            block(value->children_, nullptr, depth + 1));
        emit("\n");
      } else {
        emit(" = ");
        f.value = this->value(*value, depth + 1);
        emit(";\n");
      }
      b.fields.push_back(std::move(f));
    }
    indent(depth);
    emit("}");
    return b;
  }

  std::unique_ptr<Value> value(const PlxValue &v, int depth) {
    auto out = std::make_unique<Value>();
    out->kind = v.kind_;
    switch (v.kind_) {
    case Value::Kind::Quantity:
      out->loc = here(v.text_.size());
      out->numberText = v.text_;
      out->integral = v.integral_;
      out->number = std::strtod(v.text_.c_str(), nullptr);
      emit(v.text_);
      if (!v.unit_.empty()) {
        emit(" ");
        out->unit = v.unit_;
        out->unitLoc = here(v.unit_.size());
        emit(v.unit_);
      }
      break;
    case Value::Kind::String:
      out->loc = here(v.text_.size() + 2);
      out->text = v.text_;
      emit("\"" + escape(v.text_) + "\"");
      break;
    case Value::Kind::Named:
      out->loc = here(v.text_.size());
      out->name = v.text_;
      emit(v.text_);
      if (v.hasBlock_) {
        emit(" ");
        out->block =
            std::make_unique<Block>(block(v.children_, nullptr, depth));
      }
      break;
    case Value::Kind::Call:
      out->loc = here(v.text_.size());
      out->name = v.text_;
      emit(v.text_ + "(");
      for (size_t i = 0; i < v.children_.size(); ++i) {
        if (i)
          emit(", ");
        Argument arg;
        if (!v.children_[i].first.empty()) {
          arg.keyLoc = here(v.children_[i].first.size());
          arg.key = v.children_[i].first;
          emit(arg.key + " = ");
        }
        arg.value = value(*v.children_[i].second, depth);
        out->args.push_back(std::move(arg));
      }
      emit(")");
      break;
    case Value::Kind::List:
      out->loc = here(1);
      emit("[");
      for (size_t i = 0; i < v.children_.size(); ++i) {
        if (i)
          emit(", ");
        out->elements.push_back(value(*v.children_[i].second, depth));
      }
      emit("]");
      break;
    }
    return out;
  }

  static std::string escape(const std::string &s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    return out;
  }

  uint32_t fileId_;
  uint32_t line_ = 1, col_ = 1;
};

} // namespace plexus::frontend

Program SpecBuilder::build(SourceManager &sources) const {
  // Render once to learn the text, then register the buffer and render again
  // with its id so that every location names it.
  std::string bufferName = (std::filesystem::path(baseDir_) / "<builder>")
                               .lexically_normal()
                               .string();
  uint32_t fileId = sources.addBuffer(bufferName, render());
  SpecRenderer renderer(fileId);
  Program program;
  for (const auto &[kind, name, body] : decls_)
    program.decls.push_back(renderer.declaration(kind, name, *body));
  return program;
}

std::string SpecBuilder::render() const {
  SpecRenderer renderer(0);
  for (const auto &[kind, name, body] : decls_)
    renderer.declaration(kind, name, *body);
  return renderer.text;
}
