// CHECK: {{.*}}Inputs/bad-trajectories.jsonl:2:41: error: bad trajectory: not valid JSON (unexpected end of input; expected '}')
// CHECK-NEXT: {{^}}{"turns": [{"prompt": 100, "output": 20}]
// CHECK-NEXT: {{^}}                                        ^
// CHECK-NEXT: {{.*}}trajectories-bad-jsonl.plx:[[@LINE+10]]:23: note: the trajectories file is named here
// CHECK-NEXT: {{^}}  trajectories = file("Inputs/bad-trajectories.jsonl");
// CHECK-NEXT: {{^}}                      ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{.*}}Inputs/bad-trajectories.jsonl:3:1: error: bad trajectory: expected a JSON object with a non-empty "turns" list
// CHECK-NEXT: {{^}}{"turns": []}
// CHECK-NEXT: {{^}}^
// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A truncated JSONL line: reported at its line in the data file, with the
// column where the JSON breaks; an empty "turns" list is reported too.
workload w {
  trajectories = file("Inputs/bad-trajectories.jsonl");
  concurrency = 16;
}
// CHECK-NEXT: {{^}}2 errors generated.
