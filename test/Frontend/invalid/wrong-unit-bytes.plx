// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A bandwidth where a size is expected.
fabric f {
  chip = H100 { hbm = 80 GB/s; };
// CHECK: {{.*}}wrong-unit-bytes.plx:[[@LINE-1]]:26: error: wrong unit: field 'hbm' expects a size in bytes (e.g. 80 GB or 80 GiB), got a bandwidth '80 GB/s'
// CHECK-NEXT: {{^}}  chip = H100 { hbm = 80 GB/s; };
// CHECK-NEXT: {{^}}                         ^~~~
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
