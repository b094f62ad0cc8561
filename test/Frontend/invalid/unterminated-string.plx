// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A string runs to the end of its line.
dataset d {
  lengths = file("lengths.txt);
// CHECK: {{.*}}unterminated-string.plx:[[@LINE-1]]:18: error: unterminated string: a string must end on the line where it starts
// CHECK-NEXT: {{^}}  lengths = file("lengths.txt);
// CHECK-NEXT: {{^}}                 ^~~~~~~~~~~~~~
}
// CHECK-NEXT: {{^}}1 error generated.
