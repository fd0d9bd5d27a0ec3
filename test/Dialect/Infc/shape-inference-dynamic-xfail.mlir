// XFAIL: *
// RUN: infc-opt %s -infc-shape-inference | FileCheck %s

// BUG: -infc-shape-inference exists to refine placeholder result types (its description:
// "Ops written with a placeholder result type ... end up with the same types the importer
// would give them"), but the ops it refines (InferTypeOpAdaptor) use the default
// isCompatibleReturnTypes, which demands the inferred type exactly: verification rejects
// `tensor<?x?xf32>` here ("inferred type(s) 'tensor<2x3xf32>' are incompatible with return
// type(s) of operation 'tensor<?x?xf32>'") before the pass can run. The ops should accept
// compatible (less static) result types, e.g. via InferTypeOpAdaptorWithIsCompatible.
// shape-inference.mlir tests the pass itself with the parser's verifier off.

// CHECK-LABEL: func @refine
// CHECK-SAME: -> tensor<2x4xf32>
// CHECK: infc.add {{.*}} -> tensor<2x3xf32>
// CHECK: infc.matmul {{.*}} -> tensor<2x4xf32>
func.func @refine(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x4xf32>) -> tensor<?x?xf32> {
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = infc.matmul %0, %w : (tensor<?x?xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
