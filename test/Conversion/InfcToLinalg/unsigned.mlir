// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// The infc dialect keeps ONNX's unsigned integers as ui<N>; the lowering makes every type
// signless (the signature included) and picks the unsigned arith op wherever signedness
// matters.

// CHECK-LABEL: func @unsigned_elementwise
// CHECK-SAME: (%{{.*}}: tensor<4xi8>, %{{.*}}: tensor<4xi8>) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xi8>)
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: arith.remui %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: return %{{.*}} : tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xi8>
func.func @unsigned_elementwise(%a: tensor<4xui8>, %b: tensor<4xui8>)
    -> (tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xui8>) {
  %0 = infc.div %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %1 = infc.rem %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  %2 = infc.greater %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xi1>
  %3 = infc.max %a, %b : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  return %0, %1, %2, %3 : tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xui8>
}

// -----

// Logical shift right; an amount out of [0, 32) gives 0, not a sign fill.
// CHECK-LABEL: func @unsigned_shift_right
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[AMT:.*]], %{{.*}} : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[IN]], %[[AMT]], %{{.*}} : i32
// CHECK: %[[S:.*]] = arith.shrui %{{.*}}, %[[SAFE]] : i32
// CHECK: arith.select %[[IN]], %[[S]], %{{.*}} : i32
func.func @unsigned_shift_right(%a: tensor<4xui32>, %b: tensor<4xui32>) -> tensor<4xui32> {
  %0 = infc.shift_right %a, %b : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// Clip bounds saturate to the unsigned range (300 -> 255) and compare unsigned.
// CHECK-LABEL: func @unsigned_clip
// CHECK-DAG: %[[LO:.*]] = arith.constant 2 : i8
// CHECK-DAG: %[[HI:.*]] = arith.constant -1 : i8
// CHECK: %[[M:.*]] = arith.maxui %{{.*}}, %[[LO]] : i8
// CHECK: arith.minui %[[M]], %[[HI]] : i8
func.func @unsigned_clip(%a: tensor<4xui8>) -> tensor<4xui8> {
  %0 = infc.clip %a {min = 2.0, max = 300.0} : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Unsigned sources zero-extend and convert with uitofp; unsigned results use fptoui.
// CHECK-LABEL: func @unsigned_casts
// CHECK: arith.uitofp %{{.*}} : i16 to f32
// CHECK: arith.extui %{{.*}} : i16 to i64
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.extsi %{{.*}} : i8 to i32
func.func @unsigned_casts(%a: tensor<2xui16>, %f: tensor<2xf32>, %s: tensor<2xi8>)
    -> (tensor<2xf32>, tensor<2xi64>, tensor<2xui8>, tensor<2xui32>) {
  %0 = infc.cast %a : tensor<2xui16> -> tensor<2xf32>
  %1 = infc.cast %a : tensor<2xui16> -> tensor<2xi64>
  %2 = infc.cast %f : tensor<2xf32> -> tensor<2xui8>
  %3 = infc.cast %s : tensor<2xi8> -> tensor<2xui32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xi64>, tensor<2xui8>, tensor<2xui32>
}

// -----

// Reductions: max starts from 0 and min from 2^N - 1, both unsigned; mean divides unsigned.
// CHECK-LABEL: func @unsigned_reductions
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i16
// CHECK: linalg.fill ins(%[[ZERO]] : i16)
// CHECK: arith.maxui
// CHECK: %[[ONES:.*]] = arith.constant -1 : i16
// CHECK: linalg.fill ins(%[[ONES]] : i16)
// CHECK: arith.minui
// CHECK: arith.divui
// CHECK: arith.cmpi ugt
func.func @unsigned_reductions(%a: tensor<2x3xui16>)
    -> (tensor<2xui16>, tensor<2xui16>, tensor<2xui16>, tensor<2xi64>) {
  %0 = infc.reduce_max %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui16>) -> tensor<2xui16>
  %1 = infc.reduce_min %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui16>) -> tensor<2xui16>
  %2 = infc.reduce_mean %a {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui16>) -> tensor<2xui16>
  %3 = infc.arg_max %a {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xui16>) -> tensor<2xi64>
  return %0, %1, %2, %3 : tensor<2xui16>, tensor<2xui16>, tensor<2xui16>, tensor<2xi64>
}

// -----

// Constants keep their bits: 200 as ui8 is -56 as i8.
// CHECK-LABEL: func @unsigned_constant_and_data_movement
// CHECK: arith.constant dense<[-56, 1]> : tensor<2xi8>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xi8>) outs(%{{.*}} : tensor<3x2xi8>)
func.func @unsigned_constant_and_data_movement(%a: tensor<2x3xui8>) -> (tensor<2xui8>, tensor<3x2xui8>) {
  %0 = infc.constant dense<[200, 1]> : tensor<2xui8>
  %1 = infc.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xui8>) -> tensor<3x2xui8>
  return %0, %1 : tensor<2xui8>, tensor<3x2xui8>
}
