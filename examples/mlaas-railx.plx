// Two jobs of different shapes on one RailX fabric (the MLaaS case): each
// takes the chips it asks for, and placement gives them disjoint chips,
// keeps SP all-to-all groups inside a node or a row's one-hop reach, runs
// data-parallel rings along the rails' Hamiltonian cycles, and avoids the
// failed chip.
//   plxc examples/mlaas-railx.plx --emit=plan

model llama8b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;
  vocab = 128256;
}

model tiny {
  layers = 4; hidden = 512; heads = 8; ffn = 2Ki; vocab = 32000;
}

dataset docs {
  lengths = lognormal(mu = 7.0, sigma = 1.2);
  clamp = 32Ki;
}

fabric pod {
  chip = H100;
  nodes = 15;
  chips_per_node = 4;
  topology = railx { rows = 3; cols = 5; rails = 2; link = 800 Gb/s; };
  failed = [chip(0, 3)];
}

train big {
  model = llama8b; data = docs; fabric = pod;
  chips = 32;
  batch = 256; seed = 1;
  strategy { sp = 4; zero = 3; checkpoint = selective; }
}

// The small job fixes a 2-stage pipeline of SP 2 at ZeRO-1, to show how a
// pipeline is placed across RailX nodes. On 8 chips of a 4-layer model
// that is not the fastest layout: the report names the faster baselines
// the fixed strategy rules out (static-sp-2 at ZeRO-3, megatron-tp2-cp1)
// with their ratios and the settings they change.
train small {
  model = tiny; data = docs; fabric = pod;
  chips = 8;
  batch = 64; seed = 2;
  strategy { sp = 2; pp = 2; zero = 1; }
}
