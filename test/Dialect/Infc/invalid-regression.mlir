// RUN: infc-opt %s -split-input-file -verify-diagnostics

// Regression (fixed): verifiers that accept invalid IR, which the linalg lowering then turns into invalid IR
// or wrong code. The messages are placeholders for whatever the fix reports.

// conv checks no element types: an f16 bias on f32 data lowers to an invalid
// tensor.expand_shape (tensor<3xf16> into tensor<3x1x1xf32>).
func.func @conv_bias_element_type(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'infc.conv' op expects}}
  %0 = infc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>, tensor<3xf16>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @conv_weight_element_type(%x: tensor<1x2x4x4xf32>, %w: tensor<3x2x1x1xf16>) {
  // expected-error @+1 {{'infc.conv' op expects}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf16>) -> tensor<1x3x4x4xf32>
  return
}

// -----

// layer_norm checks no element types: lowers to an invalid `arith.mulf` of f32 and f16.
func.func @layer_norm_scale_element_type(%x: tensor<2x3xf32>, %s: tensor<3xf16>) {
  // expected-error @+1 {{'infc.layer_norm' op expects}}
  %0 = infc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

// Pooling checks pads only against the kernel: a negative pad passes and lowers to a
// tensor.pad with a negative low padding.
func.func @max_pool_negative_pad(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'infc.max_pool' op expects}}
  %0 = infc.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: -1, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x3xf32>
  return
}

// -----

func.func @avg_pool_zero_dilation(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'infc.avg_pool' op expects}}
  %0 = infc.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x4x3xf32>
  return
}

// -----

// `not` once accepted any type and lowered f32 to an invalid arith.xori; it is bitwise now
// (logical on i1) and takes integers only.
func.func @not_f32(%x: tensor<3xf32>) {
  // expected-error @+1 {{'infc.not' op operand #0 must be ranked tensor of integer values}}
  %0 = infc.not %x : tensor<3xf32>
  return
}
