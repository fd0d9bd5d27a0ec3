// RUN: infc-opt %s -convert-infc-to-linalg="direct-conv=true" -split-input-file | FileCheck %s

// direct-conv (what --target cuda asks for): a convolution is one linalg convolution op,
// one loop nest on the GPU, instead of im2col copies and a matmul. Padding, strides and
// dilations carry over; the bias is the same broadcast add as on the CPU.
// CHECK-LABEL: func.func @conv
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 2] high[0, 0, 1, 0]
// CHECK: %[[ZERO:.*]] = linalg.fill
// CHECK: %[[Y:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[PADDED]], %{{.*}} : tensor<1x4x10x10xf32>, tensor<8x4x3x3xf32>) outs(%[[ZERO]] : tensor<1x8x4x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %{{.*}} : tensor<1x8x4x4xf32>, tensor<8x1x1xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.matmul
func.func @conv(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = infc.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A float depthwise convolution: linalg.depthwise_conv_2d_nchw_chw rather than the CPU's
// vectorized tap sum.
// CHECK-LABEL: func.func @depthwise
// CHECK: linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x4x6x6xf32>, tensor<4x3x3xf32>)
func.func @depthwise(%x: tensor<1x4x6x6xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// An int8 convolution (i32 of uint8 bytes): the bytes padded with 0, widened (extui) by one
// elementwise op, one i32 linalg convolution over them, no im2col
// (infc-narrow-integer-operands then moves the widening into the convolution).
// CHECK-LABEL: func.func @int8
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor<1x3x6x6xi8>
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[PADDED]] : tensor<1x3x6x6xi8>) outs(%{{.*}} : tensor<1x3x6x6xi32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[WIDE]], %{{.*}} : tensor<1x3x6x6xi32>, tensor<8x3x3x3xi32>) outs(%{{.*}} : tensor<1x8x4x4xi32>)
// CHECK-NOT: linalg.matmul
func.func @int8(%x: tensor<1x3x4x4xui8>, %w: tensor<8x3x3x3xi32>) -> tensor<1x8x4x4xi32> {
  %0 = infc.cast %x : tensor<1x3x4x4xui8> -> tensor<1x3x4x4xi32>
  %1 = infc.conv %0, %w {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x3x4x4xi32>, tensor<8x3x3x3xi32>) -> tensor<1x8x4x4xi32>
  return %1 : tensor<1x8x4x4xi32>
}
