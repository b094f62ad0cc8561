// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// dims is a list.
fabric f {
  chip = H100;
  nodes = 16;
  chips_per_node = 8;
  topology = torus { dims = 16; link = 400 Gb/s; };
// CHECK: {{.*}}torus-dims-not-a-list.plx:[[@LINE-1]]:29: error: field 'dims' expects a list such as [4, 4, 4], got '16'
// CHECK-NEXT: {{^}}  topology = torus { dims = 16; link = 400 Gb/s; };
// CHECK-NEXT: {{^}}                            ^~
}
// CHECK-NEXT: {{^}}1 error generated.
