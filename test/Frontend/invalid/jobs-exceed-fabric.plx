// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// Jobs sharing a fabric get disjoint chips, so together they must fit it;
// one job cannot ask for more chips than the fabric has.
model m { layers = 4; hidden = 512; heads = 8; ffn = 2Ki; vocab = 32000; }
dataset d { lengths = lognormal(mu = 7.0, sigma = 1.2); }
fabric pod {
// CHECK-DAG: {{.*}}jobs-exceed-fabric.plx:[[@LINE-1]]:8: note: fabric 'pod' is declared here
  chip = H100;
  nodes = 4;
  chips_per_node = 4;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train a { model = m; data = d; fabric = pod; chips = 12; batch = 8; }
// CHECK-DAG: {{.*}}jobs-exceed-fabric.plx:[[@LINE-1]]:7: error: 2 jobs share fabric 'pod' and need 20 chips (a 12, b 8), but it has 16; give each job 'chips = N'
train b { model = m; data = d; fabric = pod; chips = 8; batch = 8; }

// RUN: printf 'model m { layers = 4; hidden = 512; heads = 8; ffn = 2Ki; vocab = 32000; }\ndataset d { lengths = lognormal(mu = 7.0, sigma = 1.2); }\nfabric pod { chip = H100; nodes = 4; chips_per_node = 4;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; }; }\ntrain a { model = m; data = d; fabric = pod; chips = 20; batch = 8; }\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck %s --check-prefix=ONE
// ONE: {{.*}}.plx:5:54: error: the job asks for 20 chips, but fabric 'pod' has 16
