// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt keyword value, with a suggestion.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  mlp = swiglue;
// CHECK: {{.*}}unknown-keyword-value.plx:[[@LINE-1]]:9: error: field 'mlp' expects one of 'swiglu', 'gelu', got 'swiglue'; did you mean 'swiglu'?
// CHECK-NEXT: {{^}}  mlp = swiglue;
// CHECK-NEXT: {{^}}        ^~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
