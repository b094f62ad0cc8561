// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// A chip not in the catalog, with a suggestion.
fabric f {
  chip = H10;
// CHECK: {{.*}}unknown-chip.plx:[[@LINE-1]]:10: error: unknown chip 'H10'; did you mean 'H100'? (known chips: A100_40GB, A100_80GB, A800, H100, H800, H200, GH200, B200, CPU, or 'custom')
// CHECK-NEXT: {{^}}  chip = H10;
// CHECK-NEXT: {{^}}         ^~~
  nodes = 1;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
// CHECK-NEXT: {{^}}1 error generated.
