// RUN: infc-opt %s -infc-fold-conv-affine -canonicalize -split-input-file | FileCheck %s

// An inference BatchNormalization as the exporter leaves it: the conv times a per-channel
// scale [2, 1, 1], plus a per-channel shift. Both fold: filter f's weights times s[f], the
// bias b * s + t. The two 1x1 filters over two channels are W = [1, 2] and [3, 4], b = [1, 1],
// s = [2, 10], t = [0.5, -1]: W' = [2, 4] and [30, 40], b' = [2.5, 9]. The conv keeps its
// calibration range.
// CHECK-LABEL: func.func @batch_norm
// CHECK-DAG: %[[W:.*]] = infc.constant dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}3.000000e+01]], {{\[\[}}4.000000e+01]]]]> : tensor<2x2x1x1xf32>
// CHECK-DAG: %[[B:.*]] = infc.constant dense<[2.500000e+00, 9.000000e+00]> : tensor<2xf32>
// CHECK: %[[C:.*]] = infc.conv %arg0, %[[W]], %[[B]] {dilations = array<i64: 1, 1>, group = 1 : i64, infc.input_range = array<f64: 0.000000e+00, 1.000000e+00>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK-NOT: infc.mul
// CHECK-NOT: infc.add
// CHECK: return %[[C]]
func.func @batch_norm(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = infc.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = infc.constant dense<1.0> : tensor<2xf32>
  %s = infc.constant dense<[[[2.0]], [[10.0]]]> : tensor<2x1x1xf32>
  %t = infc.constant dense<[[[[0.5]], [[-1.0]]]]> : tensor<1x2x1x1xf32>
  %0 = infc.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, infc.input_range = array<f64: 0.0, 1.0>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x3x3xf32>
  %1 = infc.mul %s, %0 : (tensor<2x1x1xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %2 = infc.add %1, %t : (tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %2 : tensor<1x2x3x3xf32>
}

// -----

// A conv without a bias gets the shift as its bias; a scalar scale applies to every filter.
// CHECK-LABEL: func.func @no_bias
// CHECK-DAG: %[[W:.*]] = infc.constant dense<3.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-DAG: %[[B:.*]] = infc.constant dense<5.000000e-01> : tensor<2xf32>
// CHECK: infc.conv %arg0, %[[W]], %[[B]]
func.func @no_bias(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = infc.constant dense<1.0> : tensor<2x1x1x1xf32>
  %s = infc.constant dense<3.0> : tensor<f32>
  %t = infc.constant dense<0.5> : tensor<2x1x1xf32>
  %0 = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = infc.mul %0, %s : (tensor<1x2x2x2xf32>, tensor<f32>) -> tensor<1x2x2x2xf32>
  %2 = infc.add %1, %t : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %2 : tensor<1x2x2x2xf32>
}

// -----

// Not folded: a scale that varies along a spatial dim, a conv with a second use, and
// weights that are not constant.
// CHECK-LABEL: func.func @not_per_channel
// CHECK: infc.mul
// CHECK: infc.mul
// CHECK: infc.add
func.func @not_per_channel(%x: tensor<1x1x2x2xf32>, %wv: tensor<2x1x1x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %w = infc.constant dense<1.0> : tensor<2x1x1x1xf32>
  %s = infc.constant dense<[[1.0, 2.0]]> : tensor<1x2xf32>
  %t = infc.constant dense<0.5> : tensor<2x1x1xf32>
  %0 = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %1 = infc.mul %0, %s : (tensor<1x2x2x2xf32>, tensor<1x2xf32>) -> tensor<1x2x2x2xf32>
  %2 = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %3 = infc.mul %2, %2 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %4 = infc.conv %x, %wv {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x2x2xf32>
  %5 = infc.add %4, %t : (tensor<1x2x2x2xf32>, tensor<2x1x1xf32>) -> tensor<1x2x2x2xf32>
  return %1, %3, %5 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
