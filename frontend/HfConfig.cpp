//===- HfConfig.cpp - Models from Hugging Face config.json files ----------===//
//
// The keys are transformers' own (`configuration_<family>.py`): the Llama,
// Mistral, Qwen2 and Qwen3 configs (dense), Mixtral, Qwen2-MoE, Qwen3-MoE,
// DeepSeek-V3 and GLM-4.5 (`glm4_moe`) configs (MoE). nlohmann::json parses
// and validates the file; it reports no positions for keys (3.11), so one
// pass over the valid text finds where each top-level key and value is.
//
//===----------------------------------------------------------------------===//
#include "frontend/HfConfig.h"

#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

using namespace plexus::frontend;
namespace fs = std::filesystem;

namespace {

/// Where a top-level key and its value are, in bytes.
struct KeySpan {
  size_t key = 0, keyLength = 0;
  size_t value = 0, valueLength = 0;
};

/// The positions of the top-level object's keys in valid JSON text (the last
/// of duplicate keys, as nlohmann keeps). Strings are skipped whole, so
/// brackets inside them do not count.
std::map<std::string, KeySpan> topLevelKeys(const std::string &text,
                                            size_t &objectStart) {
  std::map<std::string, KeySpan> out;
  objectStart = 0;
  int depth = 0;
  bool expectKey = false;
  std::string pendingKey;
  KeySpan pending;
  bool inValue = false; // a depth-1 value is being scanned
  auto endValue = [&](size_t end) {
    if (inValue) {
      pending.valueLength = std::max<size_t>(1, end - pending.value);
      out[pendingKey] = pending;
      inValue = false;
    }
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      size_t j = i + 1;
      while (j < text.size() && text[j] != '"')
        j += text[j] == '\\' ? 2 : 1;
      if (depth == 1 && expectKey) {
        pendingKey =
            nlohmann::json::parse(text.substr(i, j - i + 1)).get<std::string>();
        pending = KeySpan{i, j - i + 1, 0, 0};
        expectKey = false;
      } else if (depth == 1 && !inValue) {
        pending.value = i;
        inValue = true;
      }
      i = j;
      continue;
    }
    if (c == '{' || c == '[') {
      if (depth == 0 && c == '{')
        objectStart = i;
      if (depth == 1 && !inValue) {
        pending.value = i;
        inValue = true;
      }
      ++depth;
      if (depth == 1)
        expectKey = true;
      continue;
    }
    if (c == '}' || c == ']') {
      --depth;
      if (depth == 0)
        endValue(i);
      else if (depth == 1 && inValue)
        endValue(i + 1);
      continue;
    }
    if (depth == 1) {
      if (c == ',') {
        endValue(i);
        expectKey = true;
      } else if (c == ':' || std::isspace(static_cast<unsigned char>(c))) {
        if (inValue && std::isspace(static_cast<unsigned char>(c)))
          endValue(i);
      } else if (!inValue) {
        pending.value = i;
        inValue = true;
      }
    }
  }
  return out;
}

/// One family's keys: which model field each top-level key gives.
struct KeyRule {
  const char *hfKey;
  const char *field;
  bool required;
};

/// transformers' config keys, family by family (configuration_*.py).
const std::map<std::string, std::vector<KeyRule>> &familyRules() {
  static const std::vector<KeyRule> kDense = {
      {"num_hidden_layers", "layers", true},
      {"hidden_size", "hidden", true},
      {"num_attention_heads", "heads", true},
      {"num_key_value_heads", "kv_heads", false},
      {"head_dim", "head_dim", false},
      {"intermediate_size", "ffn", true},
      {"vocab_size", "vocab", true},
  };
  auto with = [](std::vector<KeyRule> base, std::vector<KeyRule> extra,
                 std::set<std::string> drop = {}) {
    std::vector<KeyRule> out;
    for (const KeyRule &r : base)
      if (!drop.count(r.hfKey))
        out.push_back(r);
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
  };
  static const std::map<std::string, std::vector<KeyRule>> kRules = {
      {"llama", kDense},
      {"mistral", kDense},
      {"qwen2", kDense},
      {"qwen3", kDense},
      // Every layer's MLP is the experts'; intermediate_size is one
      // expert's width.
      {"mixtral", with(kDense,
                       {{"num_local_experts", "experts", true},
                        {"num_experts_per_tok", "top_k", true},
                        {"intermediate_size", "moe_ffn", true}},
                       {"intermediate_size"})},
      // intermediate_size is the width of `mlp_only_layers`, which must be
      // empty (checked below).
      {"qwen2_moe", with(kDense,
                         {{"num_experts", "experts", true},
                          {"num_experts_per_tok", "top_k", true},
                          {"moe_intermediate_size", "moe_ffn", true}},
                         {"intermediate_size"})},
      {"qwen3_moe", with(kDense,
                         {{"num_experts", "experts", true},
                          {"num_experts_per_tok", "top_k", true},
                          {"moe_intermediate_size", "moe_ffn", true}},
                         {"intermediate_size"})},
      // The first first_k_dense_replace layers are dense, intermediate_size
      // wide; head_dim and num_key_value_heads come from the MLA keys.
      {"deepseek_v3", with(kDense,
                           {{"n_routed_experts", "experts", true},
                            {"num_experts_per_tok", "top_k", true},
                            {"moe_intermediate_size", "moe_ffn", true},
                            {"n_shared_experts", "shared_experts", false},
                            {"first_k_dense_replace", "dense_layers", false},
                            {"num_nextn_predict_layers", "mtp_layers", false}},
                           {"num_key_value_heads", "head_dim"})},
      {"glm4_moe",
       with(kDense, {{"n_routed_experts", "experts", true},
                     {"num_experts_per_tok", "top_k", true},
                     {"moe_intermediate_size", "moe_ffn", true},
                     {"n_shared_experts", "shared_experts", false},
                     {"first_k_dense_replace", "dense_layers", false},
                     {"num_nextn_predict_layers", "mtp_layers", false}})},
  };
  return kRules;
}

class Expander {
public:
  Expander(Declaration &decl, Field &hf, SourceManager &sources,
           DiagnosticEngine &diags)
      : decl_(decl), hf_(hf), sources_(sources), diags_(diags) {}

  void run() {
    const Value &v = *hf_.value;
    if (v.kind != Value::Kind::String) {
      diags_.error(v.loc, "field 'hf' expects the path of a Hugging Face "
                          "config.json as a string (hf = \"config.json\"), "
                          "got " +
                              v.describe());
      return;
    }
    if (v.text.empty()) {
      diags_.error(v.loc, "empty file path");
      return;
    }
    fs::path path(v.text);
    if (path.is_relative())
      path = fs::path(sources_.name(v.loc.fileId)).parent_path() / path;
    const std::string name = path.lexically_normal().string();
    std::string text, reason;
    if (!readFile(name, text, reason)) {
      diags_.error(v.loc, "cannot read '" + name + "': " + reason);
      return;
    }
    fileId_ = sources_.addBuffer(name, std::move(text));
    sources_.setOrigin(fileId_, v.loc,
                       "the Hugging Face config of model '" + decl_.name +
                           "' is named here");
    const std::string &json = sources_.text(fileId_);
    try {
      config_ = nlohmann::json::parse(json);
    } catch (const nlohmann::json::parse_error &e) {
      std::string message = e.what();
      size_t colon = message.find(": ");
      if (message.find("column") != std::string::npos &&
          colon != std::string::npos)
        message = message.substr(colon + 2);
      else if (message.rfind("[json.exception", 0) == 0)
        message = message.substr(message.find(' ') + 1);
      error(e.byte == 0 ? 0 : e.byte - 1, 1, "invalid JSON: " + message);
      return;
    }
    if (!config_.is_object()) {
      error(firstNonSpace(json), 1,
            "a Hugging Face config.json is one JSON object, got " +
                std::string(config_.type_name()));
      return;
    }
    keys_ = topLevelKeys(json, objectStart_);
    for (const Field &f : decl_.body.fields)
      written_.insert(f.key);

    auto modelType = config_.find("model_type");
    if (modelType == config_.end() || !modelType->is_string()) {
      error(objectStart_, 1,
            modelType == config_.end()
                ? "the config has no 'model_type'; plxc reads a Hugging Face "
                  "config.json of the families " +
                      families()
                : "'model_type' must be a string, got " +
                      std::string(modelType->type_name()),
            modelType == config_.end() ? nullptr : "model_type");
      return;
    }
    family_ = modelType->get<std::string>();
    auto rules = familyRules().find(family_);
    if (rules == familyRules().end()) {
      // A multimodal config nests its language model under text_config.
      const nlohmann::json *text = get("text_config");
      error(keys_["model_type"].value, keys_["model_type"].valueLength,
            "unknown Hugging Face architecture '" + family_ + "' (plxc reads " +
                families() + ")" +
                (text && text->is_object()
                     ? "; its language model is under 'text_config', which "
                       "plxc does not read: name that model's own "
                       "config.json"
                     : didYouMean(family_, hfModelTypes())));
      return;
    }
    unsigned before = diags_.errorCount();
    for (const KeyRule &rule : rules->second)
      take(rule);
    familySpecific();
    tiedEmbeddings();
    dtype();
    if (diags_.errorCount() != before)
      return;
    // The families read are all gated-SiLU MLPs.
    if (!written_.count("mlp"))
      addNamed("mlp", "swiglu", valueLoc("model_type"));
    // Synthesized fields first, so the block's own fields follow them in
    // `--emit=ast` as they would be read.
    std::move(decl_.body.fields.begin(), decl_.body.fields.end(),
              std::back_inserter(added_));
    decl_.body.fields = std::move(added_);
  }

private:
  static std::string families() {
    std::string out;
    const auto &types = hfModelTypes();
    for (size_t i = 0; i < types.size(); ++i)
      out += (i == 0                  ? ""
              : i + 1 == types.size() ? " and "
                                      : ", ") +
             ("'" + types[i] + "'");
    return out;
  }

  static size_t firstNonSpace(const std::string &text) {
    size_t i = text.find_first_not_of(" \t\r\n");
    return i == std::string::npos ? 0 : i;
  }

  SourceLocation valueLoc(const std::string &key) {
    auto it = keys_.find(key);
    if (it == keys_.end())
      return sources_.locationAt(fileId_, objectStart_);
    return sources_.locationAt(
        fileId_, it->second.value,
        static_cast<uint32_t>(std::min<size_t>(it->second.valueLength, 200)));
  }
  SourceLocation keyLoc(const std::string &key) {
    auto it = keys_.find(key);
    if (it == keys_.end())
      return sources_.locationAt(fileId_, objectStart_);
    return sources_.locationAt(fileId_, it->second.key,
                               static_cast<uint32_t>(it->second.keyLength));
  }

  void error(size_t offset, size_t length, const std::string &message,
             const char *atValueOf = nullptr) {
    SourceLocation loc =
        atValueOf ? valueLoc(atValueOf)
                  : sources_.locationAt(fileId_, offset,
                                        static_cast<uint32_t>(length));
    diags_.error(loc, message);
  }
  void errorAt(const std::string &key, const std::string &message) {
    diags_.error(valueLoc(key), message);
  }

  /// The config's value of `key`, absent or null as nullopt.
  const nlohmann::json *get(const std::string &key) const {
    auto it = config_.find(key);
    if (it == config_.end() || it->is_null())
      return nullptr;
    return &*it;
  }

  /// A whole number >= 0 at `key`, or an error there.
  std::optional<int64_t> integer(const std::string &key) {
    const nlohmann::json *j = get(key);
    if (!j)
      return std::nullopt;
    // Beyond 64 bits: too large, not "not whole" (the language's range
    // checks report the rest at the value).
    const bool whole = j->is_number_integer() ||
                       (j->is_number_float() &&
                        std::floor(j->get<double>()) == j->get<double>());
    if ((j->is_number_unsigned() && j->get<uint64_t>() > uint64_t(INT64_MAX)) ||
        (j->is_number_float() && whole &&
         std::fabs(j->get<double>()) >= 9e18)) {
      errorAt(key, "'" + key + "' is too large, got " + j->dump());
      return std::nullopt;
    }
    if (whole) {
      if (j->is_number_integer())
        return j->get<int64_t>();
      return static_cast<int64_t>(j->get<double>());
    }
    errorAt(key,
            "'" + key + "' must be a whole number, got " +
                (j->is_number() ? j->dump() : std::string(j->type_name())));
    return std::nullopt;
  }

  void addQuantity(const std::string &field, int64_t n, SourceLocation loc,
                   SourceLocation fieldLoc) {
    Field f;
    f.key = field;
    f.keyLoc = fieldLoc;
    f.value = std::make_unique<Value>();
    f.value->kind = Value::Kind::Quantity;
    f.value->loc = loc;
    f.value->numberText = std::to_string(n);
    f.value->integral = true;
    f.value->number = static_cast<double>(n);
    added_.push_back(std::move(f));
  }
  void addNamed(const std::string &field, const std::string &word,
                SourceLocation loc) {
    Field f;
    f.key = field;
    f.keyLoc = loc;
    f.value = std::make_unique<Value>();
    f.value->kind = Value::Kind::Named;
    f.value->loc = loc;
    f.value->name = word;
    added_.push_back(std::move(f));
  }

  void take(const KeyRule &rule) {
    if (written_.count(rule.field))
      return; // the block's own value wins
    if (!get(rule.hfKey)) {
      if (rule.required)
        missing(rule.hfKey, rule.field);
      return;
    }
    if (std::optional<int64_t> n = integer(rule.hfKey))
      addQuantity(rule.field, *n, valueLoc(rule.hfKey), keyLoc(rule.hfKey));
  }

  void missing(const std::string &hfKey, const std::string &field) {
    diags_.error(sources_.locationAt(fileId_, objectStart_),
                 "the '" + family_ + "' config has no '" + hfKey +
                     "', which gives the model's '" + field +
                     "'; add it to the config, or write '" + field +
                     " = ...;' in model '" + decl_.name + "'");
  }

  void familySpecific() {
    if (family_ == "qwen2_moe" || family_ == "qwen3_moe") {
      // Every layer sparse: decoder_sparse_step 1 and no mlp_only_layers.
      if (std::optional<int64_t> step = integer("decoder_sparse_step"))
        if (*step != 1)
          errorAt("decoder_sparse_step",
                  "'decoder_sparse_step' = " + std::to_string(*step) +
                      " interleaves dense layers among the MoE layers; a "
                      "plx model's dense layers are its first "
                      "dense_layers (only 1 is read)");
      if (const nlohmann::json *only = get("mlp_only_layers"))
        if (!only->is_array() || !only->empty())
          errorAt("mlp_only_layers",
                  "'mlp_only_layers' must be empty: a plx model's dense "
                  "layers are its first dense_layers");
    }
    if (family_ == "qwen2_moe" && !written_.count("shared_experts")) {
      // One shared expert, shared_expert_intermediate_size wide: so many
      // routed experts' widths.
      std::optional<int64_t> shared =
          integer("shared_expert_intermediate_size");
      std::optional<int64_t> width = integer("moe_intermediate_size");
      if (shared && width && *width > 0 && *shared > 0) {
        if (*shared % *width != 0)
          errorAt("shared_expert_intermediate_size",
                  "'shared_expert_intermediate_size' (" +
                      std::to_string(*shared) +
                      ") is not a multiple of 'moe_intermediate_size' (" +
                      std::to_string(*width) +
                      "); a plx model's shared experts are routed-expert "
                      "wide: write shared_experts in the model");
        else
          addQuantity("shared_experts", *shared / *width,
                      valueLoc("shared_expert_intermediate_size"),
                      keyLoc("shared_expert_intermediate_size"));
      }
    }
    if (family_ == "deepseek_v3") {
      if (std::optional<int64_t> freq = integer("moe_layer_freq"))
        if (*freq != 1)
          errorAt("moe_layer_freq",
                  "'moe_layer_freq' = " + std::to_string(*freq) +
                      " interleaves dense layers; only 1 is read");
      // Multi-head latent attention as grouped-query attention: query heads
      // of v_head_dim, and as many KV heads as the latent cache holds
      // (kv_lora_rank + qk_rope_head_dim values a token and layer).
      std::optional<int64_t> rank = integer("kv_lora_rank");
      std::optional<int64_t> rope = integer("qk_rope_head_dim");
      std::optional<int64_t> v = integer("v_head_dim");
      // Needed only for what the block does not write: v_head_dim for
      // head_dim, all three for kv_heads.
      const bool needKv = !written_.count("kv_heads");
      const bool needHead = !written_.count("head_dim");
      for (const char *key : {"kv_lora_rank", "qk_rope_head_dim", "v_head_dim"})
        if (!get(key) &&
            (needKv || (needHead && std::string(key) == "v_head_dim")))
          missing(key, std::string(key) == "v_head_dim" && needHead
                           ? "head_dim"
                           : "kv_heads");
      if (rank && rope && v && *v > 0) {
        const int64_t cache = *rank + *rope;
        const int64_t kv = std::max<int64_t>(
            1, static_cast<int64_t>(std::llround(double(cache) / (2.0 * *v))));
        if (!written_.count("head_dim"))
          addQuantity("head_dim", *v, valueLoc("v_head_dim"),
                      keyLoc("v_head_dim"));
        if (!written_.count("kv_heads")) {
          addQuantity("kv_heads", kv, valueLoc("kv_lora_rank"),
                      keyLoc("kv_lora_rank"));
          diags_.warning(
              valueLoc("model_type"),
              "DeepSeek-V3's multi-head latent attention is planned as "
              "grouped-query attention: query heads of v_head_dim = " +
                  std::to_string(*v) + " and " + std::to_string(kv) +
                  " KV heads (a KV cache of " + std::to_string(2 * kv * *v) +
                  " values a token and layer, against the latent's " +
                  std::to_string(cache) +
                  "); write kv_heads and head_dim in the model to choose "
                  "otherwise");
        }
      }
    }
  }

  void tiedEmbeddings() {
    if (written_.count("tied_embeddings"))
      return;
    const nlohmann::json *j = get("tie_word_embeddings");
    if (!j)
      return; // the families' default: untied
    if (!j->is_boolean()) {
      errorAt("tie_word_embeddings",
              "'tie_word_embeddings' must be true or false, got " + j->dump());
      return;
    }
    addNamed("tied_embeddings", j->get<bool>() ? "true" : "false",
             valueLoc("tie_word_embeddings"));
  }

  void dtype() {
    if (written_.count("dtype"))
      return;
    // Block-quantized FP8 checkpoints (DeepSeek-V3) compute in FP8.
    if (const nlohmann::json *q = get("quantization_config"))
      if (q->is_object() && q->value("quant_method", "") == "fp8") {
        addNamed("dtype", "fp8", valueLoc("quantization_config"));
        return;
      }
    // transformers writes torch_dtype (and, from 4.56, dtype).
    const char *key = get("dtype") ? "dtype" : "torch_dtype";
    const nlohmann::json *j = get(key);
    if (!j)
      return; // the language's default, bf16
    static const std::map<std::string, std::string> kTypes = {
        {"bfloat16", "bf16"},  {"float16", "fp16"}, {"half", "fp16"},
        {"float32", "fp32"},   {"float", "fp32"},   {"float8_e4m3fn", "fp8"},
        {"float8_e5m2", "fp8"}};
    auto it =
        j->is_string() ? kTypes.find(j->get<std::string>()) : kTypes.end();
    if (it == kTypes.end()) {
      errorAt(key, "'" + std::string(key) +
                       "' must be one of 'bfloat16', 'float16', 'half', "
                       "'float32', 'float', 'float8_e4m3fn' or 'float8_e5m2', "
                       "got " +
                       j->dump());
      return;
    }
    addNamed("dtype", it->second, valueLoc(key));
  }

  Declaration &decl_;
  Field &hf_;
  SourceManager &sources_;
  DiagnosticEngine &diags_;
  uint32_t fileId_ = 0;
  nlohmann::json config_;
  std::map<std::string, KeySpan> keys_;
  size_t objectStart_ = 0;
  std::set<std::string> written_;
  std::string family_;
  std::vector<Field> added_;
};

} // namespace

const std::vector<std::string> &plexus::frontend::hfModelTypes() {
  static const std::vector<std::string> kTypes = {
      "llama",     "mistral",   "qwen2",       "qwen3",   "mixtral",
      "qwen2_moe", "qwen3_moe", "deepseek_v3", "glm4_moe"};
  return kTypes;
}

void plexus::frontend::expandHfConfigs(Program &program, SourceManager &sources,
                                       DiagnosticEngine &diags) {
  for (Declaration &decl : program.decls) {
    if (decl.kind != "model")
      continue;
    Field *hf = nullptr;
    for (Field &f : decl.body.fields)
      if (f.key == "hf")
        hf = &f;
    if (hf)
      Expander(decl, *hf, sources, diags).run();
  }
}
