// RUN: plxc %s --emit=ast | FileCheck %s
// The syntax tree after imports, one node a line with its location.

model m { layers = 2; hidden = 1Ki; }
// CHECK:      Declaration model m <{{.*}}plxc-emit-ast.plx:4:7>
// CHECK-NEXT:   Field layers = Quantity 2 <{{.*}}:4:20>
// CHECK-NEXT:   Field hidden = Quantity 1 Ki <{{.*}}:4:32>
