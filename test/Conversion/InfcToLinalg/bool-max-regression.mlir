// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// Regression (fixed): max / reduce_max on i1 lower to arith.maxsi, a signed max in which true is -1:
// maxsi(true, false) = false. reduce_max also starts from `false` (lowestAttr's unsigned
// view), so a bool reduce_max is always false. For i1, max is `or` (maxui) and min is `and`
// (minui).

// CHECK-LABEL: func @bool_max
// CHECK-NOT: arith.maxsi
// CHECK: arith.{{ori|maxui}}
// CHECK: arith.{{ori|maxui}}
func.func @bool_max(%x: tensor<3xi1>, %y: tensor<3xi1>) -> (tensor<3xi1>, tensor<i1>) {
  %0 = infc.max %x, %y : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %1 = infc.reduce_max %x {axes = array<i64: 0>, keepdims = false} : (tensor<3xi1>) -> tensor<i1>
  return %0, %1 : tensor<3xi1>, tensor<i1>
}
