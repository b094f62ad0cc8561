// CHECK: {{.*}}Inputs/broken.plx:3:14: error: expected ';' after '32'
// CHECK-NEXT: {{^}}  layers = 32
// CHECK-NEXT: {{^}}             ^
// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A syntax error in an imported file is reported where it is.
import "Inputs/broken.plx";
// CHECK-NEXT: {{^}}1 error generated.
