// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A custom workload spells out every figure.
workload w {
  synthetic = custom {
// CHECK: {{.*}}custom-workload-missing-fields.plx:[[@LINE-1]]:15: error: synthetic workload 'custom' is missing required fields 'prompt', 'new_tokens', 'output_tokens', 'tool_latency' and 'max_len'
// CHECK-NEXT: {{^}}  synthetic = custom {
// CHECK-NEXT: {{^}}              ^~~~~~
    tasks = 100;
    turns = 10;
  };
  concurrency = 8;
}
// CHECK-NEXT: {{^}}1 error generated.
