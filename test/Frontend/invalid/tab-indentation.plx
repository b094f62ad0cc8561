// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A tab counts as one column, and the caret line keeps the tabs so that it
// lines up in any terminal.
model m {
	layers = 32;
	hidden = 4096;
	heads = 32;
	ffn = 11008;
	vocab = 32000;
	dtype = bf17;
// CHECK: {{.*}}tab-indentation.plx:[[@LINE-1]]:10: error: field 'dtype' expects one of 'bf16', 'fp16', 'fp8', 'fp32', got 'bf17'; did you mean 'bf16'?
// CHECK-NEXT: {{^}}	dtype = bf17;
// CHECK-NEXT: {{^}}	        ^~~~
}
// CHECK-NEXT: {{^}}1 error generated.
