// RUN: infc-opt %s -infc-quantize-int8 -split-input-file -verify-diagnostics | FileCheck %s

// A calibrated conv: the activation through uint8 Q/DQ over [-1, 3] (scale 4/255, zero
// point round(255/4) = 64), the weights int8 per output channel (scales max|w| / 127:
// 2/127 and 0.5/127), w = 2 -> 127 and 0.5 -> 127, -0.25 -> -64 (-63.5 rounds to even;
// the weight error is that one rounding: 0.5/254 / ||w||).
// CHECK-LABEL: func @conv
// CHECK-DAG: %[[S:.*]] = infc.constant dense<0.0156862754> : tensor<f32>
// CHECK-DAG: %[[Z:.*]] = infc.constant dense<64> : tensor<ui8>
// CHECK-DAG: %[[W:.*]] = infc.constant dense<{{\[\[\[\[}}127]], {{\[\[}}127]]], {{\[\[\[}}127]], {{\[\[}}-64]]]]> : tensor<2x2x1x1xi8>
// CHECK-DAG: %[[SW:.*]] = infc.constant dense<[0.0157480314, 0.00393700786]> : tensor<2xf32>
// CHECK-DAG: %[[DW:.*]] = infc.dequantize %[[W]], %[[SW]] {axis = 0 : i64, block_size = 0 : i64}
// CHECK-DAG: %[[Q:.*]] = infc.quantize %arg0, %[[S]], %[[Z]] {axis = 0 : i64, block_size = 0 : i64} : (tensor<1x2x3x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x2x3x3xui8>
// CHECK-DAG: %[[X:.*]] = infc.dequantize %[[Q]], %[[S]], %[[Z]]
// CHECK: infc.conv %[[X]], %[[DW]]
// CHECK-SAME: infc.weight_error = 6.827{{[0-9]*}}E-4
func.func @conv(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32> {
  %w = infc.constant dense<[[[[2.0]], [[2.0]]], [[[0.5]], [[-0.25]]]]> : tensor<2x2x1x1xf32>
  %0 = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>, infc.input_range = array<f64: -1.0, 3.0>} : (tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// A matmul's weights [K, N] per column (axis 1); a range that excludes 0 is widened to hold
// it ([0, 2]: zero point 0). Uncalibrated matmuls stay as they are.
// CHECK-LABEL: func @matmul
// CHECK-DAG: infc.constant dense<0> : tensor<ui8>
// CHECK-DAG: infc.dequantize %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x3xi8>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: infc.matmul %{{.*}}, %{{.*}} {infc.input_range
// CHECK: infc.matmul %arg0, %{{.*}} : (tensor<4x2xf32>, tensor<2x3xf32>)
func.func @matmul(%a: tensor<4x2xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  %w = infc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = infc.matmul %a, %w {infc.input_range = array<f64: 0.5, 2.0>} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %1 = infc.matmul %a, %w : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// Run-time weights, or an empty range, keep the op in float, with a warning.
func.func @kept(%a: tensor<4x2xf32>, %b: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<4x3xf32>) {
  // expected-warning @+1 {{kept in float: needs an f32 activation and constant f32 weights}}
  %0 = infc.matmul %a, %b {infc.input_range = array<f64: 0.0, 2.0>} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %w = infc.constant dense<1.0> : tensor<2x3xf32>
  // expected-warning @+1 {{kept in float: its calibrated input range [0.000000e+00, 0.000000e+00] is empty or not finite}}
  %1 = infc.matmul %a, %w {infc.input_range = array<f64: 0.0, 0.0>} : (tensor<4x2xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %0, %1 : tensor<4x3xf32>, tensor<4x3xf32>
}
