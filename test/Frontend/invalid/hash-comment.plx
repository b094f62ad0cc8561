// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// '#' is not a comment; say what is.
# a comment from another language
// CHECK: {{.*}}hash-comment.plx:[[@LINE-1]]:1: error: unexpected character '#'; comments start with '//'
// CHECK-NEXT: {{^}}# a comment from another language
// CHECK-NEXT: {{^}}^
model m {
  layers = 32;
}
// CHECK-NEXT: {{^}}1 error generated.
