//===- PlxDialect.td - The plx (spec) dialect --------------*- tablegen -*-===//
#ifndef PLEXUS_PLX_DIALECT_TD
#define PLEXUS_PLX_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Plx_Dialect : Dialect {
  let name = "plx";
  let cppNamespace = "::plexus::plx";
  let summary = "The checked image of a .plx spec";
  let description = [{
    The `plx` dialect holds what a `.plx` file declares once the frontend has
    checked it: models, datasets, agent workloads, fabrics, and train and
    serve jobs. Every op is a symbol; jobs refer to the other declarations by
    symbol. Quantities are stored in base units (bytes, bytes/s, FLOP/s,
    seconds) whatever unit the source used. Each op carries the `.plx`
    file:line:col where it was declared as its location.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

// An i64 attribute read back as a signed int64_t (upstream I64Attr reads it
// zero-extended, which would hide negative values from the verifiers).
def Plx_I64Attr : TypedSignlessIntegerAttrBase<I64, "int64_t",
                                               "64-bit integer attribute"> {
  let convertFromStorage = "$_self.getValue().getSExtValue()";
}

class Plx_Op<string mnemonic, list<Trait> traits = []>
    : Op<Plx_Dialect, mnemonic, traits>;

class Plx_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Plx_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// A double parameter. Printed with the shortest form that reads back exactly.
def Plx_F64Param : AttrParameter<"::plexus::plx::Real", "a 64-bit float"> {
  let parser = "::plexus::plx::parseF64Param($_parser)";
  let printer = "::plexus::plx::printReal($_printer, $_self.value)";
}

// A boolean parameter spelled `true` / `false`.
def Plx_BoolParam : AttrParameter<"bool", "a boolean"> {
  let parser = "::plexus::plx::parseBoolParam($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
}

class Plx_DefaultF64<string value>
    : DefaultValuedParameter<"::plexus::plx::Real", value, "a 64-bit float"> {
  let parser = "::plexus::plx::parseF64Param($_parser)";
  let printer = "::plexus::plx::printReal($_printer, $_self.value)";
}

class Plx_DefaultBool<string value>
    : DefaultValuedParameter<"bool", value, "a boolean"> {
  let parser = "::plexus::plx::parseBoolParam($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
}

class Plx_DefaultI64<string value>
    : DefaultValuedParameter<"int64_t", value, "a 64-bit integer">;

#endif // PLEXUS_PLX_DIALECT_TD
