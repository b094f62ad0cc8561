//===- plxc.cpp - The Plexus compiler driver ------------------------------===//
//
//   plxc FILE.plx [--emit=ast|spec|plan|circuits|fabric-dot]
//                 [--report=text|json] [--trace FILE] [-o DIR]
//
// Reads a spec, checks it, places its jobs, plans, lowers and simulates each
// training job's steps with its strategy and the standard baselines, and
// prints the report (default) or the requested intermediate form. With -o,
// also writes spec.mlir, plan.mlir, report.json and report.html into DIR.
//
//===----------------------------------------------------------------------===//
#include "codegen/Cpp/EmitCpp.h"
#include "codegen/Report/FabricReport.h"
#include "codegen/Report/FrameworkArgs.h"
#include "codegen/Report/HtmlReport.h"
#include "codegen/Report/SpecReport.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "dialects/Plx/IR/PlxDialect.h"
#include "dialects/Registration.h"
#include "dialects/Rt/IR/RtDialect.h"
#include "frontend/AST.h"
#include "frontend/MLIRGen.h"
#include "frontend/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "passes/Instantiate/Passes.h"
#include "passes/Placement/Passes.h"
#include "passes/Report/ReportAttr.h"
#include "passes/ServeJob/Passes.h"
#include "passes/ServeJob/ServePipeline.h"
#include "passes/Simulate/EventSimulator.h"
#include "passes/Train/Passes.h"
#include "passes/Train/ProgressMeter.h"
#include "passes/Train/TrainPipeline.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace cl = llvm::cl;

namespace {
enum class Emit {
  Report,
  Ast,
  Spec,
  Plan,
  Rt,
  Cpp,
  Circuits,
  FabricDot,
  Megatron,
  DeepSpeed,
  SGLang,
  Vllm
};
enum class ReportFormat { Text, Json };

cl::OptionCategory plxcCategory("plxc options");

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<spec.plx, or - for standard input>"),
                               cl::Required, cl::cat(plxcCategory));

cl::opt<Emit> emit(
    "emit", cl::desc("What to print"), cl::init(Emit::Report),
    cl::values(clEnumValN(Emit::Ast, "ast", "the syntax tree after imports"),
               clEnumValN(Emit::Spec, "spec", "the checked spec as plx IR"),
               clEnumValN(Emit::Plan, "plan",
                          "each job's ranks, communicators and placement"),
               clEnumValN(Emit::Rt, "rt",
                          "the first train job's step lowered to one "
                          "rt.program per rank"),
               clEnumValN(Emit::Cpp, "cpp",
                          "the C++ program that runs those rt programs"),
               clEnumValN(Emit::Circuits, "circuits",
                          "the RailX OCS circuit table as JSON"),
               clEnumValN(Emit::FabricDot, "fabric-dot",
                          "Graphviz of a small fabric"),
               clEnumValN(Emit::Megatron, "megatron",
                          "each train job's plan as Megatron-LM's torchrun "
                          "pretrain_gpt.py arguments"),
               clEnumValN(Emit::DeepSpeed, "deepspeed",
                          "each train job's plan as a DeepSpeed "
                          "ds_config.json (ZeRO, Ulysses)"),
               clEnumValN(Emit::SGLang, "sglang",
                          "each serve job's plan as SGLang server arguments"),
               clEnumValN(Emit::Vllm, "vllm",
                          "each serve job's plan as vLLM serve arguments")),
    cl::cat(plxcCategory));

cl::opt<ReportFormat> reportFormat(
    "report", cl::desc("Report format"), cl::init(ReportFormat::Text),
    cl::values(clEnumValN(ReportFormat::Text, "text", "human-readable"),
               clEnumValN(ReportFormat::Json, "json", "one JSON object")),
    cl::cat(plxcCategory));

cl::opt<std::string> outputDir("o",
                               cl::desc("With the report or --emit=plan, also "
                                        "write spec.mlir, plan.mlir, "
                                        "report.json, report.html and, for "
                                        "the first train job, rt.mlir, "
                                        "program.cpp, "
                                        "launch.sh, plan.json, "
                                        "nccl-topo.xml and circuits.json "
                                        "into this directory"),
                               cl::value_desc("dir"), cl::cat(plxcCategory));

cl::opt<bool> quiet(
    "quiet",
    cl::desc("Print errors and warnings only: no progress lines, no notes, "
             "and with -o no report on standard output"),
    cl::init(false), cl::cat(plxcCategory));

enum class DiagnosticsMode { Text, Json };
cl::opt<DiagnosticsMode> diagnosticsMode(
    "diagnostics", cl::desc("How errors, warnings and notes are printed"),
    cl::init(DiagnosticsMode::Text),
    cl::values(clEnumValN(DiagnosticsMode::Text, "text",
                          "file:line:col, the line and a caret (clang's)"),
               clEnumValN(DiagnosticsMode::Json, "json",
                          "one JSON object a line on stderr: file, line, "
                          "column, severity, message, notes")),
    cl::cat(plxcCategory));

bool jsonDiagnostics() { return diagnosticsMode == DiagnosticsMode::Json; }

/// plxc's own messages (not about a place in the spec), as the diagnostics
/// are printed.
void driverMessage(const char *severity, const std::string &message) {
  if (jsonDiagnostics())
    std::cerr << plexus::frontend::jsonDiagnosticLine("", 0, 0, severity,
                                                      message, {})
              << "\n";
  else
    std::cerr << "plxc: " << severity << ": " << message << "\n";
}

enum class ProgressMode { Auto, Always, Never };
cl::opt<ProgressMode> progressMode(
    "progress",
    cl::desc("Progress lines on stderr for stages that run past a second"),
    cl::init(ProgressMode::Auto),
    cl::values(clEnumValN(ProgressMode::Auto, "auto",
                          "when stderr is a terminal"),
               clEnumValN(ProgressMode::Always, "always", "always"),
               clEnumValN(ProgressMode::Never, "never", "never")),
    cl::cat(plxcCategory));

/// Whether progress lines are printed.
bool progressOn() {
  if (quiet)
    return false;
  return progressMode == ProgressMode::Always ||
         (progressMode == ProgressMode::Auto && ::isatty(2));
}

cl::opt<unsigned>
    errorLimit("error-limit",
               cl::desc("Stop showing errors after this many (0: show all)"),
               cl::init(20), cl::cat(plxcCategory));

cl::opt<std::string>
    tracePath("trace",
              cl::desc("Write a Chrome trace (Perfetto) of the first train "
                       "job's plan, one track per rank"),
              cl::value_desc("file"), cl::cat(plxcCategory));

cl::opt<int64_t> maxSimulatedRanks(
    "max-simulated-ranks",
    cl::desc("Plan and simulate train jobs of at most this many ranks (a "
             "guard; larger ones are reported as not planned)"),
    cl::init(1 << 20), cl::cat(plxcCategory));

cl::opt<int64_t> maxReplicaRanks(
    "max-replica-ranks",
    cl::desc("Plan and simulate a train job of more ranks as data-parallel "
             "replicas of at most this many ranks, each planned for the "
             "heaviest share of the batch"),
    cl::init(4096), cl::cat(plxcCategory));

cl::opt<bool> contention(
    "contention",
    cl::desc("Simulate link contention between concurrent transfers (on by "
             "default; --contention=false times every transfer alone, as "
             "the planners do)"),
    cl::init(true), cl::cat(plxcCategory));

cl::opt<bool> simulateEveryRank(
    "simulate-every-rank",
    cl::desc("Simulate every rank instead of one rank of each class of "
             "equal programs (the same result, slower; the corpus test "
             "compares the two)"),
    cl::init(false), cl::Hidden, cl::cat(plxcCategory));

cl::opt<bool> explore(
    "explore",
    cl::desc("In the text report, list every plan judged for each train "
             "job's step 0, fastest first, with its MFU and peak memory or "
             "why it cannot run (the JSON report always has them, "
             "\"explored\")"),
    cl::init(false), cl::cat(plxcCategory));

cl::list<std::string> setOverrides(
    "set",
    cl::desc("Override one field of the spec before it is checked: "
             "NAME.FIELD[.FIELD...]=VALUE, e.g. --set job.strategy.sp=8 or "
             "--set fabric.topology.link=\"100 Gb/s\" (repeatable; a later "
             "one wins)"),
    cl::value_desc("name.field=value"), cl::cat(plxcCategory));

cl::opt<bool> printLocations("print-locations",
                             cl::desc("Print .plx locations with --emit=spec"),
                             cl::init(false), cl::cat(plxcCategory));

/// `-` names standard input.
bool fromStdin() { return inputFile == "-"; }

/// The spec's name in generated files and diagnostics.
std::string sourceName() {
  return fromStdin() ? std::string("<stdin>")
                     : llvm::sys::path::filename(inputFile).str();
}

/// The spec's text from standard input, read once.
const std::string &stdinText() {
  static const std::string text = [] {
    std::ostringstream buffer;
    buffer << std::cin.rdbuf();
    return buffer.str();
  }();
  return text;
}

/// What the command line adds to the spec's files.
plexus::frontend::LoadOptions loadOptions() {
  return {{setOverrides.begin(), setOverrides.end()},
          jsonDiagnostics() ? plexus::frontend::DiagnosticFormat::Json
                            : plexus::frontend::DiagnosticFormat::Text};
}

void printVersion(llvm::raw_ostream &os) {
  os << "plxc (Plexus) " << PLEXUS_VERSION << "\n";
}

std::string printModule(mlir::ModuleOp module, bool withLocations) {
  std::string text;
  llvm::raw_string_ostream os(text);
  mlir::OpPrintingFlags flags;
  if (withLocations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/false);
  module->print(os, flags);
  return text;
}

bool writeFile(const std::string &dir, const std::string &name,
               const std::string &contents) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::ofstream out(path.str().str(), std::ios::binary);
  out << contents;
  if (!out) {
    driverMessage("error", "cannot write '" + path.str().str() + "'");
    return false;
  }
  return true;
}
/// The first train job's planned step lowered to rt programs, in a copy of
/// the module (the module keeps its plans for the report). Null, with the
/// reason in `why`, when there is no step or the lowering fails.
mlir::OwningOpRef<mlir::ModuleOp> lowerFirstStep(mlir::ModuleOp module,
                                                 std::string &why) {
  auto steps = llvm::to_vector(module.getOps<plexus::plan::StepOp>());
  if (steps.empty()) {
    why = "the spec has no planned train step";
    return nullptr;
  }
  if (std::optional<int64_t> replicas = steps.front().getReplicas()) {
    const int64_t ranks = steps.front().getWorldSize();
    why = "the job is planned as " + std::to_string(*replicas) +
          " data-parallel replicas of " + std::to_string(ranks) +
          " ranks, and programs are generated for whole jobs (a "
          "--max-replica-ranks of at least " +
          std::to_string(*replicas * ranks) + " plans it whole)";
    return nullptr;
  }
  mlir::OwningOpRef<mlir::ModuleOp> lowered(module.clone());
  mlir::PassManager pm(module.getContext());
  plexus::train::LowerToRtPassOptions options;
  options.stepName = steps.front().getSymName().str();
  pm.addPass(plexus::train::createLowerToRtPass(options));
  if (mlir::failed(pm.run(*lowered))) {
    why = "the plan could not be lowered to rt programs";
    return nullptr;
  }
  return lowered;
}

/// Writes the generated program and the files beside it. Returns false
/// only when a file cannot be written; a plan the runtime cannot run
/// (a mixture-of-experts model, tensor parallelism...) gets a note instead.
bool writeProgramFiles(mlir::ModuleOp module, const std::string &dir) {
  // A step of many ranks takes seconds to lower, verify and print: each
  // stage says so once it has run for a second.
  plexus::train::ProgressMeter progress(
      progressOn() ? plexus::train::ProgressMeter::stderrSink() : nullptr);
  const std::string files = "plxc: writing " + dir + ": ";
  progress.stage(files + "lowering the first step to rt programs (1 of 6)");
  std::string why;
  mlir::OwningOpRef<mlir::ModuleOp> lowered = lowerFirstStep(module, why);
  std::string cpp, launch, json, topo;
  bool ok = false;
  if (lowered) {
    const size_t ranks = llvm::range_size(
        lowered->getOps<plexus::rt::ProgramOp>());
    const std::string of = " of " + std::to_string(ranks) + " ranks";
    // The generator's own diagnostics become the note's reason.
    mlir::ScopedDiagnosticHandler capture(module.getContext(),
                                          [&](mlir::Diagnostic &d) {
                                            if (why.empty())
                                              why = d.str();
                                            return mlir::success();
                                          });
    llvm::raw_string_ostream cppOs(cpp), launchOs(launch), jsonOs(json),
        topoOs(topo);
    plexus::codegen::CppOptions cppOptions;
    cppOptions.source = sourceName();
    plexus::codegen::LaunchOptions launchOptions;
    launchOptions.sourceDir = PLEXUS_SOURCE_DIR;
    launchOptions.buildDir = PLEXUS_BINARY_DIR;
    auto stage = [&](const std::string &text) {
      progress.stage(files + text);
      return true;
    };
    ok = stage("checking the plan contract" + of + " (2 of 6)") &&
         mlir::succeeded(plexus::codegen::verifyForCodegen(*lowered)) &&
         stage("generating program.cpp" + of + " (3 of 6)") &&
         mlir::succeeded(
             plexus::codegen::emitCpp(*lowered, cppOs, cppOptions)) &&
         mlir::succeeded(plexus::codegen::emitLaunchScript(*lowered, launchOs,
                                                           launchOptions)) &&
         stage("generating plan.json" + of + " (4 of 6)") &&
         mlir::succeeded(plexus::codegen::emitProgramsJson(*lowered, jsonOs)) &&
         mlir::succeeded(plexus::codegen::emitNcclTopology(*lowered, topoOs));
  }
  if (ok)
    progress.stage(files + "printing rt.mlir (5 of 6)");
  // The circuit table is placement's: written whether or not a program is.
  auto circuits = plexus::report::circuitsJson(module);
  if (!ok) {
    progress.clear();
    if (!quiet)
      driverMessage("note", "skipped rt.mlir, program.cpp, launch.sh, "
                            "plan.json and nccl-topo.xml (no program for "
                            "the first train job): " +
                                why);
    return writeFile(dir, "circuits.json", circuits.dump(1) + "\n");
  }
  const std::string rt = printModule(*lowered, false);
  progress.stage(files + "writing the files (6 of 6)");
  if (!writeFile(dir, "rt.mlir", rt) ||
      !writeFile(dir, "program.cpp", cpp) ||
      !writeFile(dir, "launch.sh", launch) ||
      !writeFile(dir, "plan.json", json) ||
      !writeFile(dir, "nccl-topo.xml", topo) ||
      !writeFile(dir, "circuits.json", circuits.dump(1) + "\n"))
    return false;
  llvm::SmallString<256> script(dir);
  llvm::sys::path::append(script, "launch.sh");
  llvm::sys::fs::setPermissions(script, llvm::sys::fs::all_read |
                                            llvm::sys::fs::all_exe |
                                            llvm::sys::fs::owner_write);
  return true;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
#if defined(__GLIBC__)
  // The train pipeline lowers and frees a step's programs (many MB) for
  // every plan it judges. By default glibc returns such blocks to the
  // system (mmap'd chunks, heap trimming) and the next plan faults the
  // pages in again: a quarter of a 128-chip DPP job's time (bench-scale).
  // Kept, the peak resident memory is the same.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  // MLIR's pass-manager debugging (--mlir-print-ir-after-all,
  // --mlir-print-ir-before=..., --mlir-timing, ...) on plxc's own pass
  // managers; not listed by --help (docs/DEVELOPING.md).
  mlir::registerPassManagerCLOptions();
  cl::HideUnrelatedOptions(plxcCategory);
  cl::SetVersionPrinter(printVersion);
  cl::ParseCommandLineOptions(
      argc, argv,
      "plxc: the Plexus compiler.\n\n"
      "Checks a .plx spec (a model, its data, the fabric and a train or serve\n"
      "job) and prints what it declares. See docs/language.md.\n");

  if (outputDir.getNumOccurrences() > 0 && outputDir.empty()) {
    driverMessage("error", "-o needs a directory");
    return 1;
  }
  if (simulateEveryRank)
    plexus::sim::setDefaultSymmetry(false);

  if (emit == Emit::Ast) {
    plexus::frontend::SourceManager sources;
    plexus::frontend::DiagnosticEngine diags(sources);
    diags.setErrorLimit(errorLimit);
    diags.setFormat(loadOptions().diagnosticFormat);
    auto program =
        fromStdin() ? plexus::frontend::loadProgramFromText(
                          "<stdin>", stdinText(), sources, diags, loadOptions())
                    : plexus::frontend::loadProgram(inputFile, sources, diags,
                                                    loadOptions());
    diags.print(std::cerr);
    if (!program)
      return 1;
    plexus::frontend::printProgram(*program, sources, std::cout);
    return 0;
  }

  mlir::DialectRegistry registry;
  plexus::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      fromStdin()
          ? plexus::frontend::importPlxText(context, "<stdin>", stdinText(),
                                            std::cerr, loadOptions(),
                                            errorLimit)
          : plexus::frontend::importPlxFile(context, inputFile, std::cerr,
                                            errorLimit, loadOptions());
  if (!module)
    return 1;
  // Errors from the passes below point into the .plx files the way the
  // frontend's do: file:line:col, the line and a caret.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context,
                                               llvm::errs());
  // --diagnostics=json: the passes' diagnostics as JSON lines instead.
  std::optional<mlir::ScopedDiagnosticHandler> jsonHandler;
  if (jsonDiagnostics())
    jsonHandler.emplace(&context, [](mlir::Diagnostic &d) {
      auto where = [](mlir::Location loc) {
        plexus::frontend::JsonDiagnosticNote at;
        if (auto file = loc->findInstanceOf<mlir::FileLineColLoc>()) {
          at.file = file.getFilename().str();
          at.line = file.getLine();
          at.column = file.getColumn();
        }
        return at;
      };
      std::vector<plexus::frontend::JsonDiagnosticNote> notes;
      for (mlir::Diagnostic &n : d.getNotes()) {
        plexus::frontend::JsonDiagnosticNote note = where(n.getLocation());
        note.message = n.str();
        notes.push_back(std::move(note));
      }
      const plexus::frontend::JsonDiagnosticNote at = where(d.getLocation());
      const char *severity =
          d.getSeverity() == mlir::DiagnosticSeverity::Error     ? "error"
          : d.getSeverity() == mlir::DiagnosticSeverity::Warning ? "warning"
          : d.getSeverity() == mlir::DiagnosticSeverity::Note    ? "note"
                                                                 : "remark";
      llvm::errs().flush();
      std::cerr << plexus::frontend::jsonDiagnosticLine(
                       at.file, at.line, at.column, severity, d.str(), notes)
                << "\n";
      return mlir::success();
    });
  // Count the errors of placement and planning, as the frontend does, and
  // end with clang's "N errors generated." line.
  unsigned errorCount = 0;
  mlir::ScopedDiagnosticHandler counter(&context, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error)
      ++errorCount;
    return mlir::failure(); // let the printing handler print it
  });
  struct ErrorCountLine {
    unsigned &count;
    ~ErrorCountLine() {
      llvm::errs().flush();
      if (jsonDiagnostics())
        return;
      if (count == 1)
        std::cerr << "1 error generated.\n";
      else if (count > 1)
        std::cerr << count << " errors generated.\n";
    }
  } errorCountLine{errorCount};

  // The train pipeline (plx-train-pipeline): place every job, plan each
  // train job's steps with its strategy and the baselines, judge them with
  // the simulator (passes/Train/TrainPipeline.h); the reports are rendered
  // from the plan.prediction attributes the pipelines attach.
  // A job that cannot be planned is reported in its place, its
  // diagnostic printed, and plxc exits non-zero after the report.
  bool jobsFailed = false;
  auto runPipeline = [&](nlohmann::ordered_json &predictions) {
    std::string specText = printModule(*module, true);
    mlir::PassManager pm(&context);
    plexus::train::TrainPipelineOptions trainOptions;
    trainOptions.tracePath = tracePath.getValue();
    trainOptions.maxSimulatedRanks = maxSimulatedRanks.getValue();
    trainOptions.maxReplicaRanks = maxReplicaRanks.getValue();
    trainOptions.contention = contention.getValue();
    trainOptions.progress = progressOn();
    // report.html's timeline of each train job's step 0.
    if (!outputDir.empty())
      trainOptions.timelineColumns = 600;
    plexus::train::buildTrainPipeline(pm, trainOptions);
    if (mlir::failed(mlir::applyPassManagerCLOptions(pm)))
      return false;
    // plx-predict-train fails when a job cannot be planned, after giving
    // every job its prediction; a failure before it leaves some without.
    const bool pipelineFailed = mlir::failed(pm.run(*module));
    size_t trainJobs = 0;
    for (auto train : module->getOps<plexus::plx::TrainOp>()) {
      ++trainJobs;
      auto prediction = train->getAttrOfType<mlir::DictionaryAttr>(
          plexus::report::kPredictionAttrName);
      if (!prediction)
        return false;
      nlohmann::ordered_json j = plexus::train::predictionReport(prediction);
      if (j.contains("error"))
        jobsFailed = true;
      predictions[train.getSymName().str()] = std::move(j);
      // Rendered; the plan IR plxc prints keeps the plans, not the report
      // (whose solver time is not deterministic).
      train->removeAttr(plexus::report::kPredictionAttrName);
    }
    if (pipelineFailed && !jobsFailed)
      return false;
    // The serve pipeline: plan and replay each serve job
    // (passes/ServeJob/ServePipeline.h); the first one's replay is the
    // trace when there is no train job.
    const size_t serveJobs =
        llvm::range_size(module->getOps<plexus::plx::ServeOp>());
    if (!tracePath.empty() && trainJobs == 0 && serveJobs == 0) {
      driverMessage("error", "--trace needs a train or serve job");
      return false;
    }
    if (serveJobs > 0) {
      mlir::PassManager servePm(&context);
      plexus::servejob::buildServePipeline(
          servePm, trainJobs == 0 ? tracePath.getValue() : std::string(),
          /*progress=*/progressOn());
      if (mlir::failed(mlir::applyPassManagerCLOptions(servePm)) ||
          mlir::failed(servePm.run(*module)))
        return false;
      for (auto serve : module->getOps<plexus::plx::ServeOp>()) {
        auto prediction = serve->getAttrOfType<mlir::DictionaryAttr>(
            plexus::report::kPredictionAttrName);
        if (!prediction)
          return false;
        predictions[serve.getSymName().str()] =
            plexus::servejob::servePredictionReport(prediction);
        serve->removeAttr(plexus::report::kPredictionAttrName);
      }
    }
    if (!outputDir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
        driverMessage("error", "cannot create '" + outputDir.getValue() +
                                   "': " + ec.message());
        return false;
      }
      std::ostringstream json;
      json << plexus::report::specReportJson(*module, predictions).dump(2)
           << "\n";
      if (!writeFile(outputDir, "spec.mlir", specText) ||
          !writeFile(outputDir, "plan.mlir", printModule(*module, true)) ||
          !writeFile(outputDir, "report.json", json.str()) ||
          !writeFile(outputDir, "report.html",
                     plexus::report::htmlReport(
                         plexus::report::specReportJson(*module, predictions),
                         sourceName())) ||
          !writeProgramFiles(*module, outputDir))
        return false;
    }
    return true;
  };

  if (emit == Emit::Plan) {
    // Every job's ranks, communicators and placement, each train job's
    // planned steps and each serve job's plan.
    nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
    if (!runPipeline(predictions))
      return 1;
    std::cout << printModule(*module, printLocations);
    return 0;
  }
  if (emit == Emit::Rt || emit == Emit::Cpp) {
    nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
    if (!runPipeline(predictions))
      return 1;
    std::string why;
    mlir::OwningOpRef<mlir::ModuleOp> lowered = lowerFirstStep(*module, why);
    if (!lowered) {
      driverMessage("error", why);
      return 1;
    }
    if (emit == Emit::Rt) {
      std::cout << printModule(*lowered, printLocations);
      return 0;
    }
    plexus::codegen::CppOptions cppOptions;
    cppOptions.source = sourceName();
    std::string text;
    llvm::raw_string_ostream os(text);
    if (mlir::failed(plexus::codegen::verifyForCodegen(*lowered)) ||
        mlir::failed(plexus::codegen::emitCpp(*lowered, os, cppOptions)))
      return 1;
    std::cout << text;
    return 0;
  }
  if (emit == Emit::Circuits) {
    // The circuit table is plx-place's decision: run the pass, print its
    // plan.circuits.
    mlir::PassManager pm(&context);
    pm.addPass(plexus::placement::createPlacePass());
    if (mlir::failed(pm.run(*module)))
      return 1;
    // One rail a line: a 200K-chip table stays greppable.
    auto circuits = plexus::report::circuitsJson(*module);
    std::cout << "[";
    for (size_t i = 0; i < circuits.size(); ++i)
      std::cout << (i ? ",\n " : "\n ") << circuits[i].dump();
    std::cout << (circuits.empty() ? "]\n" : "\n]\n");
    return 0;
  }
  if (emit == Emit::FabricDot) {
    plexus::plx::FabricOp fabric = plexus::report::primaryFabric(*module);
    if (!fabric) {
      driverMessage("error",
                    "--emit=fabric-dot needs one fabric (or a job naming one)");
      return 1;
    }
    std::string error;
    auto dot = plexus::report::fabricDot(fabric, /*maxNodes=*/256, error);
    if (!dot) {
      driverMessage("error", error);
      return 1;
    }
    std::cout << *dot;
    return 0;
  }
  if (emit == Emit::Megatron || emit == Emit::DeepSpeed ||
      emit == Emit::SGLang || emit == Emit::Vllm) {
    nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
    if (!runPipeline(predictions))
      return 1;
    const plexus::report::Framework framework =
        emit == Emit::Megatron    ? plexus::report::Framework::Megatron
        : emit == Emit::DeepSpeed ? plexus::report::Framework::DeepSpeed
        : emit == Emit::SGLang    ? plexus::report::Framework::SGLang
                                  : plexus::report::Framework::Vllm;
    std::cout << plexus::report::frameworkLaunch(
        plexus::report::specReportJson(*module, predictions), framework,
        sourceName());
    return jobsFailed ? 1 : 0;
  }
  if (emit == Emit::Spec) {
    std::cout << printModule(*module, printLocations);
    return 0;
  }
  nlohmann::ordered_json predictions = nlohmann::ordered_json::object();
  if (!runPipeline(predictions))
    return 1;
  // --quiet with -o: the report is in DIR/report.json.
  if (quiet && !outputDir.empty())
    return jobsFailed ? 1 : 0;
  if (reportFormat == ReportFormat::Json)
    std::cout << plexus::report::specReportJson(*module, predictions).dump(2)
              << "\n";
  else
    plexus::report::printSpecReport(*module, std::cout, predictions,
                                    {/*explore=*/explore.getValue()});
  return jobsFailed ? 1 : 0;
}
