// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A size where a bandwidth is expected: 900 GB is not 900 GB/s.
fabric f {
  chip = H100;
  nodes = 1;
  chips_per_node = 8;
  intra_node_bw = 900 GB;
// CHECK: {{.*}}wrong-unit-bandwidth.plx:[[@LINE-1]]:23: error: wrong unit: field 'intra_node_bw' expects a bandwidth (e.g. 900 GB/s or 400 Gb/s), got a size in bytes '900 GB'
// CHECK-NEXT: {{^}}  intra_node_bw = 900 GB;
// CHECK-NEXT: {{^}}                      ^~
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
