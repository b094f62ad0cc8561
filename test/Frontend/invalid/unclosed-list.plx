// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A list left open at the end of a line: the error points after its last
// element, not at the next line.
dataset d {
  lengths = histogram(bounds = [2Ki, 8Ki
// CHECK: {{.*}}unclosed-list.plx:[[@LINE-1]]:41: error: expected ',' or ']' after '8Ki'
// CHECK-NEXT: {{^}}  lengths = histogram(bounds = [2Ki, 8Ki
// CHECK-NEXT: {{^}}                                        ^
                      weights = [1, 1]);
}
// CHECK-NEXT: {{^}}1 error generated.
