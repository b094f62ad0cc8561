// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A keyword written as a string.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  dtype = "bf16";
// CHECK: {{.*}}wrong-value-kind.plx:[[@LINE-1]]:11: error: field 'dtype' expects one of 'bf16', 'fp16', 'fp8', 'fp32', got the string "bf16"
// CHECK-NEXT: {{^}}  dtype = "bf16";
// CHECK-NEXT: {{^}}          ^~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
