//===- InfcDialect.td - the infc graph dialect ------------------*- tablegen -*-===//
#ifndef INFC_DIALECT_INFC_IR_INFCDIALECT_TD
#define INFC_DIALECT_INFC_IR_INFCDIALECT_TD

include "mlir/IR/OpBase.td"

def Infc_Dialect : Dialect {
  let name = "infc";
  let summary = "Graph-level ops of the infc model compiler";
  let description = [{
    Tensor-semantics ops, one per semantic (not one per ONNX op). The ONNX importer resolves
    opset differences, attribute defaults and value-dependent shapes, so every op here has
    static attributes and a statically shaped result that its type inference can recompute.
  }];
  let cppNamespace = "::infc";
  let hasConstantMaterializer = 1;
}

class Infc_Op<string mnemonic, list<Trait> traits = []>
    : Op<Infc_Dialect, mnemonic, traits>;

#endif // INFC_DIALECT_INFC_IR_INFCDIALECT_TD
