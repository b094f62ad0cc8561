// A binary lengths file (a wrong path, a compressed file) gets one error at
// the file(...) that names it, not bad-line errors full of binary bytes.
// RUN: rm -rf %t && mkdir -p %t
// RUN: printf '4096\n8192\n\037\213\010\000\n' > %t/lengths.gz
// RUN: printf 'dataset d {\n  lengths = file("lengths.gz");\n}\n' > %t/spec.plx
// RUN: not plxc %t/spec.plx 2>&1 | FileCheck --strict-whitespace %s
// CHECK: {{.*}}spec.plx:2:18: error: lengths file '{{.*}}lengths.gz' is not text: invalid UTF-8 at line 3, column 2
// CHECK-NEXT: {{^}}  lengths = file("lengths.gz");
// CHECK-NEXT: {{^}}                 ^~~~~~~~~~~~
// CHECK-NEXT: {{^}}1 error generated.

// The same for a trajectories file with a NUL byte.
// RUN: printf '{"turns": [1]}\n{"turns": [\000]}\n' > %t/tasks.jsonl
// RUN: printf 'workload w {\n  trajectories = file("tasks.jsonl");\n  concurrency = 4;\n}\n' > %t/serve.plx
// RUN: not plxc %t/serve.plx 2>&1 | FileCheck --strict-whitespace %s --check-prefix=NUL
// NUL: {{.*}}serve.plx:2:23: error: trajectories file '{{.*}}tasks.jsonl' is not text: a NUL byte at line 2, column 12
