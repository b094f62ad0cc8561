// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A lengths file that does not exist; the path is resolved against this
// file's directory.
dataset d {
  lengths = file("Inputs/no-such-lengths.txt");
// CHECK: {{.*}}unreadable-lengths-file.plx:[[@LINE-1]]:18: error: cannot read lengths file '{{.*}}Inputs/no-such-lengths.txt': No such file or directory
// CHECK-NEXT: {{^}}  lengths = file("Inputs/no-such-lengths.txt");
// CHECK-NEXT: {{^}}                 ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
