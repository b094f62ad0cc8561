// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Names are unique across kinds; the note points at the first.
model gpt {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
dataset gpt {
// CHECK: {{.*}}duplicate-name.plx:[[@LINE-1]]:9: error: duplicate name 'gpt'
// CHECK-NEXT: {{^}}dataset gpt {
// CHECK-NEXT: {{^}}        ^~~
// CHECK-NEXT: {{.*}}duplicate-name.plx:[[@LINE-11]]:7: note: previous declaration is here (model)
// CHECK-NEXT: {{^}}model gpt {
// CHECK-NEXT: {{^}}      ^~~
  lengths = lognormal(mu = 8, sigma = 1);
}
// CHECK-NEXT: {{^}}1 error generated.
