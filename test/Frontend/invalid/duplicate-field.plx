// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A field set twice; the note points at the first.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
  layers = 40;
// CHECK: {{.*}}duplicate-field.plx:[[@LINE-1]]:3: error: duplicate field 'layers' in model 'm'
// CHECK-NEXT: {{^}}  layers = 40;
// CHECK-NEXT: {{^}}  ^~~~~~
// CHECK-NEXT: {{.*}}duplicate-field.plx:[[@LINE-9]]:3: note: first set here
// CHECK-NEXT: {{^}}  layers = 32;
// CHECK-NEXT: {{^}}  ^~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
