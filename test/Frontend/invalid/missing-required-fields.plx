// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// An empty model: one error that lists every missing field, not one
// error per field at the same place.
model m { }
// CHECK: {{.*}}missing-required-fields.plx:[[@LINE-1]]:7: error: model 'm' is missing required fields 'layers', 'hidden', 'heads', 'vocab' and 'ffn'
// CHECK-NEXT: {{^}}model m { }
// CHECK-NEXT: {{^}}      ^
// CHECK-NEXT: {{^}}1 error generated.
