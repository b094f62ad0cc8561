#!/usr/bin/env python3
"""Fails on an include that points against the data flow (DESIGN.md, "Layout";
docs/DEVELOPING.md, "Layering").

Usage: check-layering.py SOURCE_DIR | --selftest

Every source file belongs to one component; a component may include only
the components ALLOWED lists for it (and MLIR, LLVM, the standard library
and third-party headers, except where NO_MLIR says otherwise):

  spec        dialects/Common (not DecimalFormat.h): the spec's vocabulary
              and the rules Sema and the verifiers share, plain C++
  foundation  passes/{Cost,Fabric,Solver,StepModel}, passes/Program's plain
              programs, passes/Instantiate's batch sampler and group
              layouts: models and plan data, plain C++
  dialects    dialects/<D>/IR and the dialects' float printer
  planners    passes/{AdaptiveSP,DynamicPP,Checkpoint,Serving,Baselines}:
              plain C++ over models and plan data, never the lowering, the
              simulator or IR
  lowering    passes/Lower: plan data to programs, calling no planner
  simulator   passes/Simulate: programs to times (and its pass adapters)
  conversion  passes/Program/RtPrograms: rt IR <-> programs, both ways
  irpasses    passes/{Instantiate,Placement} passes over the dialects
  drivers     passes/{Train,ServeJob}: the pipelines over IR
  frontend    frontend/: spec text to plx IR
  codegen     codegen/: reads plans and programs, never plans
  runtime     runtime/: nothing of the compiler
tools/, bench/ and test/ may include anything and are not checked.
Prints one line per violation and `N passed, M failed` (files checked).
"""
import os
import re
import sys

COMPONENTS = [
    # (component, path prefixes); the first matching prefix wins.
    ("dialects", ("dialects/Common/DecimalFormat.h",)),
    ("spec", ("dialects/Common/",)),
    ("conversion", ("passes/Program/RtPrograms",)),
    ("foundation", ("passes/Support/", "passes/Cost/", "passes/Fabric/",
                    "passes/Solver/",
                    "passes/StepModel/", "passes/Program/",
                    "passes/Instantiate/BatchSampler",
                    "passes/Instantiate/JobGroups")),
    ("dialects", ("dialects/",)),
    ("planners", ("passes/AdaptiveSP/", "passes/DynamicPP/",
                  "passes/Checkpoint/", "passes/Serving/",
                  "passes/Baselines/")),
    ("lowering", ("passes/Lower/",)),
    ("simulator", ("passes/Simulate/",)),
    ("irpasses", ("passes/Instantiate/", "passes/Placement/")),
    ("drivers", ("passes/Train/", "passes/ServeJob/", "passes/Report/")),
    ("frontend", ("frontend/",)),
    ("codegen", ("codegen/",)),
    ("runtime", ("runtime/",)),
    ("tools", ("tools/", "bench/", "test/")),
]

BELOW_DRIVERS = {"spec", "foundation", "dialects", "planners", "lowering",
                 "simulator", "conversion", "irpasses"}
ALLOWED = {
    "spec": {"spec"},
    "foundation": {"spec", "foundation"},
    "dialects": {"spec", "dialects"},
    "planners": {"spec", "foundation", "planners"},
    "lowering": {"spec", "foundation", "lowering"},
    "conversion": {"spec", "foundation", "dialects", "conversion"},
    "simulator": {"spec", "foundation", "dialects", "conversion",
                  "simulator"},
    "irpasses": {"spec", "foundation", "dialects", "irpasses"},
    "drivers": BELOW_DRIVERS | {"drivers"},
    "frontend": {"spec", "dialects", "frontend"},
    "codegen": {"spec", "foundation", "dialects", "conversion", "simulator",
                "codegen"},
    "runtime": {"runtime"},
}
NO_MLIR = {"spec", "foundation", "planners", "lowering", "runtime"}
# The simulator's core is plain C++; only its pass adapter sees MLIR.
MLIR_ADAPTERS = ("passes/Simulate/SimulatePasses.cpp",
                 "passes/Simulate/Passes.h")


def component(path):
    for name, prefixes in COMPONENTS:
        if path.startswith(prefixes):
            return name
    return None


def violation(src, dep):
    """True when file `src` may not include `dep`."""
    mine = component(src)
    if mine is None or mine == "tools":
        return False
    if dep.startswith(("mlir/", "llvm/")):
        if src.startswith("passes/Simulate/"):
            return not src.startswith(MLIR_ADAPTERS)
        return mine in NO_MLIR
    theirs = component(dep)
    if theirs is None:
        return False  # generated .inc files, third-party and system headers
    return theirs not in ALLOWED[mine]


def selftest():
    """Each rule catches its case and passes the allowed ones."""
    cases = [
        ("runtime/Executor.cpp", "dialects/Common/ChipCatalog.h", True),
        ("runtime/Executor.cpp", "runtime/Tensor.h", False),
        ("passes/Cost/TransformerCost.cpp", "dialects/Plx/IR/PlxDialect.h",
         True),
        ("passes/Cost/TransformerCost.cpp", "dialects/Common/Chip.h", False),
        ("passes/Cost/TransformerCost.cpp", "mlir/IR/Builders.h", True),
        ("dialects/Common/JobRules.cpp", "passes/Cost/TransformerCost.h",
         True),
        ("dialects/Plx/IR/PlxOps.cpp", "dialects/Common/JobRules.h", False),
        ("dialects/Plx/IR/PlxOps.cpp", "passes/Cost/TransformerCost.h", True),
        ("dialects/Plx/IR/PlxOps.cpp", "passes/Lower/StepLowering.h", True),
        ("passes/Baselines/StepPlanners.h", "passes/Train/TrainJob.h", True),
        ("passes/Baselines/StepPlanners.h", "passes/Lower/StepLowering.h",
         True),
        ("passes/Baselines/StepPlanners.h",
         "passes/Simulate/EventSimulator.h", True),
        ("passes/Baselines/StepPlanners.h", "passes/StepModel/StepPlan.h",
         False),
        ("passes/Baselines/StepPlanners.h", "codegen/Cpp/EmitCpp.h", True),
        ("passes/Lower/StepLowering.cpp",
         "passes/DynamicPP/PipelineSchedule.h", True),
        ("passes/Lower/StepLowering.h", "passes/Simulate/EventSimulator.h",
         True),
        ("passes/Lower/StepLowering.h", "passes/Program/Program.h", False),
        ("passes/Simulate/EventSimulator.cpp", "mlir/IR/Builders.h", True),
        ("passes/Simulate/SimulatePasses.cpp", "mlir/IR/Builders.h", False),
        ("passes/Simulate/SimulatePasses.cpp",
         "passes/Program/RtPrograms.h", False),
        ("passes/Program/RtPrograms.cpp", "passes/Simulate/EventSimulator.h",
         True),
        ("codegen/Cpp/EmitCpp.cpp", "passes/AdaptiveSP/AdaptiveSp.h", True),
        ("codegen/Cpp/EmitCpp.cpp", "passes/Lower/StepLowering.h", True),
        ("codegen/Cpp/EmitCpp.cpp", "dialects/Rt/IR/RtDialect.h", False),
        ("frontend/Sema.cpp", "dialects/Common/JobRules.h", False),
        ("frontend/Sema.cpp", "passes/Cost/TransformerCost.h", True),
        ("passes/Train/TrainPipeline.cpp", "mlir/IR/Builders.h", False),
        ("passes/Train/TrainPipeline.cpp", "passes/Lower/StepLowering.h",
         False),
        ("passes/Train/TrainPipeline.cpp", "codegen/Report/SpecReport.h",
         True),
    ]
    bad = [c for c in cases if violation(c[0], c[1]) != c[2]]
    for src, dep, want in bad:
        print(f"selftest: {src} -> {dep}: expected violation={want}")
    print(f"{len(cases) - len(bad)} passed, {len(bad)} failed")
    return 1 if bad else 0


def main():
    if sys.argv[1] == "--selftest":
        return selftest()
    root = sys.argv[1]
    include = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]')
    bad, checked = [], 0
    for top in ("passes", "dialects", "frontend", "codegen", "runtime"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".cu", ".cuh")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
                if component(path) is None:
                    bad.append(f"{path}: belongs to no component")
                    continue
                checked += 1
                with open(os.path.join(root, path), encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        m = include.match(line)
                        if m and violation(path, m.group(1)):
                            bad.append(f"{path}:{n}: includes {m.group(1)}")
    for line in bad:
        print(line)
    failed = len({b.split(":")[0] for b in bad})
    print(f"{checked - failed} passed, {failed} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
