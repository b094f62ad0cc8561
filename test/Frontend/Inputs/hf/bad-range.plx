// A model whose Hugging Face config has a value out of the language's range:
// the error points into the JSON file, with a note here.
model m {
  hf = "invalid/layers-too-many.json";
}
