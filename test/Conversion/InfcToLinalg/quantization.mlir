// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// quantize / dequantize: one generic each; the scale and zero point are read per tensor,
// per slice along the axis, or per block (axis index floordiv the block size).

// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @quantize_per_tensor_uint8
// CHECK: linalg.generic {indexing_maps = [#[[$ID]], #[[$SCALAR]], #[[$SCALAR]], #[[$ID]]]
// CHECK: %[[Q:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[R:.*]] = math.roundeven %[[Q]] : f32
// CHECK: %[[Z:.*]] = arith.uitofp %{{.*}} : i8 to f32
// CHECK: %[[V:.*]] = arith.addf %[[R]], %[[Z]] : f32
// CHECK: %[[LO:.*]] = arith.maxnumf %[[V]], %{{.*}} : f32
// CHECK: %[[HI:.*]] = arith.minnumf %[[LO]], %{{.*}} : f32
// The clamped value converts exactly through i32 (which vectorizes), then truncates.
// CHECK: %[[I32:.*]] = arith.fptosi %[[HI]] : f32 to i32
// CHECK: arith.trunci %[[I32]] : i32 to i8
func.func @quantize_per_tensor_uint8(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<2x4xui8> {
  %0 = infc.quantize %x, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  return %0 : tensor<2x4xui8>
}

// -----

// CHECK-DAG: #[[$AXIS1:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @quantize_per_axis_int4
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$AXIS1]], #{{.*}}]
// CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %[[I]] : i32 to i4
func.func @quantize_per_axis_int4(%x: tensor<2x4xf32>, %s: tensor<4xf32>) -> tensor<2x4xi4> {
  %0 = infc.quantize %x, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xi4>
  return %0 : tensor<2x4xi4>
}

// -----

// CHECK-DAG: #[[$BLOCK:.*]] = affine_map<(d0, d1) -> (d0, d1 floordiv 2)>
// CHECK-LABEL: func @dequantize_blocked_int8
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[$BLOCK]], #[[$BLOCK]], #{{.*}}]
// The difference of two 8-bit values is exact in i32 (and in f32): no i64, which LLVM
// would widen each vector to.
// CHECK: %[[X:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[Z:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[D:.*]] = arith.subi %[[X]], %[[Z]] : i32
// CHECK: %[[F:.*]] = arith.sitofp %[[D]] : i32 to f32
// CHECK: arith.mulf %[[F]], %{{.*}} : f32
func.func @dequantize_blocked_int8(%x: tensor<2x4xi8>, %s: tensor<2x2xf32>, %z: tensor<2x2xi8>) -> tensor<2x4xf32> {
  %0 = infc.dequantize %x, %s, %z {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x4xi8>, tensor<2x2xf32>, tensor<2x2xi8>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// 32-bit values (a bias) subtract in i64, where the difference is exact.
// CHECK-LABEL: func @dequantize_int32
// CHECK: %[[X:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[Z:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[D:.*]] = arith.subi %[[X]], %[[Z]] : i64
// CHECK: arith.sitofp %[[D]] : i64 to f32
func.func @dequantize_int32(%x: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) -> tensor<4xf32> {
  %0 = infc.dequantize %x, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<4xi32>, tensor<f32>, tensor<i32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// float8 quantization adds the zero point before encoding (no rounding to an integer).
// CHECK-LABEL: func @quantize_f8
// CHECK-NOT: math.roundeven
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @quantize_f8(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf8E4M3FN> {
  %0 = infc.quantize %x, %s {axis = 0 : i64, block_size = 0 : i64} : (tensor<4xf32>, tensor<f32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// A constant f32 scale (a requantizing epilogue): the division becomes a multiply by the
// reciprocal, computed at compile time (1 / 0.1 -> 10).
// CHECK-LABEL: func @quantize_constant_scale
// CHECK: %[[R:.*]] = arith.constant dense<1.000000e+01> : tensor<f32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[R]], %{{.*}} :
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
// CHECK: math.roundeven
func.func @quantize_constant_scale(%x: tensor<8xf32>) -> tensor<8xui8> {
  %s = infc.constant dense<0.1> : tensor<f32>
  %z = infc.constant dense<3> : tensor<ui8>
  %0 = infc.quantize %x, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<8xf32>, tensor<f32>, tensor<ui8>) -> tensor<8xui8>
  return %0 : tensor<8xui8>
}
