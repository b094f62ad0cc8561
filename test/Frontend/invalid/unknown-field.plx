// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A misspelt field, with a suggestion; 'layers' is then not also reported
// as missing.
model m {
  layer = 32;
// CHECK: {{.*}}unknown-field.plx:[[@LINE-1]]:3: error: unknown field 'layer' in model 'm'; did you mean 'layers'?
// CHECK-NEXT: {{^}}  layer = 32;
// CHECK-NEXT: {{^}}  ^~~~~
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
// CHECK-NEXT: {{^}}1 error generated.
