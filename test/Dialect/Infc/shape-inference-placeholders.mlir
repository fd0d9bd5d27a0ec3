// RUN: infc-opt %s -infc-shape-inference | FileCheck %s

// Regression: the ops once demanded exactly the inferred result type, so the verifier
// rejected a placeholder `tensor<?x?xf32>` ("inferred type(s) 'tensor<2x3xf32>' are
// incompatible with return type(s) of operation 'tensor<?x?xf32>'") before the pass could
// refine it. A result may now leave inferred dims as `?` (InferTypeOpAdaptorWithIsCompatible);
// claiming a size the inference does not give stays an error (invalid.mlir).

// CHECK-LABEL: func @refine
// CHECK-SAME: -> tensor<2x4xf32>
// CHECK: infc.add {{.*}} -> tensor<2x3xf32>
// CHECK: infc.matmul {{.*}} -> tensor<2x4xf32>
func.func @refine(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %w: tensor<3x4xf32>) -> tensor<?x?xf32> {
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = infc.matmul %0, %w : (tensor<?x?xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
