// RUN: infc-opt %s -infc-shape-inference | FileCheck %s

// Regression: infc.cast (SameOperandsAndResultShape, no type inference) kept a placeholder
// `tensor<?x?xi32>` through -infc-shape-inference, and -convert-infc-to-linalg then emitted an
// invalid `tensor.empty() : tensor<?x?xi32>`. The pass now gives such ops their operand's
// shape.

// CHECK-LABEL: func @refine_cast
// CHECK-SAME: -> tensor<2x3xi32>
// CHECK: infc.cast %{{.*}} : tensor<2x3xf32> -> tensor<2x3xi32>
func.func @refine_cast(%a: tensor<2x3xf32>) -> tensor<?x?xi32> {
  %0 = infc.cast %a : tensor<2x3xf32> -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}
