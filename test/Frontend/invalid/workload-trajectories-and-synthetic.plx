// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A workload is replayed or synthetic, not both.
workload w {
  trajectories = file("Inputs/bad-trajectories.jsonl");
  synthetic = swe_bench;
// CHECK: {{.*}}workload-trajectories-and-synthetic.plx:[[@LINE-1]]:3: error: conflicting fields: a workload is either 'trajectories' or 'synthetic', not both
// CHECK-NEXT: {{^}}  synthetic = swe_bench;
// CHECK-NEXT: {{^}}  ^~~~~~~~~
// CHECK-NEXT: {{.*}}workload-trajectories-and-synthetic.plx:[[@LINE-5]]:3: note: 'trajectories' is set here
// CHECK-NEXT: {{^}}  trajectories = file("Inputs/bad-trajectories.jsonl");
// CHECK-NEXT: {{^}}  ^~~~~~~~~~~~
  concurrency = 16;
}
// CHECK-NEXT: {{^}}1 error generated.
