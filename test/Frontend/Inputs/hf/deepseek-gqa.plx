// A DeepSeek-V3-shaped config without the MLA keys: the block states the
// attention itself, so the config needs none of them.
model m {
  hf = "deepseek-v3-no-mla.json";
  kv_heads = 8;
  head_dim = 128;
}
