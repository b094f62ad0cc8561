// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Names are ASCII.
model modèle {
// CHECK: {{.*}}non-ascii-name.plx:[[@LINE-1]]:10: error: unexpected character 'è' (U+00E8); names may only hold ASCII letters, digits and '_'
// CHECK-NEXT: {{^}}model modèle {
// CHECK-NEXT: {{^}}         ^
  layers = 32;
}
// CHECK-NEXT: {{^}}1 error generated.
