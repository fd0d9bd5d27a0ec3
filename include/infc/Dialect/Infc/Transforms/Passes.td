//===- Passes.td - infc graph-level passes ----------------------*- tablegen -*-===//
#ifndef INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD
#define INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InfcShapeInference : Pass<"infc-shape-inference", "mlir::func::FuncOp"> {
  let summary = "Refine result types from operand types through each op's type inference";
  let description = [{
    Walks the function in order and replaces every result type that its op can infer more
    precisely (ranked from unranked, static from dynamic dims); then updates the function's
    signature to the refined return types. Ops written with a placeholder result type (for
    example by hand in a test) end up with the same types the importer would give them.
  }];
  let dependentDialects = ["infc::InfcDialect"];
}

#endif // INFC_DIALECT_INFC_TRANSFORMS_PASSES_TD
