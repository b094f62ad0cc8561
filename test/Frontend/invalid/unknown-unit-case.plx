// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// Units are case-sensitive; the one spelling that differs only in case is
// suggested.
fabric f {
  chip = custom {
    bf16 = 100 TFLOPS;
    hbm = 80 gib;
// CHECK: {{.*}}unknown-unit-case.plx:[[@LINE-1]]:14: error: unknown unit 'gib'; did you mean 'GiB'?
// CHECK-NEXT: {{^}}    hbm = 80 gib;
// CHECK-NEXT: {{^}}             ^~~
    hbm_bw = 2 TB/s;
  };
  nodes = 1;
  chips_per_node = 1;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
