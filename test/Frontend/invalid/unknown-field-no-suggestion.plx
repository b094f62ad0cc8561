// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Nothing close: no guess.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  colour = 3;
// CHECK: {{.*}}unknown-field-no-suggestion.plx:[[@LINE-1]]:3: error: unknown field 'colour' in model 'm'
// CHECK-NEXT: {{^}}  colour = 3;
// CHECK-NEXT: {{^}}  ^~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
