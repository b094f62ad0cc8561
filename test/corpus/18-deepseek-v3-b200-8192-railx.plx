// DeepSeek-V3-like MoE: 61 layers, the first 3 dense (ffn 18432), 256 routed
// experts of width 2048 with top-8 routing and 1 shared expert, hidden 7168,
// 128 heads of 128 (MLA approximated as MHA), one MTP layer, vocab 129280:
// about 671 B parameters. 1,024 nodes x 8 B200 = 8,192 chips on a 32 x 32
// RailX grid with 8 rails per dimension. Free SP (sp = adaptive) with
// full checkpointing fixed, ZeRO-3 (an expert layer of
// 11 B parameters needs ZeRO-3 over thousands of chips without EP). The
// second large spec: 8,192 ranks are more than plxc's default
// --max-simulated-ranks (4,096), so the job is reported "not_planned".

model deepseek_v3 {
  layers = 61; dense_layers = 3; hidden = 7168; heads = 128; head_dim = 128;
  ffn = 18432; experts = 256; top_k = 8; shared_experts = 1; moe_ffn = 2048;
  mtp_layers = 1; vocab = 129280;
}

dataset docs {
  lengths = lognormal(mu = 8.0, sigma = 1.0);
  clamp = 32Ki;
  overlong = truncate;
  padding = 64;
}

fabric b200_railx_8k {
  chip = B200;
  nodes = 1024;
  chips_per_node = 8;
  topology = railx { rows = 32; cols = 32; rails = 8; link = 800 Gb/s; };
}

train deepseek_v3_flexsp {
  model = deepseek_v3; data = docs; fabric = b200_railx_8k;
  batch = 1Ki; steps = 1; seed = 18;
  strategy { sp = adaptive; zero = 3; checkpoint = full; }
}
