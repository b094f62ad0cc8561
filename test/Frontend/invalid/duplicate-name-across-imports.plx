// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A name clashing with an imported declaration: the note is in the other
// file.
import "Inputs/shared-model.plx";

model gpt {
// CHECK: {{.*}}duplicate-name-across-imports.plx:[[@LINE-1]]:7: error: duplicate name 'gpt'
// CHECK-NEXT: {{^}}model gpt {
// CHECK-NEXT: {{^}}      ^~~
// CHECK-NEXT: {{.*}}Inputs/shared-model.plx:2:7: note: previous declaration is here (model)
// CHECK-NEXT: {{^}}model gpt {
// CHECK-NEXT: {{^}}      ^~~
  layers = 2;
  hidden = 64;
  heads = 2;
  ffn = 128;
  vocab = 100;
}
// CHECK-NEXT: {{^}}1 error generated.
