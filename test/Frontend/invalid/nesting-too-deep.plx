// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Nesting beyond 64 levels is refused before the parser, which recurses
// once per level, could exhaust the stack.
model m {
  layers = [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]];
// CHECK: {{.*}}nesting-too-deep.plx:[[@LINE-1]]:75: error: nesting deeper than 64 levels
// CHECK-NEXT: {{^}}  layers = {{.*}};
// CHECK-NEXT: {{^}}                                                                          ^
// CHECK-NEXT: {{^}}1 error generated.
}
