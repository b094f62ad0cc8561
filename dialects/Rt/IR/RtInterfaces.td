//===- RtInterfaces.td - Interfaces of the rt dialect ------*- tablegen -*-===//
//
// Kept apart from RtOps.td: -gen-op-interface-decls only emits interfaces
// defined in its main file.
//
//===----------------------------------------------------------------------===//
#ifndef PLEXUS_RT_INTERFACES_TD
#define PLEXUS_RT_INTERFACES_TD

include "mlir/IR/OpBase.td"

def Rt_CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::plexus::rt";
  let description = [{
    A collective over a named communicator: the four collective ops share it
    so that passes (the rt verifier, the simulator, codegen) can treat them
    alike.
  }];
  let methods = [
    InterfaceMethod<"What the communicator is for (sp, tp, cp, zero, dp).",
                    "::plexus::rt::CommKind", "getKind">,
    InterfaceMethod<"The communicator's name: the symbol of its rt.group, "
                    "which holds its ranks in ring order.",
                    "::llvm::StringRef", "getComm">,
    InterfaceMethod<"The bytes of each rank's input buffer.",
                    "int64_t", "getBytes">,
  ];
}

#endif // PLEXUS_RT_INTERFACES_TD
