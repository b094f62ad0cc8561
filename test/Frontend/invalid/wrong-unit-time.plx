// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A size where a time is expected.
workload w {
  synthetic = swe_bench { tool_latency = 3 GB; };
// CHECK: {{.*}}wrong-unit-time.plx:[[@LINE-1]]:44: error: wrong unit: field 'tool_latency' expects a time (e.g. 2 s or 150 ms), got a size in bytes '3 GB'
// CHECK-NEXT: {{^}}  synthetic = swe_bench { tool_latency = 3 GB; };
// CHECK-NEXT: {{^}}                                           ^~
}
// CHECK-NEXT: {{^}}1 error generated.
