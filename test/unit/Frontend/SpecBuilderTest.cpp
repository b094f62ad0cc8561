//===- SpecBuilderTest.cpp - The C++ builder gives the same IR as text ----===//
#include "frontend/SpecBuilder.h"
#include "dialects/Registration.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace plexus::frontend;

namespace {

std::string print(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// The FlexSP example spec, declared through the builder API.
SpecBuilder flexspThroughBuilder() {
  SpecBuilder b(PLEXUS_SOURCE_DIR "/examples");
  b.declare("model", "gpt7b")
      .set("layers", 32)
      .set("hidden", 4096)
      .set("heads", 64)
      .set("ffn", PlxValue::quantity(int64_t(16), "Ki"))
      .set("mlp", PlxValue::name("gelu"))
      .set("vocab", 50257)
      .set("dtype", PlxValue::name("bf16"));
  b.declare("dataset", "wikipedia")
      .set("lengths", PlxValue::file("data/wikipedia-lengths.txt"))
      .set("clamp", PlxValue::quantity(int64_t(384), "Ki"))
      .set("overlong", PlxValue::name("drop"))
      .set("padding", 128);
  b.declare("fabric", "a100_64")
      .set("chip", PlxValue::name("A100_40GB"))
      .set("nodes", 8)
      .set("chips_per_node", 8)
      .set("chips", 64)
      .set("intra_node", PlxValue::name("nvswitch"))
      .set("topology",
           PlxValue::named(
               "fat_tree",
               BlockBuilder()
                   .set("radix", 16)
                   .set("tiers", 2)
                   .set("link", PlxValue::quantity(int64_t(50), "Gb/s"))));
  b.declare("train", "flexsp")
      .set("model", PlxValue::name("gpt7b"))
      .set("data", PlxValue::name("wikipedia"))
      .set("fabric", PlxValue::name("a100_64"))
      .set("batch", 512)
      .set("steps", 1)
      .set("seed", 42)
      .block("strategy",
             BlockBuilder()
                 .set("sp", PlxValue::name("adaptive"))
                 .set("checkpoint", PlxValue::name("selective"))
                 .set("zero", 3)
                 .set("memory_limit", PlxValue::quantity(int64_t(30), "GB")));
  return b;
}

} // namespace

TEST(SpecBuilder, BuildsTheSameIrAsTheExampleText) {
  mlir::DialectRegistry registry;
  plexus::registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  std::ostringstream errs;
  auto fromText = importPlxFile(
      context, PLEXUS_SOURCE_DIR "/examples/flexsp-gpt7b-wikipedia.plx", errs);
  ASSERT_TRUE(fromText) << errs.str();

  SourceManager sources;
  DiagnosticEngine diags(sources);
  Program program = flexspThroughBuilder().build(sources);
  auto spec = analyzeProgram(program, sources, diags);
  std::ostringstream os;
  diags.print(os);
  ASSERT_TRUE(spec) << os.str();
  auto fromBuilder = buildSpecModule(context, *spec, sources);
  ASSERT_TRUE(fromBuilder);
  EXPECT_EQ(print(*fromText), print(*fromBuilder));
}

TEST(SpecBuilder, RendersReadablePlx) {
  SpecBuilder b;
  b.declare("model", "m")
      .set("layers", 2)
      .set("hidden", PlxValue::quantity(1.5, "Ki"));
  EXPECT_EQ(b.render(), "model m {\n  layers = 2;\n  hidden = 1.5 Ki;\n}\n\n");
}

TEST(SpecBuilder, ErrorsPointIntoTheRenderedText) {
  SpecBuilder b;
  b.declare("model", "m")
      .set("layers", 0)
      .set("hidden", 256)
      .set("heads", 4)
      .set("ffn", 1024)
      .set("vocab", 100);
  SourceManager sources;
  DiagnosticEngine diags(sources);
  Program program = b.build(sources);
  EXPECT_FALSE(analyzeProgram(program, sources, diags));
  std::ostringstream os;
  diags.print(os);
  EXPECT_EQ(os.str(), "<builder>:2:12: error: field 'layers' must be at least "
                      "1, got 0\n  layers = 0;\n           ^\n"
                      "1 error generated.\n");
}
