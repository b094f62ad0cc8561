// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Parameters beyond what the cost arithmetic supports.
model m {
// CHECK: {{.*}}model-too-large.plx:[[@LINE-1]]:7: error: the model has 2.81e+19 parameters; at most 1e+15 are supported
// CHECK-NEXT: {{^}}model m {
// CHECK-NEXT: {{^}}      ^
  layers = 100000;
  hidden = 4194304;
  heads = 32;
  ffn = 16777216;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
