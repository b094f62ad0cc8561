// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// JSON/YAML habits: fields are set with '='.
model m {
  layers: 32;
// CHECK: {{.*}}colon-instead-of-equals.plx:[[@LINE-1]]:9: error: unexpected character ':'; fields are set with '=', as in 'layers = 32;'
// CHECK-NEXT: {{^}}  layers: 32;
// CHECK-NEXT: {{^}}        ^
}
// CHECK-NEXT: {{^}}1 error generated.
