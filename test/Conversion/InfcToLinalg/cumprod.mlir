// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// cumprod shares cumsum's loop nest: the previous result row times one input row; an
// exclusive product starts from 1.

// CHECK-LABEL: func @cumprod_exclusive
// CHECK: scf.for
// CHECK: %[[ONE:.*]] = arith.constant 1 : i32
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.select %{{.*}}, %[[ONE]], %[[P]] : i32
func.func @cumprod_exclusive(%x: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = infc.cumprod %x {axis = 1 : i64, exclusive = true, reverse = false} : tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}
