// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// Integer pow: squaring over the exponent's bits in an scf.for inside the generic body; a
// negative signed exponent gives 0.

// CHECK-LABEL: func @pow_i32
// CHECK: linalg.generic
// CHECK: %[[L:.*]]:3 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK: arith.muli
// CHECK: arith.shrui
// CHECK: %[[NEG:.*]] = arith.cmpi slt
// CHECK: arith.select %[[NEG]], %{{.*}}, %[[L]]#0 : i32
func.func @pow_i32(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %0 = infc.pow %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
