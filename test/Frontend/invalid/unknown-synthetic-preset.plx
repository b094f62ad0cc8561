// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt preset.
workload w {
  synthetic = swe_bnech;
// CHECK: {{.*}}unknown-synthetic-preset.plx:[[@LINE-1]]:15: error: field 'synthetic' expects a preset 'swe_bench', 'browsecomp', 'custom' with an optional { ... } block, got 'swe_bnech'; did you mean 'swe_bench'?
// CHECK-NEXT: {{^}}  synthetic = swe_bnech;
// CHECK-NEXT: {{^}}              ^~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
