// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// max_len must hold at least the first prompt and its output.
workload w {
  synthetic = swe_bench { max_len = 4Ki; };
// CHECK: {{.*}}workload-first-turn-too-long.plx:[[@LINE-1]]:37: error: max_len (4096) cannot hold the first turn (8000 prompt + 600 output tokens)
// CHECK-NEXT: {{^}}  synthetic = swe_bench { max_len = 4Ki; };
// CHECK-NEXT: {{^}}                                    ^~~
}
// CHECK-NEXT: {{^}}1 error generated.
