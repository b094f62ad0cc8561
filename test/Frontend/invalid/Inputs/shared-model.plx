// A model imported by duplicate-name-across-imports.plx.
model gpt {
  layers = 32;
  hidden = 4096;
  heads = 32;
  ffn = 11008;
  vocab = 32000;
}
