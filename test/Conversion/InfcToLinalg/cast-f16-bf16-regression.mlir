// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// Regression (fixed): the cast lowering picks arith.extf / arith.truncf by bit width only; f16 <-> bf16 have
// the same width, so it emits `arith.truncf %x : f16 to bf16`, which the verifier rejects
// ("operand type 'f16' and result type 'bf16' are cast incompatible"). ONNX Cast between
// float16 and bfloat16 is valid; it needs a detour through f32.

// CHECK-LABEL: func @cast_f16_bf16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast_f16_bf16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = infc.cast %a : tensor<4xf16> -> tensor<4xbf16>
  %1 = infc.cast %0 : tensor<4xbf16> -> tensor<4xf16>
  return %1 : tensor<4xf16>
}
