#!/usr/bin/env python3
"""Fails on an include that points up the layers (DESIGN.md, "Layout").

Usage: check-layering.py SOURCE_DIR

The layers, lowest first; a file may include its own layer and those below:
  foundation  passes/{Cost,Fabric,Solver}        no dialect, planner, IR
  dialects    dialects/                          may use the foundation
  planners    passes/{AdaptiveSP,DynamicPP,Checkpoint,Serving,Baselines,
              Instantiate,Placement,Lower,Simulate}
  drivers     passes/{Train,ServeJob}, frontend/ the pipelines over IR
  codegen     codegen/                           never re-plans
  tools       tools/, bench/, test/
The runtime (runtime/) includes nothing of the compiler. Specific rules
beyond the order: dialects include no passes but the foundation; codegen
includes no planner (it reads plans, it does not make them).
Prints one line per violation and `N passed, M failed` (files checked).
"""
import os
import re
import sys

FOUNDATION = ("passes/Cost/", "passes/Fabric/", "passes/Solver/")
PLANNERS = ("passes/AdaptiveSP/", "passes/DynamicPP/", "passes/Checkpoint/",
            "passes/Serving/", "passes/Baselines/", "passes/Instantiate/",
            "passes/Placement/", "passes/Lower/", "passes/Simulate/")
DRIVERS = ("passes/Train/", "passes/ServeJob/", "frontend/")
COMPILER = ("passes/", "dialects/", "frontend/", "codegen/", "tools/")


def layer(path):
    if path.startswith("runtime/"):
        return "runtime"
    if path.startswith(FOUNDATION):
        return 0
    if path.startswith("dialects/"):
        return 1
    if path.startswith(PLANNERS):
        return 2
    if path.startswith(DRIVERS):
        return 3
    if path.startswith("codegen/"):
        return 4
    return 5


def violation(src, dep):
    if not dep.startswith(COMPILER + ("runtime/",)):
        return False  # MLIR, LLVM, generated and third-party headers
    if layer(src) == "runtime":
        return dep.startswith(COMPILER)
    if layer(dep) == "runtime":
        return False  # codegen and tools may name the runtime
    if src.startswith(FOUNDATION) and not dep.startswith(FOUNDATION):
        return dep.startswith(COMPILER)
    if src.startswith("dialects/") and dep.startswith("passes/"):
        return not dep.startswith(FOUNDATION)
    if src.startswith("codegen/") and dep.startswith(PLANNERS[:5]):
        return True
    return layer(dep) > layer(src)


def selftest():
    """Each rule catches its case and passes the allowed ones."""
    cases = [
        ("runtime/Executor.cpp", "passes/Cost/ChipCatalog.h", True),
        ("runtime/Executor.cpp", "runtime/Tensor.h", False),
        ("passes/Cost/JobRules.cpp", "dialects/Plx/IR/PlxDialect.h", True),
        ("passes/Cost/JobRules.cpp", "passes/Fabric/Chip.h", False),
        ("dialects/Plx/IR/PlxOps.cpp", "passes/Cost/JobRules.h", False),
        ("dialects/Plx/IR/PlxOps.cpp", "passes/Lower/StepLowering.h", True),
        ("passes/Baselines/StepPlanners.h", "passes/Train/TrainJob.h", True),
        ("passes/Baselines/StepPlanners.h", "codegen/Cpp/EmitCpp.h", True),
        ("codegen/Cpp/EmitCpp.cpp", "passes/AdaptiveSP/AdaptiveSp.h", True),
        ("codegen/Cpp/EmitCpp.cpp", "dialects/Rt/IR/RtDialect.h", False),
        ("passes/Train/TrainPipeline.cpp", "mlir/IR/Builders.h", False),
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
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    bad, checked = [], 0
    for top in ("passes", "dialects", "frontend", "codegen", "runtime"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".cu", ".cuh")):
                    continue
                path = os.path.relpath(os.path.join(dirpath, name), root)
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
