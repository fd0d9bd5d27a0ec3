// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// f16 and bf16 compute in f32, as ORT's CPU kernels do: elementwise bodies widen their
// operands and round the result back once; reductions, softmax and layer_norm widen the
// whole tensor first.

// CHECK-LABEL: func @half_elementwise
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[WX:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[WY:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.remf %[[WX]], %[[WY]] : f32
// CHECK-NEXT: %[[R:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[R]] : f16
func.func @half_elementwise(%a: tensor<4xf16>, %b: tensor<4xf16>) -> tensor<4xf16> {
  %0 = infc.rem %a, %b : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// A comparison widens its operands and yields i1 unchanged.
// CHECK-LABEL: func @bf16_compare
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: %[[C:.*]] = arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[C]] : i1
func.func @bf16_compare(%a: tensor<4xbf16>, %b: tensor<4xbf16>) -> tensor<4xi1> {
  %0 = infc.less %a, %b : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func @half_reduce_sum
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %{{.*}} : tensor<2xf16>
func.func @half_reduce_sum(%a: tensor<2x8xf16>) -> tensor<2xf16> {
  %0 = infc.reduce_sum %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x8xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// CHECK-LABEL: func @bf16_softmax
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @bf16_softmax(%a: tensor<2x8xbf16>) -> tensor<2x8xbf16> {
  %0 = infc.softmax %a {axis = 1 : i64} : tensor<2x8xbf16>
  return %0 : tensor<2x8xbf16>
}
