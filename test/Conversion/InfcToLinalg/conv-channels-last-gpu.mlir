// RUN: infc-opt %s -convert-infc-to-linalg="direct-conv=true" -split-input-file -verify-diagnostics | FileCheck %s

// The GPU's channels_last convolutions: one linalg convolution each, no im2col. A plain one
// is conv_2d_nhwc_fhwc over the weights permuted to [F, KH, KW, C] at compile time, so both
// operands of the implicit GEMM hold the reduction's channels innermost. W[f][c][i][j] =
// 1000f + 100c + 10i + j, so W'[f][i][j] = [1000f + 10i + j, 1000f + 100 + 10i + j].
// CHECK-LABEL: func.func @plain
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}0.000000e+00, 1.000000e+02], [1.000000e+00, 1.010000e+02]], {{\[\[}}1.000000e+01, 1.100000e+02], [1.100000e+01, 1.110000e+02]]], {{\[\[\[}}1.000000e+03, 1.100000e+03], [1.001000e+03, 1.101000e+03]], {{\[\[}}1.010000e+03, 1.110000e+03], [1.011000e+03, 1.111000e+03]]]]> : tensor<2x2x2x2xf32>
// CHECK: %[[Y:.*]] = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%[[P]], %[[W]] : tensor<1x6x6x2xf32>, tensor<2x2x2x2xf32>) outs(%{{.*}} : tensor<1x3x3x2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %arg1 : tensor<1x3x3x2xf32>, tensor<2xf32>)
// CHECK: arith.addf
// CHECK-NOT: linalg.matmul
func.func @plain(%x: tensor<1x4x4x2xf32>, %b: tensor<2xf32>) -> tensor<1x3x3x2xf32> {
  %w = infc.constant dense<[[[[0.0, 1.0], [10.0, 11.0]], [[100.0, 101.0], [110.0, 111.0]]],
                           [[[1000.0, 1001.0], [1010.0, 1011.0]], [[1100.0, 1101.0], [1110.0, 1111.0]]]]> : tensor<2x2x2x2xf32>
  %y = infc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// Depthwise: depthwise_conv_2d_nhwc_hwc over the weights as [KH, KW, C] (W[c][0][i][j] =
// 10c + 3i + j, so W'[i][j] = [3i + j, 10 + 3i + j]).
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W4:.*]] = arith.constant dense<{{\[\[\[\[}}0.000000e+00], [1.000000e+01]], {{\[\[}}1.000000e+00], [1.100000e+01]]], {{\[\[\[}}3.000000e+00], [1.300000e+01]], {{\[\[}}4.000000e+00], [1.400000e+01]]]]> : tensor<2x2x2x1xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[W4]] {{\[}}[0], [1], [2, 3]] : tensor<2x2x2x1xf32> into tensor<2x2x2xf32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<1x4x4x2xf32>, tensor<2x2x2xf32>) outs(%{{.*}} : tensor<1x3x3x2xf32>)
func.func @depthwise(%x: tensor<1x4x4x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = infc.constant dense<[[[[0.0, 1.0], [3.0, 4.0]]], [[[10.0, 11.0], [13.0, 14.0]]]]> : tensor<2x1x2x2xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x2x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// An int8 one: its bytes padded with 0 (H and W), widened by one elementwise op, one i32
// conv_2d_nhwc_fhwc over them (infc-narrow-integer-operands then reads the bytes inside it).
// CHECK-LABEL: func.func @bytes
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x4x4x8xi8> to tensor<1x6x6x8xi8>
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[P]] : tensor<1x6x6x8xi8>) outs(%{{.*}} : tensor<1x6x6x8xi32>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[WIDE]], %{{.*}} : tensor<1x6x6x8xi32>, tensor<16x3x3x8xi32>) outs(%{{.*}} : tensor<1x4x4x16xi32>)
// CHECK-NOT: linalg.matmul
func.func @bytes(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi32> {
  %w = infc.constant dense<3> : tensor<16x8x3x3xi32>
  %c = infc.cast %x : tensor<1x4x4x8xi8> -> tensor<1x4x4x8xi32>
  %y = infc.conv %c, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xi32>, tensor<16x8x3x3xi32>) -> tensor<1x4x4x16xi32>
  return %y : tensor<1x4x4x16xi32>
}

// -----

// Other groups stay NCHW (infc-channels-last leaves them); one written channels_last by hand
// is refused, naming what is lowered.
func.func @grouped(%x: tensor<1x4x4x4xf32>, %w: tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+2 {{channels_last is lowered for plain convolutions and float depthwise ones}}
  // expected-error @+1 {{failed to legalize operation 'infc.conv'}}
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<4x2x1x1xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}
