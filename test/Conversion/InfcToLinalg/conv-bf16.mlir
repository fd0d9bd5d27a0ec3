// RUN: infc-opt %s -convert-infc-to-linalg="bf16-convs=true" -split-input-file | FileCheck %s

// --precision bf16 on the CPU: a plain f32 NHWC convolution with constant weights rounds its
// input to bf16 first, pads and gathers the im2col rows in bf16 (K = 3x3x8 = 72 values
// padded to 96 with a zero tail, the weights given 24 zero rows), then extends them, where
// infc-bf16-matmul finds the bf16 rows; no Winograd or implicit GEMM. The bias stays f32.
// CHECK-LABEL: func.func @plain
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: tensor.pad %[[R]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor<1x6x6x8xbf16>
// CHECK: tensor.empty() : tensor<1x4x4x96xbf16>
// CHECK: linalg.fill ins(%{{.*}} : bf16) outs(%{{.*}} : tensor<1x4x4x24xbf16>)
// CHECK: scf.for
// CHECK: linalg.copy ins(%{{.*}} : tensor<1x1x4x8xbf16>)
// CHECK: } {infc.parallel}
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x4x4x96xbf16> into tensor<16x96xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: linalg.matmul {infc.conv} ins(%{{.*}}, %{{.*}} : tensor<16x96xf32>, tensor<96x16xf32>)
// CHECK: arith.addf
func.func @plain(%x: tensor<1x4x4x8xf32>, %b: tensor<16xf32>) -> tensor<1x4x4x16xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8x3x3xf32>
  %y = infc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x4x4x16xf32>
  return %y : tensor<1x4x4x16xf32>
}

// -----

// A 1x1 convolution reads its rounded input in place as the rows (infc-bf16-matmul pads
// K to 96 itself).
// CHECK-LABEL: func.func @pointwise
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT: scf.for
// CHECK: tensor.collapse_shape %{{.*}} : tensor<1x5x5x72xbf16> into tensor<25x72xbf16>
// CHECK: arith.extf
// CHECK: linalg.matmul {infc.conv} ins(%{{.*}}, %{{.*}} : tensor<25x72xf32>, tensor<72x4xf32>)
func.func @pointwise(%x: tensor<1x5x5x72xf32>) -> tensor<1x5x5x4xf32> {
  %w = arith.constant dense<0.25> : tensor<4x72x1x1xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x5x5x72xf32>, tensor<4x72x1x1xf32>) -> tensor<1x5x5x4xf32>
  return %y : tensor<1x5x5x4xf32>
}

// -----

// Left in f32: weights computed at run time, depthwise convolutions (memory-bound tap
// sums), and a reduction shorter than 64 values (a 3x3 stem over 3 channels, K = 27).
// CHECK-LABEL: func.func @left_f32
// CHECK-NOT: bf16
func.func @left_f32(%x: tensor<1x4x4x2xf32>, %w: tensor<2x2x3x3xf32>, %img: tensor<1x4x4x3xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x16xf32>) {
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x2x3x3xf32>) -> tensor<1x4x4x2xf32>
  %dw = arith.constant dense<0.5> : tensor<2x1x3x3xf32>
  %z = infc.conv %x, %dw {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x3x3xf32>) -> tensor<1x4x4x2xf32>
  %sw = arith.constant dense<0.5> : tensor<16x3x3x3xf32>
  %s = infc.conv %img, %sw {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x3xf32>, tensor<16x3x3x3xf32>) -> tensor<1x4x4x16xf32>
  return %y, %z, %s : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x16xf32>
}
