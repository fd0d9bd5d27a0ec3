// RUN: infc-opt %s -infc-fold-qdq -canonicalize -split-input-file | FileCheck %s

// matmul(dequantize(a), dequantize(w)): the i32 product of a's bytes and the constant
// w - zw, minus za x the column sums of w - zw, times sa x sw. Here w - zw = [[1, -1], [2, 0]]
// (w = [[4, 2], [5, 3]], zw = 3), column sums [3, -1], za = 10: the correction is [30, -10].
// CHECK-LABEL: func @matmul_per_tensor
// CHECK-DAG: %[[W:.*]] = infc.constant dense<{{\[\[}}1, -1], [2, 0]]> : tensor<2x2xi32>
// CHECK-DAG: %[[CORR:.*]] = infc.constant dense<[30, -10]> : tensor<2xi32>
// CHECK-DAG: %[[SCALE:.*]] = infc.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[A:.*]] = infc.cast %arg0 : tensor<3x2xui8> -> tensor<3x2xi32>
// CHECK: %[[ACC:.*]] = infc.matmul %[[A]], %[[W]]
// CHECK: %[[C:.*]] = infc.sub %[[ACC]], %[[CORR]]
// CHECK: %[[F:.*]] = infc.cast %[[C]] : tensor<3x2xi32> -> tensor<3x2xf32>
// CHECK: infc.mul %[[F]], %[[SCALE]]
// CHECK-NOT: infc.dequantize
func.func @matmul_per_tensor(%a: tensor<3x2xui8>) -> tensor<3x2xf32> {
  %sa = infc.constant dense<0.5> : tensor<f32>
  %za = infc.constant dense<10> : tensor<ui8>
  %w = infc.constant dense<[[4, 2], [5, 3]]> : tensor<2x2xi8>
  %sw = infc.constant dense<0.25> : tensor<f32>
  %zw = infc.constant dense<3> : tensor<i8>
  %0 = infc.dequantize %a, %sa, %za {axis = 0 : i64, block_size = 0 : i64} : (tensor<3x2xui8>, tensor<f32>, tensor<ui8>) -> tensor<3x2xf32>
  %1 = infc.dequantize %w, %sw, %zw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2xi8>, tensor<f32>, tensor<i8>) -> tensor<2x2xf32>
  %2 = infc.matmul %0, %1 : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %2 : tensor<3x2xf32>
}

// -----

// Gemm with transB: the transposed weights are transposed at compile time, their per-row
// scales (axis 0 of [N, K]) become per-column ones; no zero points, no correction.
// CHECK-LABEL: func @gemm_transposed_per_channel
// CHECK-DAG: %[[W:.*]] = infc.constant dense<{{\[\[}}1, 3, 5], [2, 4, 6]]> : tensor<2x3xi32>
// CHECK-DAG: %[[SCALE:.*]] = infc.constant dense<[5.000000e-01, 1.000000e+00, 1.500000e+00]> : tensor<3xf32>
// CHECK: %[[ACC:.*]] = infc.matmul %{{.*}}, %[[W]] : (tensor<4x2xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
// CHECK-NOT: infc.sub
// CHECK: infc.mul %{{.*}}, %[[SCALE]] : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
func.func @gemm_transposed_per_channel(%a: tensor<4x2xi8>) -> tensor<4x3xf32> {
  %sa = infc.constant dense<0.5> : tensor<f32>
  %w = infc.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi8>
  %sw = infc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %0 = infc.dequantize %a, %sa {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x2xi8>, tensor<f32>) -> tensor<4x2xf32>
  %1 = infc.dequantize %w, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<3x2xi8>, tensor<3xf32>) -> tensor<3x2xf32>
  %2 = infc.transpose %1 {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %3 = infc.matmul %0, %2 : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %3 : tensor<4x3xf32>
}

// -----

// Scales along the reduced dim (per row of [K, N]) do not factor out of the product: the
// matmul stays on the dequantized floats. So does one of run-time weights.
// CHECK-LABEL: func @not_folded
// CHECK-COUNT-2: infc.matmul %{{.*}}, %{{.*}} : (tensor<2x2xf32>, tensor<2x2xf32>)
func.func @not_folded(%a: tensor<2x2xi8>, %b: tensor<2x2xi8>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %s = infc.constant dense<0.5> : tensor<f32>
  %w = infc.constant dense<1> : tensor<2x2xi8>
  %sw = infc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = infc.dequantize %a, %s {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %1 = infc.dequantize %w, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2xi8>, tensor<2xf32>) -> tensor<2x2xf32>
  %2 = infc.matmul %0, %1 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %3 = infc.dequantize %b, %s {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2xi8>, tensor<f32>) -> tensor<2x2xf32>
  %4 = infc.matmul %0, %3 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %2, %4 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// conv(dequantize(x), dequantize(w), bias) with padding and a zero point: x padded with zx
// as bytes (the conv itself unpadded), the i32 conv, zx x the per-filter sums of w
// subtracted (w = 1 and 2 per filter, 2 x 3 x 3 taps: sums 18 and 36, zx = 5), then
// sx x sw per channel and the bias, shaped [F, 1, 1].
// CHECK-LABEL: func @conv_padded
// CHECK-DAG: %[[CORR:.*]] = infc.constant dense<{{\[\[\[}}90]], {{\[\[}}180]]]> : tensor<2x1x1xi32>
// CHECK: %[[P:.*]] = infc.pad %arg0, %{{.*}} {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, mode = "constant"} : (tensor<1x2x4x4xui8>, tensor<ui8>) -> tensor<1x2x6x6xui8>
// CHECK: %[[X:.*]] = infc.cast %[[P]] : tensor<1x2x6x6xui8> -> tensor<1x2x6x6xi32>
// CHECK: %[[ACC:.*]] = infc.conv %[[X]], %{{.*}} {{{.*}}pads = array<i64: 0, 0, 0, 0>{{.*}}} : (tensor<1x2x6x6xi32>, tensor<2x2x3x3xi32>) -> tensor<1x2x4x4xi32>
// CHECK: infc.sub %[[ACC]], %[[CORR]]
// CHECK: infc.mul %{{.*}}, %{{.*}} : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>)
// CHECK: infc.add %{{.*}}, %{{.*}} : (tensor<1x2x4x4xf32>, tensor<2x1x1xf32>)
func.func @conv_padded(%x: tensor<1x2x4x4xui8>, %bias: tensor<2xf32>) -> tensor<1x2x4x4xf32> {
  %sx = infc.constant dense<0.5> : tensor<f32>
  %zx = infc.constant dense<5> : tensor<ui8>
  %w = infc.constant dense<[[[[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[1, 1, 1], [1, 1, 1], [1, 1, 1]]], [[[2, 2, 2], [2, 2, 2], [2, 2, 2]], [[2, 2, 2], [2, 2, 2], [2, 2, 2]]]]> : tensor<2x2x3x3xi8>
  %sw = infc.constant dense<[0.1, 0.2]> : tensor<2xf32>
  %0 = infc.dequantize %x, %sx, %zx {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<1x2x4x4xf32>
  %1 = infc.dequantize %w, %sw {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x2x3x3xi8>, tensor<2xf32>) -> tensor<2x2x3x3xf32>
  %2 = infc.conv %0, %1, %bias {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %2 : tensor<1x2x4x4xf32>
}

// -----

// An embedding quantized per tensor: the rows are gathered as bytes and only they are
// dequantized. A dequantize of constants that no integer kernel takes (here a bias, per
// axis with a zero point) folds to f32: (q - zp) x scale = [(3 - 1) x 0.5, (-4 - 2) x 2].
// CHECK-LABEL: func @gather_and_constants
// CHECK-DAG: %[[BIAS:.*]] = infc.constant dense<[1.000000e+00, -1.200000e+01]> : tensor<2xf32>
// CHECK: %[[ROWS:.*]] = infc.gather %{{.*}}, %arg0 {axis = 0 : i64} : (tensor<4x2xi8>, tensor<3xi64>) -> tensor<3x2xi8>
// CHECK: %[[X:.*]] = infc.dequantize %[[ROWS]], %{{.*}} {axis = 0 : i64, block_size = 0 : i64} : (tensor<3x2xi8>, tensor<f32>) -> tensor<3x2xf32>
// CHECK: infc.add %[[X]], %[[BIAS]]
func.func @gather_and_constants(%ids: tensor<3xi64>) -> tensor<3x2xf32> {
  %table = infc.constant dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi8>
  %s = infc.constant dense<0.5> : tensor<f32>
  %0 = infc.dequantize %table, %s {axis = 0 : i64, block_size = 0 : i64} : (tensor<4x2xi8>, tensor<f32>) -> tensor<4x2xf32>
  %1 = infc.gather %0, %ids {axis = 0 : i64} : (tensor<4x2xf32>, tensor<3xi64>) -> tensor<3x2xf32>
  %b = infc.constant dense<[3, -4]> : tensor<2xi8>
  %sb = infc.constant dense<[0.5, 2.0]> : tensor<2xf32>
  %zb = infc.constant dense<[1, 2]> : tensor<2xi8>
  %2 = infc.dequantize %b, %sb, %zb {axis = 0 : i64, block_size = 0 : i64} : (tensor<2xi8>, tensor<2xf32>, tensor<2xi8>) -> tensor<2xf32>
  %3 = infc.add %1, %2 : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %3 : tensor<3x2xf32>
}
