// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A lengths "file" that is a directory.
dataset d {
  lengths = file("Inputs");
// CHECK: {{.*}}lengths-file-is-a-directory.plx:[[@LINE-1]]:18: error: cannot read lengths file '{{.*}}Inputs': it is a directory
// CHECK-NEXT: {{^}}  lengths = file("Inputs");
// CHECK-NEXT: {{^}}                 ^~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
