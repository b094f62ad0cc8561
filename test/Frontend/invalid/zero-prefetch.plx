// RUN: not plxc %s 2>&1 | FileCheck --strict-whitespace %s
// zero_prefetch says how ZeRO-3 gathers weights (1: a layer ahead, 0: on
// demand): it is 0 or 1, and only a ZeRO-3 strategy gathers anything.
model m {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
dataset d {
  lengths = lognormal(mu = 8, sigma = 1);
}
fabric f {
  chip = H100;
  nodes = 4;
  chips_per_node = 8;
  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };
}
train zero_one {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    zero = 1;
    zero_prefetch = 0;
  }
}
train two_ahead {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    zero_prefetch = 2;
  }
}
train not_a_count {
  model = m;
  data = d;
  fabric = f;
  batch = 64;
  strategy {
    zero_prefetch = on_demand;
  }
}
// CHECK: {{.*}}zero-prefetch.plx:27:21: error: zero_prefetch says how ZeRO-3 gathers weights, but the strategy runs ZeRO-1, which gathers none
// CHECK-NEXT: {{^}}    zero_prefetch = 0;
// CHECK-NEXT: {{^}}                    ^
// CHECK-NEXT: {{.*}}zero-prefetch.plx:26:12: note: zero is set here
// CHECK-NEXT: {{^}}    zero = 1;
// CHECK-NEXT: {{^}}           ^
// CHECK-NEXT: {{.*}}zero-prefetch.plx:36:21: error: field 'zero_prefetch' must be at most 1, got 2
// CHECK-NEXT: {{^}}    zero_prefetch = 2;
// CHECK-NEXT: {{^}}                    ^
// CHECK-NEXT: {{.*}}zero-prefetch.plx:45:21: error: field 'zero_prefetch' expects a plain number (e.g. 32 or 384Ki), got 'on_demand'
// CHECK-NEXT: {{^}}    zero_prefetch = on_demand;
// CHECK-NEXT: {{^}}                    ^~~~~~~~~
// CHECK-NEXT: 3 errors generated.
