//===- ImportTest.cpp - --set overrides and Hugging Face configs ----------===//
#include "frontend/HfConfig.h"
#include "frontend/Overrides.h"
#include "frontend/Parser.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace plexus::frontend;
namespace fs = std::filesystem;

namespace {

const Field *field(const Block &block, const std::string &key) {
  for (const Field &f : block.fields)
    if (f.key == key)
      return &f;
  return nullptr;
}

std::string printed(const DiagnosticEngine &diags) {
  std::ostringstream os;
  diags.print(os);
  return os.str();
}

} // namespace

TEST(Overrides, ReplaceAddAndDescendIntoBlocks) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  auto program = loadProgramFromText(
      "s.plx",
      "train t { batch = 8; }\nfabric f { topology = fat_tree { "
      "radix = 4; }; }\n",
      sources, diags,
      LoadOptions{{"t.batch=16", "t.strategy.sp=adaptive",
                   "f.topology.link=100 Gb/s", "t.batch=32"}});
  ASSERT_TRUE(program) << printed(diags);
  const Block &train = program->decls[0].body;
  // Replaced in place (the later flag wins), its value located in the flag.
  const Field *batch = field(train, "batch");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->value->numberText, "32");
  EXPECT_EQ(sources.name(batch->value->loc.fileId), kCommandLineBuffer);
  EXPECT_EQ(batch->value->loc.col, 15u); // "--set t.batch=" is 14 columns
  // A strategy block created for the job that wrote none.
  const Field *strategy = field(train, "strategy");
  ASSERT_NE(strategy, nullptr);
  ASSERT_TRUE(strategy->value->block);
  const Field *sp = field(*strategy->value->block, "sp");
  ASSERT_NE(sp, nullptr);
  EXPECT_EQ(sp->value->name, "adaptive");
  // Into a named block value, keeping its other fields.
  const Block &topology =
      *field(program->decls[1].body, "topology")->value->block;
  EXPECT_NE(field(topology, "radix"), nullptr);
  const Field *link = field(topology, "link");
  ASSERT_NE(link, nullptr);
  EXPECT_EQ(link->value->unit, "Gb/s");
  EXPECT_EQ(link->value->number, 100);
}

TEST(Overrides, MalformedFlagsAreErrorsAtTheFlag) {
  for (const char *flag : {"t.batch", "t=1", "t..x=1", "t.9=1", "u.batch=1",
                           "t.batch=", "t.batch=[1,", "t.batch.x=1"}) {
    SourceManager sources;
    DiagnosticEngine diags(sources);
    auto program = loadProgramFromText("s.plx", "train t { batch = 8; }\n",
                                       sources, diags, LoadOptions{{flag}});
    EXPECT_FALSE(program) << flag;
    std::string out = printed(diags);
    EXPECT_EQ(out.rfind("<command line>:1:", 0), 0u) << flag << "\n" << out;
    EXPECT_NE(out.find(std::string("--set ") + flag), std::string::npos) << out;
  }
}

class HfConfigTest : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("plexus-hf-" +
         std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::optional<Program> load(const std::string &json,
                              const std::string &block) {
    std::ofstream(dir_ / "config.json") << json;
    diags_ = std::make_unique<DiagnosticEngine>(sources_);
    return loadProgramFromText(
        (dir_ / "s.plx").string(),
        "model m { hf = \"config.json\"; " + block + " }\n", sources_, *diags_);
  }

  fs::path dir_;
  SourceManager sources_;
  std::unique_ptr<DiagnosticEngine> diags_;
};

TEST_F(HfConfigTest, LlamaKeysBecomeFieldsAtTheirJsonValues) {
  auto program =
      load("{\n \"model_type\": \"llama\",\n \"num_hidden_layers\": 2,\n"
           " \"hidden_size\": 64, \"num_attention_heads\": 4,\n"
           " \"intermediate_size\": 128, \"vocab_size\": 100,\n"
           " \"tie_word_embeddings\": true,"
           " \"torch_dtype\": \"float32\"}\n",
           "");
  ASSERT_TRUE(program) << printed(*diags_);
  const Block &b = program->decls[0].body;
  const Field *layers = field(b, "layers");
  ASSERT_NE(layers, nullptr);
  EXPECT_EQ(layers->value->numberText, "2");
  EXPECT_EQ(layers->value->loc.line, 3u);
  EXPECT_EQ(layers->value->loc.col, 23u);
  EXPECT_EQ(field(b, "hidden")->value->loc.col, 17u);
  EXPECT_EQ(field(b, "tied_embeddings")->value->name, "true");
  EXPECT_EQ(field(b, "dtype")->value->name, "fp32");
  EXPECT_EQ(field(b, "mlp")->value->name, "swiglu");
  EXPECT_EQ(field(b, "kv_heads"), nullptr); // optional, absent
}

TEST_F(HfConfigTest, TheBlockWinsAndNeedsNoKeyItWrites) {
  // No hidden_size in the config: the block's hidden serves.
  auto program = load("{\"model_type\": \"qwen2\", \"num_hidden_layers\": 2,"
                      " \"num_attention_heads\": 4, \"intermediate_size\": 8,"
                      " \"vocab_size\": 10}",
                      "hidden = 64; layers = 3;");
  ASSERT_TRUE(program) << printed(*diags_);
  const Block &b = program->decls[0].body;
  size_t layers = 0;
  for (const Field &f : b.fields)
    layers += f.key == "layers";
  EXPECT_EQ(layers, 1u);
  EXPECT_EQ(field(b, "layers")->value->numberText, "3");
}

TEST_F(HfConfigTest, QwenMoeSharedExpertAndDeepSeekAttention) {
  auto qwen = load("{\"model_type\": \"qwen2_moe\", \"num_hidden_layers\": 2,"
                   " \"hidden_size\": 64, \"num_attention_heads\": 4,"
                   " \"vocab_size\": 10, \"num_experts\": 8,"
                   " \"num_experts_per_tok\": 2, \"moe_intermediate_size\": 16,"
                   " \"shared_expert_intermediate_size\": 48}",
                   "");
  ASSERT_TRUE(qwen) << printed(*diags_);
  EXPECT_EQ(field(qwen->decls[0].body, "shared_experts")->value->numberText,
            "3"); // 48 / 16
  EXPECT_EQ(field(qwen->decls[0].body, "ffn"), nullptr);

  auto ds = load("{\"model_type\": \"deepseek_v3\", \"num_hidden_layers\": 4,"
                 " \"hidden_size\": 64, \"num_attention_heads\": 4,"
                 " \"vocab_size\": 10, \"intermediate_size\": 32,"
                 " \"n_routed_experts\": 8, \"num_experts_per_tok\": 2,"
                 " \"moe_intermediate_size\": 16, \"n_shared_experts\": 1,"
                 " \"first_k_dense_replace\": 1, \"kv_lora_rank\": 512,"
                 " \"qk_rope_head_dim\": 64, \"v_head_dim\": 128,"
                 " \"num_nextn_predict_layers\": 1}",
                 "");
  ASSERT_TRUE(ds) << printed(*diags_);
  const Block &b = ds->decls[0].body;
  EXPECT_EQ(field(b, "head_dim")->value->numberText, "128");
  // round((512 + 64) / (2 x 128)) = round(2.25) = 2
  EXPECT_EQ(field(b, "kv_heads")->value->numberText, "2");
  EXPECT_EQ(field(b, "dense_layers")->value->numberText, "1");
  EXPECT_EQ(field(b, "mtp_layers")->value->numberText, "1");
  EXPECT_NE(printed(*diags_).find("warning: DeepSeek-V3's multi-head latent"),
            std::string::npos);
}

TEST_F(HfConfigTest, BracketsInsideStringsDoNotMoveTheKeys) {
  auto program = load("{\"_name\": \"a{b[c\\\"}\", \"x\": {\"hidden_size\": 1},"
                      " \"model_type\": \"mistral\", \"num_hidden_layers\": 2,"
                      " \"hidden_size\": 64, \"num_attention_heads\": 4,"
                      " \"intermediate_size\": 8, \"vocab_size\": 10}",
                      "");
  ASSERT_TRUE(program) << printed(*diags_);
  // The top-level hidden_size (byte 95 onwards), not the nested one.
  const Field *hidden = field(program->decls[0].body, "hidden");
  EXPECT_EQ(hidden->value->numberText, "64");
  const std::string &text = sources_.text(hidden->value->loc.fileId);
  EXPECT_EQ(text.substr(hidden->value->loc.col - 1, 2), "64");
}

TEST_F(HfConfigTest, ErrorsPointIntoTheJsonWithANoteAtHf) {
  EXPECT_FALSE(load("{\"model_type\": \"gpt2\"}", ""));
  std::string out = printed(*diags_);
  EXPECT_NE(out.find("config.json:1:16: error: unknown Hugging Face "
                     "architecture 'gpt2'"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("s.plx:1:16: note: the Hugging Face config of model 'm' "
                     "is named here"),
            std::string::npos)
      << out;
}
