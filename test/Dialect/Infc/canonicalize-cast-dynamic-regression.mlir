// RUN: infc-opt %s -canonicalize | infc-opt | FileCheck %s

// Regression (fixed): infc.cast accepts a result with dynamic dims (SameOperandsAndResultShape only asks for
// compatible shapes), and CastOp::fold on a constant operand then builds a DenseElementsAttr of
// the dynamic result type: `infc.constant dense<> : tensor<?xi32>`, which the parser rejects
// ("elements literal type must have static shape"). A folder cannot produce a constant of a
// dynamic type, so it must not fold here (or the verifier must reject the dynamic result).

// CHECK-LABEL: func @cast_constant_to_dynamic
// CHECK: infc.cast %{{.*}} : tensor<2xf32> -> tensor<?xi32>
func.func @cast_constant_to_dynamic() -> tensor<?xi32> {
  %c = infc.constant dense<[1.5, -2.5]> : tensor<2xf32>
  %0 = infc.cast %c : tensor<2xf32> -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
