//===- PlxEnums.td - Enumerations of the plx dialect -------*- tablegen -*-===//
#ifndef PLEXUS_PLX_ENUMS_TD
#define PLEXUS_PLX_ENUMS_TD

include "dialects/Plx/IR/PlxDialect.td"

def Plx_DType : I32EnumAttr<"DType", "element type of weights and activations", [
    I32EnumAttrCase<"bf16", 0>, I32EnumAttrCase<"fp16", 1>,
    I32EnumAttrCase<"fp8", 2>, I32EnumAttrCase<"fp32", 3>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_MlpKind : I32EnumAttr<"MlpKind", "MLP flavour", [
    I32EnumAttrCase<"swiglu", 0>, I32EnumAttrCase<"gelu", 1>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_Overlong : I32EnumAttr<"Overlong",
    "what happens to a sequence longer than the dataset's clamp", [
    I32EnumAttrCase<"drop", 0>, I32EnumAttrCase<"truncate", 1>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_IntraNode : I32EnumAttr<"IntraNode", "intra-node chip interconnect", [
    I32EnumAttrCase<"nvswitch", 0>, I32EnumAttrCase<"mesh", 1>,
    I32EnumAttrCase<"ring", 2>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_SpMode : I32EnumAttr<"SpMode", "how sequence parallelism is chosen", [
    I32EnumAttrCase<"static_", 0, "static">, I32EnumAttrCase<"adaptive", 1>,
    I32EnumAttrCase<"best_homogeneous", 2>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_PpMode : I32EnumAttr<"PpMode", "how pipeline parallelism is chosen", [
    I32EnumAttrCase<"static_", 0, "static">, I32EnumAttrCase<"dynamic", 1>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_Checkpoint : I32EnumAttr<"Checkpoint", "activation checkpointing", [
    I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"selective", 1>,
    I32EnumAttrCase<"full", 2>, I32EnumAttrCase<"adaptive", 3>,
    I32EnumAttrCase<"attention_mlp", 4>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

def Plx_AgentPreset : I32EnumAttr<"AgentPreset",
    "family of synthetic agent trajectories", [
    I32EnumAttrCase<"swe_bench", 0>, I32EnumAttrCase<"browsecomp", 1>,
    I32EnumAttrCase<"custom", 2>]> {
  let cppNamespace = "::plexus::plx";
  let genSpecializedAttr = 0;
}

class Plx_DefaultEnum<EnumAttrInfo info, string value> : EnumParameter<info> {
  let defaultValue = value;
}

#endif // PLEXUS_PLX_ENUMS_TD
