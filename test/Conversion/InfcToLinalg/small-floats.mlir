// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// float8 / float4 tensors become tensors of their bits (LLVM has no such float types);
// cast decodes to f32 and encodes from f32 with integer ops.

// Encoding: f32 bits, mantissa rounded to even, rebiased, saturated; truncated to i8.
// CHECK-LABEL: func @encode_f8
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xi8>
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.cmpf olt
// CHECK: %[[SAT:.*]] = arith.constant 126 : i32
// CHECK: arith.trunci %{{.*}} : i32 to i8
func.func @encode_f8(%a: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = infc.cast %a : tensor<4xf32> -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Without saturation an f8E5M2 overflow is infinity (0x7C).
// CHECK-LABEL: func @encode_f8_no_saturate
// CHECK: arith.constant 124 : i32
func.func @encode_f8_no_saturate(%a: tensor<4xf32>) -> tensor<4xf8E5M2> {
  %0 = infc.cast %a {saturate = false} : tensor<4xf32> -> tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// -----

// Decoding: the bits zero-extended, rebuilt as f32, then rounded to the target type.
// CHECK-LABEL: func @decode_f8
// CHECK-SAME: (%{{.*}}: tensor<4xi8>) -> tensor<4xf16>
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.bitcast %{{.*}} : i32 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @decode_f8(%a: tensor<4xf8E5M2FNUZ>) -> tensor<4xf16> {
  %0 = infc.cast %a : tensor<4xf8E5M2FNUZ> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// Float to int4 truncates through i32 and wraps, as ml_dtypes and ORT do.
// CHECK-LABEL: func @float_to_int4
// CHECK: %[[I:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.trunci %[[I]] : i32 to i4
func.func @float_to_int4(%a: tensor<4xf32>) -> tensor<4xui4> {
  %0 = infc.cast %a : tensor<4xf32> -> tensor<4xui4>
  return %0 : tensor<4xui4>
}

// -----

// Data movement works on the bits.
// CHECK-LABEL: func @f4_transpose
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x3xi4>)
func.func @f4_transpose(%a: tensor<2x3xf4E2M1FN>) -> tensor<3x2xf4E2M1FN> {
  %0 = infc.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xf4E2M1FN>) -> tensor<3x2xf4E2M1FN>
  return %0 : tensor<3x2xf4E2M1FN>
}

// -----

// Arithmetic would compute on the bits: refused.
func.func @f8_add(%a: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  // expected-error @+1 {{'infc.add' op is not supported on element type 'f8E4M3FN'}}
  %0 = infc.add %a, %a : (tensor<4xf8E4M3FN>, tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}
