// Llama-3-8B-like (32 layers, hidden 4096, 32 heads, 8 KV heads, ffn 14336,
// vocab 128256) on 2 nodes x 8 H100 with a rail-optimized network (8 rails,
// radix-16 leaves). Everything fixed: Ulysses sp = 4 x Megatron tp = 2
// (sp * tp = 8 divides the 32 heads), ZeRO-1, full checkpointing, no memory
// limit: a hybrid SP x TP layout named sp4-tp2-cp1-pp1.

model llama3_8b {
  layers = 32; hidden = 4096; heads = 32; kv_heads = 8; ffn = 14336;
  vocab = 128256;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.0);
  clamp = 32Ki;
  overlong = truncate;
  padding = 16;
}

fabric h100_16_rails {
  chip = H100;
  nodes = 2;
  chips_per_node = 8;
  topology = rail_optimized { rails = 8; radix = 16; link = 400 Gb/s; };
}

train llama8b_sp4_tp2 {
  model = llama3_8b; data = docs; fabric = h100_16_rails;
  batch = 32; steps = 1; seed = 4;
  strategy { sp = 4; tp = 2; zero = 1; checkpoint = full; }
}
