// CHECK: {{.*}}Inputs/bad-lengths.txt:4:1: error: expected a positive token count, got '12x'
// CHECK-NEXT: {{^}}12x
// CHECK-NEXT: {{^}}^~~
// CHECK-NEXT: {{.*}}lengths-file-bad-line.plx:[[@LINE+10]]:18: note: the lengths file is named here
// CHECK-NEXT: {{^}}  lengths = file("Inputs/bad-lengths.txt");
// CHECK-NEXT: {{^}}                 ^~~~~~~~~~~~~~~~~~~~~~~~
// CHECK-NEXT: {{.*}}Inputs/bad-lengths.txt:5:1: error: expected a positive token count, got '-5'
// CHECK-NEXT: {{^}}-5
// CHECK-NEXT: {{^}}^~
// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Bad lines are reported in the data file itself, at their own line and
// column; a note leads back here.
dataset d {
  lengths = file("Inputs/bad-lengths.txt");
}
// CHECK-NEXT: {{^}}2 errors generated.
