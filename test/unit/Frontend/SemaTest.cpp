//===- SemaTest.cpp - Semantic checks and resolution of .plx specs --------===//
#include "frontend/Sema.h"
#include "frontend/Parser.h"

#include <gtest/gtest.h>

#include <sstream>

using namespace plexus;
using namespace plexus::frontend;

namespace {

struct Analyzed {
  std::optional<Spec> spec;
  std::string errors;
};

Analyzed analyze(const std::string &text) {
  SourceManager sources;
  DiagnosticEngine diags(sources);
  Analyzed result;
  auto program = loadProgramFromText("test.plx", text, sources, diags);
  if (program)
    result.spec = analyzeProgram(*program, sources, diags);
  std::ostringstream os;
  diags.print(os);
  result.errors = os.str();
  return result;
}

const char *kBase = R"(
model m { layers = 4; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1000; }
dataset d { lengths = lognormal(mu = 6.0, sigma = 1.0); clamp = 384Ki; }
fabric f {
  chip = H100 { hbm = 30 GB; };
  nodes = 2; chips_per_node = 4;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
)";

} // namespace

TEST(Sema, ResolvesUnitsToBaseUnits) {
  Analyzed a = analyze(std::string(kBase) +
                       "train t { model = m; data = d; fabric = f; "
                       "batch = 2K; strategy { memory_limit = 24 GiB; } }");
  ASSERT_TRUE(a.spec) << a.errors;
  // 384Ki = 384 * 1024; 2K = 2000; 400 Gb/s = 50e9 bytes/s.
  EXPECT_EQ(a.spec->datasets[0].clamp, 393216);
  EXPECT_EQ(a.spec->trains[0].batch, 2000);
  EXPECT_EQ(a.spec->fabrics[0].topology.linkBandwidth, 50e9);
  // 24 GiB = 24 * 2^30 bytes.
  EXPECT_EQ(a.spec->trains[0].memoryLimit, int64_t(24) << 30);
}

TEST(Sema, FillsDefaultsAndDerivedFields) {
  Analyzed a =
      analyze(std::string(kBase) +
              "train t { model = m; data = d; fabric = f; batch = 8; }");
  ASSERT_TRUE(a.spec) << a.errors;
  const ModelSpec &m = a.spec->models[0];
  EXPECT_EQ(m.shape.kvHeads, 4);  // defaults to heads
  EXPECT_EQ(m.shape.headDim, 64); // hidden / heads
  EXPECT_EQ(m.shape.ffn, 1024);   // 1Ki
  const TrainSpec &t = a.spec->trains[0];
  EXPECT_EQ(t.steps, 1);
  EXPECT_EQ(t.zero, 3);
  EXPECT_EQ(t.sp, TrainSpec::Sp::Static);
  EXPECT_EQ(t.spDegree, 1);
  EXPECT_EQ(a.spec->datasets[0].padding, 1);
}

TEST(Sema, ChipOverridesKeepCatalogFiguresOtherwise) {
  Analyzed a = analyze(kBase);
  ASSERT_TRUE(a.spec) << a.errors;
  const cost::ChipSpec &chip = a.spec->fabrics[0].chip;
  EXPECT_EQ(chip.name, "H100 (modified: hbm)");
  EXPECT_EQ(chip.hbmBytes, 30'000'000'000); // overridden
  EXPECT_EQ(chip.bf16Flops, 989e12);        // from the catalog
  // Intra-node bandwidth defaults to the chip's NVLink figure per direction:
  // 900 GB/s both ways is 450 GB/s each way.
  EXPECT_EQ(a.spec->fabrics[0].intraNodeBandwidth, 450e9);
}

TEST(Sema, StrategyModes) {
  Analyzed a = analyze(std::string(kBase) +
                       "train t { model = m; data = d; fabric = f; batch = 8; "
                       "strategy { sp = adaptive; pp = dynamic; checkpoint = "
                       "adaptive; zero = 1; } }");
  ASSERT_TRUE(a.spec) << a.errors;
  const TrainSpec &t = a.spec->trains[0];
  EXPECT_EQ(t.sp, TrainSpec::Sp::Adaptive);
  EXPECT_EQ(t.pp, TrainSpec::Pp::Dynamic);
  EXPECT_EQ(t.checkpoint, TrainSpec::Checkpoint::Adaptive);
  EXPECT_EQ(t.zero, 1);
}

TEST(Sema, DeclarationsMayReferToLaterOnesAndKeepSourceOrder) {
  Analyzed a =
      analyze("train t { model = m; data = d; fabric = f; batch = 1; }" +
              std::string(kBase));
  ASSERT_TRUE(a.spec) << a.errors;
  ASSERT_EQ(a.spec->order.size(), 4u);
  EXPECT_EQ(a.spec->order.front().first, Spec::Kind::Train);
  EXPECT_EQ(a.spec->order.back().first, Spec::Kind::Fabric);
}

TEST(Sema, ReportsSeveralErrorsInOneRun) {
  Analyzed a = analyze(R"(
model m { layers = 0; hidden = 256; heads = 4; ffn = 1Ki; vocab = 1000; }
fabric f { chip = H1OO; nodes = 2; chips_per_node = 4;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 GB; }; }
)");
  EXPECT_FALSE(a.spec);
  EXPECT_NE(a.errors.find("test.plx:2:20: error: field 'layers' must be at "
                          "least 1, got 0"),
            std::string::npos)
      << a.errors;
  EXPECT_NE(a.errors.find("unknown chip 'H1OO'; did you mean 'H100'?"),
            std::string::npos)
      << a.errors;
  EXPECT_NE(a.errors.find("wrong unit: field 'link' expects a bandwidth"),
            std::string::npos)
      << a.errors;
  EXPECT_NE(a.errors.find("3 errors generated."), std::string::npos)
      << a.errors;
}

TEST(Sema, WrongKindReferenceGetsANoteAtTheDeclaration) {
  Analyzed a =
      analyze(std::string(kBase) +
              "train t { model = d; data = d; fabric = f; batch = 1; }");
  EXPECT_FALSE(a.spec);
  EXPECT_NE(a.errors.find("error: 'd' is a dataset, but field 'model' needs a "
                          "model"),
            std::string::npos)
      << a.errors;
  EXPECT_NE(a.errors.find("test.plx:3:9: note: 'd' is declared here"),
            std::string::npos)
      << a.errors;
}

TEST(Sema, EditDistance) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("layer", "layers"), 1u);
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
}
