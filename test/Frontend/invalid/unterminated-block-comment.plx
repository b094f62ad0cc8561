// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
/* A block comment that is never closed swallows the rest of the file;
// CHECK: {{.*}}unterminated-block-comment.plx:[[@LINE-1]]:1: error: unterminated comment: '/*' without '{{[*]}}/'
// CHECK-NEXT: {{^}}/* A block comment that is never closed swallows the rest of the file;
// CHECK-NEXT: {{^}}^~
   nothing after it may be reported as a syntax error of its own.
model m {
  layers = ;
}
// CHECK-NEXT: {{^}}1 error generated.
