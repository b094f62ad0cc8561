//===- ReportAttrTest.cpp - Reports through attributes and back -----------===//
//
// plxc renders its reports from the plan.prediction attributes the
// prediction passes attach (passes/Report/ReportAttr.h). A dictionary
// attribute sorts its keys, so the way back must restore the report's order
// from the key order given, and keep a named object's order through a list.
//
//===----------------------------------------------------------------------===//
#include "passes/Report/ReportAttr.h"
#include "passes/ServeJob/ServePipeline.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace plexus;

namespace {

nlohmann::ordered_json sample() {
  nlohmann::ordered_json j;
  j["zeta"] = 1;
  j["alpha"] = {{"y", true}, {"x", nullptr}};
  j["mid"] = {1.5, -2, "three"};
  nlohmann::ordered_json named = nlohmann::ordered_json::object();
  named["second-by-name"] = {{"y", 0.25}};
  named["first-by-name"] = {{"x", false}};
  j["rows"] = named;
  j["empty"] = nlohmann::ordered_json::object();
  return j;
}

} // namespace

// Every kind of value, nested objects in the given order and a named
// object in its own order come back as they went in.
TEST(ReportAttr, RoundTripsInTheGivenKeyOrder) {
  mlir::MLIRContext context;
  const std::vector<llvm::StringRef> order{"zeta", "alpha", "y", "x",
                                           "mid", "rows", "empty"};
  mlir::DictionaryAttr attr = report::reportAttr(&context, sample(), "rows");
  // The named object is a list that keeps its order, each entry named.
  auto rows = attr.getAs<mlir::ArrayAttr>("rows");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(mlir::cast<mlir::DictionaryAttr>(rows[0])
                .getAs<mlir::StringAttr>("name")
                .str(),
            "second-by-name");
  EXPECT_EQ(report::reportJson(attr, order, "rows").dump(), sample().dump());
}

// Keys the order does not list come after those it does, by name.
TEST(ReportAttr, UnlistedKeysComeLastByName) {
  mlir::MLIRContext context;
  nlohmann::ordered_json j;
  j["b"] = 1;
  j["listed"] = 2;
  j["a"] = 3;
  mlir::DictionaryAttr attr = report::reportAttr(&context, j, "rows");
  EXPECT_EQ(report::reportJson(attr, {"listed"}, "rows").dump(),
            R"({"listed":2,"a":3,"b":1})");
}

// A serve job's report, baselines (one infeasible, one incomplete) in
// report order, byte for byte.
TEST(ReportAttr, ServeReportFromTheAttributeIsTheReport) {
  mlir::MLIRContext context;
  servejob::ServePrediction p;
  p.job = "agents";
  p.chips = 16;
  p.instances = 2;
  p.layout.pp = 2;
  p.layout.ep = 4;
  p.layout.dpAttention = true;
  p.layout.stageLayers = {9, 7};
  p.layout.mtpDrafts = 3;
  p.waveInterval = 8;
  p.intervalChosen = true;
  p.sweep.intervals = {4, 8};
  p.sweep.overallJct = {70.5, 68.25};
  p.replay.completed = false;
  p.replay.incomplete = "2 turns did not finish";
  p.replay.metrics.overallJct = 68.25;
  p.replay.metrics.tasks = 3;
  p.plannerSeconds = 0.5;
  servejob::SystemOutcome w;
  w.name = "wide-ep";
  w.chips = 16;
  w.metrics.overallJct = 80;
  servejob::SystemOutcome v;
  v.name = "vllm-pp2";
  v.error = "does not fit";
  servejob::SystemOutcome d = w;
  d.name = "pd-disaggregated";
  d.completed = false;
  d.incomplete = "prefill never drains";
  p.baselines = {w, v, d};
  EXPECT_EQ(servejob::servePredictionReport(
                servejob::servePredictionAttr(&context, p))
                .dump(2),
            servejob::servePredictionJson(p).dump(2));
}
