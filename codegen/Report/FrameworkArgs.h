//===- FrameworkArgs.h - Plans as the frameworks' launch settings -*- C++
//-*-===//
//
// `plxc --emit=megatron|deepspeed|sglang|vllm`: each job's plan as the
// settings of the framework users train or serve with, read from plxc's JSON
// report (the plan chosen, its layout, the model, the batch): a Megatron-LM
// `torchrun ... pretrain_gpt.py` argument list, a DeepSpeed `ds_config.json`,
// an SGLang `sglang.launch_server` or a vLLM `vllm serve` command line. A
// plan the framework cannot express (FlexSP's mixed groups, DPP's chunks,
// ZeRO-3 in Megatron-LM, tensor or pipeline parallelism in plain DeepSpeed)
// gets a note that names what is missing, and the settings of the fastest
// expressible plan plxc judged (the report's "explored"). The flags and the
// versions they are read from: docs/frameworks.md.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_CODEGEN_REPORT_FRAMEWORKARGS_H
#define PLEXUS_CODEGEN_REPORT_FRAMEWORKARGS_H

#include <nlohmann/json.hpp>

#include <string>

namespace plexus::report {

enum class Framework { Megatron, DeepSpeed, SGLang, Vllm };

/// The launch settings of every job of `report` (specReportJson's object)
/// the framework runs: train jobs for Megatron-LM and DeepSpeed, serve jobs
/// for SGLang and vLLM; the others are named in a note. Shell text (notes
/// as `#` comments); for DeepSpeed, each job's ds_config.json as JSON after
/// its comments. `source` names the spec in the header.
std::string frameworkLaunch(const nlohmann::ordered_json &report,
                            Framework framework, const std::string &source);

} // namespace plexus::report

#endif // PLEXUS_CODEGEN_REPORT_FRAMEWORKARGS_H
