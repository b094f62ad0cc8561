// RUN: not plxc %s 2>&1 | FileCheck %s --strict-whitespace
// A fabric's prices block: units, ranges, speed classes (docs/language.md,
// "prices"). Every field gets its error, in source order.
fabric rx {
  chip = H100;
  nodes = 9;
  chips_per_node = 8;
  topology = railx { rows = 3; cols = 3; rails = 1; link = 800 Gb/s; };
  prices {
    switch = 800 USD;
// CHECK: {{.*}}prices-entries.plx:[[@LINE-1]]:5: error: unknown field 'switch' in prices of fabric 'rx'
    ocs_port = 300 GB;
// CHECK: {{.*}}prices-entries.plx:[[@LINE-1]]:20: error: wrong unit: field 'ocs_port' expects a price (e.g. 600 USD), got a size in bytes '300 GB'
    ocs_radix = 1;
// CHECK: {{.*}}prices-entries.plx:[[@LINE-1]]:17: error: field 'ocs_radix' must be at least 2, got 1
    fibre = -5 USD;
// CHECK: {{.*}}prices-entries.plx:[[@LINE-1]]:13: error: field 'fibre' must be at least 0 USD, got -5 USD
    speeds = [speed(800 Gb/s, transceiver = 600), speed(800 Gb/s, nic = 5 USD), speed(200 Gb/s, transceiver = 90 USD), disk(3), speed(400 Gb/s, transciever = 3 USD, 7, switch_radix = 1), speed(transceiver = 1 USD)];
// CHECK: {{.*}}prices-entries.plx:[[@LINE-1]]:45: error: 'transceiver' of speed(...) needs a unit: a price (e.g. 600 USD), got '600'
// CHECK: {{.*}}prices-entries.plx:[[@LINE-2]]:51: error: speed class 800 Gb/s is given twice
// CHECK: {{.*}}prices-entries.plx:[[@LINE-3]]:81: error: speed class 200 Gb/s has no default prices (the defaults are 400 Gb/s, 800 Gb/s, 1600 Gb/s): give switch_port, switch_radix
// CHECK: {{.*}}prices-entries.plx:[[@LINE-4]]:120: error: a speed class is speed(<line rate>, transceiver = ..., switch_port = ..., switch_radix = ..., nic = ...), got 'disk(...)'
// CHECK: {{.*}}prices-entries.plx:[[@LINE-5]]:145: error: unknown argument 'transciever' of speed(...); did you mean 'transceiver'? (known: transceiver, switch_port, switch_radix, nic)
// CHECK: {{.*}}prices-entries.plx:[[@LINE-6]]:166: error: after the line rate, the arguments of speed(...) are named: transceiver, switch_port, switch_radix, nic
// CHECK: {{.*}}prices-entries.plx:[[@LINE-7]]:184: error: 'switch_radix' of speed(...) must be at least 2, got 1
// CHECK: {{.*}}prices-entries.plx:[[@LINE-8]]:188: error: a speed class is speed(<line rate>, transceiver = ..., switch_port = ..., switch_radix = ..., nic = ...), got 'speed(...)'
// CHECK: 12 errors generated.
  }
}

// The prices field is a block, and speeds a list.
// RUN: printf 'fabric f {\n  chip = H100; nodes = 2; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n  prices = 300 USD;\n}\n' > %t.plx
// RUN: not plxc %t.plx 2>&1 | FileCheck %s --check-prefix=BLOCK
// BLOCK: {{.*}}.plx:4:12: error: field 'prices' expects a block such as prices { ocs_port = 300 USD; }, got '300 USD'
// RUN: printf 'fabric f {\n  chip = H100; nodes = 2; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n  prices { speeds = speed(400 Gb/s); }\n}\n' > %t2.plx
// RUN: not plxc %t2.plx 2>&1 | FileCheck %s --check-prefix=LIST
// LIST: {{.*}}.plx:4:21: error: field 'speeds' expects a list such as [speed(800 Gb/s, transceiver = 600 USD)], got 'speed(...)'
// A unit that is close to USD gets a suggestion.
// RUN: printf 'fabric f {\n  chip = H100; nodes = 2; chips_per_node = 8;\n  topology = fat_tree { radix = 8; tiers = 2; link = 400 Gb/s; };\n  prices { fibre = 40 usd; }\n}\n' > %t3.plx
// RUN: not plxc %t3.plx 2>&1 | FileCheck %s --check-prefix=UNIT
// UNIT: {{.*}}.plx:4:23: error: unknown unit 'usd'; did you mean 'USD'?
