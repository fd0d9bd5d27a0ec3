// RUN: infc-opt %s -split-input-file -verify-diagnostics

// One case per verifier and type-inference error of the infc ops. Errors raised by type
// inference come with a second "failed to infer returned types" error on the same op.

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

func.func @binary_no_broadcast(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes 'tensor<2x3xf32>' and 'tensor<4xf32>' do not broadcast}}
  // expected-error @+1 {{'infc.add' op failed to infer returned types}}
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @binary_element_types(%a: tensor<2x3xf32>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'infc.mul' op expects operands of one element type, got 'f32' and 'f16'}}
  %0 = infc.mul %a, %b : (tensor<2x3xf32>, tensor<3xf16>) -> tensor<2x3xf32>
  return
}

// -----

func.func @and_float(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'infc.and' op expects integer or i1 operands, got 'f32'}}
  %0 = infc.and %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @xor_float(%a: tensor<3xf16>, %b: tensor<3xf16>) {
  // expected-error @+1 {{'infc.xor' op expects integer or i1 operands, got 'f16'}}
  %0 = infc.xor %a, %b : (tensor<3xf16>, tensor<3xf16>) -> tensor<3xf16>
  return
}

// -----

func.func @bitcast_widths(%a: tensor<3xf32>) {
  // expected-error @+1 {{expects element types of one width, got 'f32' and 'i64'}}
  %0 = infc.bitcast %a : tensor<3xf32> -> tensor<3xi64>
  return
}

// -----

func.func @bitcast_to_bool(%a: tensor<3xui8>) {
  // expected-error @+1 {{cannot read 'ui8' as i1: a byte may hold other values}}
  %0 = infc.bitcast %a : tensor<3xui8> -> tensor<3xi1>
  return
}

// -----

func.func @bitcast_sub_byte(%a: tensor<3xi4>) {
  // expected-error @+1 {{expects integer or float element types of 8 bits or more, got 'i4' and 'i4'}}
  %0 = infc.bitcast %a : tensor<3xi4> -> tensor<3xi4>
  return
}

// -----

func.func @bitcast_shape(%a: tensor<3xf32>) {
  // expected-error @+1 {{requires the same shape for all operands and results}}
  %0 = infc.bitcast %a : tensor<3xf32> -> tensor<4xi32>
  return
}

// -----

func.func @shift_float(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'infc.shift_left' op expects integer operands, got 'f32'}}
  %0 = infc.shift_left %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @shift_bool(%a: tensor<3xi1>, %b: tensor<3xi1>) {
  // expected-error @+1 {{'infc.shift_right' op expects integer operands, got 'i1'}}
  %0 = infc.shift_right %a, %b : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return
}

// -----

func.func @arg_max_axis(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{expects axis in [0, 2), got 2}}
  %0 = infc.arg_max %a {axis = 2 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x3xi64>
  return
}

// -----

func.func @arg_min_result(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'infc.arg_min' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<2x1xi64>'}}
  // expected-error @+1 {{'infc.arg_min' op failed to infer returned types}}
  %0 = infc.arg_min %a {axis = 1 : i64, keepdims = false, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @arg_max_bool(%a: tensor<2x3xi1>) {
  // expected-error @+1 {{'infc.arg_max' op expects a numeric input, got i1}}
  %0 = infc.arg_max %a {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xi1>) -> tensor<2x1xi64>
  return
}

// -----

func.func @binary_wrong_result_shape(%a: tensor<2x1xf32>, %b: tensor<1x3xf32>) {
  // expected-error @+2 {{'infc.sub' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<2x1xf32>'}}
  // expected-error @+1 {{'infc.sub' op failed to infer returned types}}
  %0 = infc.sub %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

func.func @comparison_not_i1(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'infc.less' op inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<3xf32>'}}
  // expected-error @+1 {{'infc.less' op failed to infer returned types}}
  %0 = infc.less %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_no_broadcast(%c: tensor<2xi1>, %a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{operand shapes do not broadcast}}
  // expected-error @+1 {{'infc.where' op failed to infer returned types}}
  %0 = infc.where %c, %a, %b : (tensor<2xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_element_types(%c: tensor<3xi1>, %a: tensor<3xf32>, %b: tensor<3xi32>) {
  // expected-error @+1 {{'infc.where' op expects lhs and rhs of one element type}}
  %0 = infc.where %c, %a, %b : (tensor<3xi1>, tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return
}

// -----

func.func @where_condition_not_i1(%c: tensor<3xi32>, %a: tensor<3xf32>) {
  // expected-error @+1 {{'infc.where' op operand #0 must be ranked tensor of 1-bit signless integer values, but got 'tensor<3xi32>'}}
  %0 = infc.where %c, %a, %a : (tensor<3xi32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @clip_min_above_max(%x: tensor<4xf32>) {
  // expected-error @+1 {{'infc.clip' op expects min <= max, got 6.000000e+00 > 0.000000e+00}}
  %0 = infc.clip %x {min = 6.0 : f64, max = 0.0 : f64} : tensor<4xf32>
  return
}

// -----

func.func @cast_shape_change(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.cast' op requires the same shape for all operands and results}}
  %0 = infc.cast %x : tensor<2x3xf32> -> tensor<3x2xi32>
  return
}

// -----

func.func @constant_type_mismatch() {
  // expected-error @+1 {{'infc.constant' op failed to verify that all of {value, result} have same type}}
  %0 = "infc.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @shape_wrong_rank(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'infc.shape' op inferred type(s) 'tensor<2xi64>' are incompatible with return type(s) of operation 'tensor<3xi64>'}}
  // expected-error @+1 {{'infc.shape' op failed to infer returned types}}
  %0 = infc.shape %x : tensor<2x3xf32> -> tensor<3xi64>
  return
}

// -----

func.func @shape_not_i64(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.shape' op result #0 must be ranked tensor of 64-bit signless integer values, but got 'tensor<2xi32>'}}
  %0 = infc.shape %x : tensor<2x3xf32> -> tensor<2xi32>
  return
}

//===----------------------------------------------------------------------===//
// MatMul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_rank1(%a: tensor<4xf32>, %b: tensor<4x2xf32>) {
  // expected-error @+2 {{expects operands of rank >= 2}}
  // expected-error @+1 {{'infc.matmul' op failed to infer returned types}}
  %0 = infc.matmul %a, %b : (tensor<4xf32>, tensor<4x2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @matmul_contracting_mismatch(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) {
  // expected-error @+2 {{contracting dims differ: 'tensor<3x4xf32>' x 'tensor<5x2xf32>'}}
  // expected-error @+1 {{'infc.matmul' op failed to infer returned types}}
  %0 = infc.matmul %a, %b : (tensor<3x4xf32>, tensor<5x2xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_batch_no_broadcast(%a: tensor<2x3x4xf32>, %b: tensor<3x4x2xf32>) {
  // expected-error @+2 {{batch dims do not broadcast: 'tensor<2x3x4xf32>' x 'tensor<3x4x2xf32>'}}
  // expected-error @+1 {{'infc.matmul' op failed to infer returned types}}
  %0 = infc.matmul %a, %b : (tensor<2x3x4xf32>, tensor<3x4x2xf32>) -> tensor<2x3x2xf32>
  return
}

// -----

func.func @matmul_element_types(%a: tensor<3x4xf32>, %b: tensor<4x2xf16>) {
  // expected-error @+1 {{'infc.matmul' op expects operands of one element type}}
  %0 = infc.matmul %a, %b : (tensor<3x4xf32>, tensor<4x2xf16>) -> tensor<3x2xf32>
  return
}

// -----

func.func @matmul_wrong_result(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'infc.matmul' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<2x5xf32>'}}
  // expected-error @+1 {{'infc.matmul' op failed to infer returned types}}
  %0 = infc.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// Conv
//===----------------------------------------------------------------------===//

// -----

func.func @conv_rank(%x: tensor<1x4x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{expects a rank-4 NCHW input and FCHW weight}}
  // expected-error @+1 {{'infc.conv' op failed to infer returned types}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_attribute_sizes(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+2 {{expects 2 strides, 4 pads and 2 dilations}}
  // expected-error @+1 {{'infc.conv' op failed to infer returned types}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_group_not_dividing(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects group to divide the channel counts, got group 3}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_group_zero(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects group to divide the channel counts, got group 0}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_group_weight_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects weight dim 1 (4) to be input channels / group (2)}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_bias_shape(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'infc.conv' op expects a bias of shape [8]}}
  %0 = infc.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<4xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_negative_pad(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects positive strides and dilations and non-negative pads}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, -1, 0, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @conv_zero_dilation(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects positive strides and dilations and non-negative pads}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 0, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x6xf32>
  return
}

// -----

// i32 is the integer convolutions' accumulator type; narrower integers are refused.
func.func @conv_integer(%x: tensor<1x1x4x4xi16>, %w: tensor<1x1x1x1xi16>) {
  // expected-error @+1 {{'infc.conv' op operand #0 must be ranked tensor of floating-point or 32-bit signless integer values, but got 'tensor<1x1x4x4xi16>'}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xi16>, tensor<1x1x1x1xi16>) -> tensor<1x1x4x4xi16>
  return
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// -----

func.func @pool_rank(%x: tensor<1x4x8xf32>) {
  // expected-error @+2 {{expects NCHW input, 2 kernel dims, 2 strides, 4 pads, 2 dilations}}
  // expected-error @+1 {{'infc.max_pool' op failed to infer returned types}}
  %0 = infc.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

func.func @max_pool_pad_begin(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'infc.max_pool' op expects pads smaller than the kernel}}
  %0 = infc.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 2, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x5xf32>
  return
}

// -----

func.func @avg_pool_pad_end(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'infc.avg_pool' op expects pads smaller than the kernel}}
  %0 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 3>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x10xf32>
  return
}

// -----

func.func @avg_pool_zero_stride(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+1 {{'infc.avg_pool' op expects positive strides}}
  %0 = infc.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 0, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x7xf32>
  return
}

// -----

func.func @max_pool_wrong_result(%x: tensor<1x4x8x8xf32>) {
  // ceil_mode gives 4x4 here, not 3x3.
  // expected-error @+2 {{'infc.max_pool' op inferred type(s) 'tensor<1x4x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x4x3x3xf32>'}}
  // expected-error @+1 {{'infc.max_pool' op failed to infer returned types}}
  %0 = infc.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x3x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Reductions and normalizations
//===----------------------------------------------------------------------===//

// -----

func.func @reduce_axis_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects distinct axes in [0, 2)}}
  %0 = infc.reduce_sum %x {axes = array<i64: 2>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_axis_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects distinct axes in [0, 2)}}
  %0 = infc.reduce_max %x {axes = array<i64: 1, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_axis_negative(%x: tensor<2x3xf32>) {
  // The importer normalizes negative axes; the op takes none.
  // expected-error @+1 {{expects distinct axes in [0, 2)}}
  %0 = infc.reduce_mean %x {axes = array<i64: -1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_keepdims_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'infc.reduce_prod' op inferred type(s) 'tensor<2x1xf32>' are incompatible with return type(s) of operation 'tensor<2xf32>'}}
  // expected-error @+1 {{'infc.reduce_prod' op failed to infer returned types}}
  %0 = infc.reduce_prod %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.softmax' op expects axis in [0, 2), got 2}}
  %0 = infc.softmax %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.softmax' op expects axis in [0, 2)}}
  %0 = infc.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'infc.layer_norm' op expects axis in [0, 2), got 2}}
  %0 = infc.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'infc.layer_norm' op expects the result type to equal the input type}}
  %0 = infc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @layer_norm_scale_shape(%x: tensor<2x3xf32>, %s: tensor<2x3xf32>) {
  // The scale must not broadcast the normalized shape [3] up to [2, 3].
  // expected-error @+1 {{'infc.layer_norm' op expects scale and bias to broadcast to the normalized shape}}
  %0 = infc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_bias_shape(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'infc.layer_norm' op expects scale and bias to broadcast to the normalized shape}}
  %0 = infc.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// -----

func.func @reshape_element_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.reshape' op expects one element type}}
  %0 = infc.reshape %x : tensor<2x3xf32> -> tensor<6xi32>
  return
}

// -----

func.func @reshape_dynamic(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'infc.reshape' op expects the same number of elements, got 'tensor<?x3xf32>' and 'tensor<6xf32>'}}
  %0 = infc.reshape %x : tensor<?x3xf32> -> tensor<6xf32>
  return
}

// -----

func.func @reshape_dynamic_product(%x: tensor<?x6xf32>) {
  // expected-error @+1 {{'infc.reshape' op expects the same number of elements, got 'tensor<?x6xf32>' and 'tensor<?x2x2xf32>'}}
  %0 = infc.reshape %x : tensor<?x6xf32> -> tensor<?x2x2xf32>
  return
}

// -----

func.func @reshape_element_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.reshape' op expects the same number of elements, got 6 and 8}}
  %0 = infc.reshape %x : tensor<2x3xf32> -> tensor<8xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'infc.broadcast' op expects one element type}}
  %0 = infc.broadcast %x : tensor<3xf32> -> tensor<2x3xf16>
  return
}

// -----

func.func @broadcast_incompatible(%x: tensor<3xf32>) {
  // expected-error @+1 {{'infc.broadcast' op cannot broadcast 'tensor<3xf32>' to 'tensor<2x4xf32>'}}
  %0 = infc.broadcast %x : tensor<3xf32> -> tensor<2x4xf32>
  return
}

// -----

func.func @broadcast_to_lower_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.broadcast' op cannot broadcast 'tensor<2x3xf32>' to 'tensor<3xf32>'}}
  %0 = infc.broadcast %x : tensor<2x3xf32> -> tensor<3xf32>
  return
}

// -----

func.func @transpose_perm_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a permutation of rank 2}}
  %0 = infc.transpose %x {perm = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @transpose_perm_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a permutation of [0, 2)}}
  %0 = infc.transpose %x {perm = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @transpose_perm_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a permutation of [0, 2)}}
  %0 = infc.transpose %x {perm = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @concat_no_input() {
  // expected-error @+1 {{expects at least one input}}
  %0 = infc.concat {axis = 0 : i64} : () -> tensor<2xf32>
  return
}

// -----

func.func @concat_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects axis in [0, 2)}}
  %0 = infc.concat %x, %x {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_rank_mismatch(%x: tensor<2x3xf32>, %y: tensor<2x3x1xf32>) {
  // expected-error @+1 {{expects inputs of one rank and element type}}
  %0 = infc.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_element_type_mismatch(%x: tensor<2x3xf32>, %y: tensor<2x3xf16>) {
  // expected-error @+1 {{expects inputs of one rank and element type}}
  %0 = infc.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x6xf32>
  return
}

// -----

func.func @concat_dim_mismatch(%x: tensor<2x3xf32>, %y: tensor<4x3xf32>) {
  // expected-error @+1 {{expects inputs to agree on dim 0}}
  %0 = infc.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

func.func @slice_sizes_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op expects offsets, sizes and steps of rank 2}}
  %0 = infc.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @slice_offsets_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op expects offsets, sizes and steps of rank 2}}
  %0 = infc.slice %x {offsets = array<i64: 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_zero_step(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op expects non-zero steps and non-negative sizes (dim 1)}}
  %0 = infc.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_negative_size(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op expects non-zero steps and non-negative sizes (dim 0)}}
  %0 = infc.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: -1, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @slice_past_end(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op slice out of bounds in dim 1}}
  %0 = infc.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_negative_step_past_begin(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op slice out of bounds in dim 1}}
  %0 = infc.slice %x {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 3>, steps = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @slice_offset_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.slice' op slice out of bounds in dim 0}}
  %0 = infc.slice %x {offsets = array<i64: 2, 0>, sizes = array<i64: 1, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects axis in [0, 2)}}
  %0 = infc.gather %x, %i {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3x2xf32>
  return
}

// -----

func.func @gather_negative_axis(%x: tensor<2x3xf32>, %i: tensor<2xi64>) {
  // expected-error @+1 {{expects axis in [0, 2)}}
  %0 = infc.gather %x, %i {axis = -1 : i64} : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x2xf32>
  return
}

// -----

func.func @gather_float_indices(%x: tensor<2x3xf32>, %i: tensor<2xf32>) {
  // expected-error @+1 {{'infc.gather' op operand #1 must be ranked tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<2xf32>'}}
  %0 = infc.gather %x, %i {axis = 0 : i64} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @gather_wrong_result(%x: tensor<2x3xf32>, %i: tensor<4xi32>) {
  // expected-error @+2 {{'infc.gather' op inferred type(s) 'tensor<2x4xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'infc.gather' op failed to infer returned types}}
  %0 = infc.gather %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Indexing and padding
//===----------------------------------------------------------------------===//

// -----

func.func @pad_mode(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.pad' op expects mode constant, reflect, edge or wrap, got 'mirror'}}
  %0 = infc.pad %x {high = array<i64: 0, 0>, low = array<i64: 1, 0>, mode = "mirror"} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.pad' op expects non-negative pads (dim 1)}}
  %0 = infc.pad %x {high = array<i64: 0, -1>, low = array<i64: 1, 0>, mode = "edge"} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @pad_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects low and high pads of rank 2}}
  %0 = infc.pad %x {high = array<i64: 0>, low = array<i64: 1>, mode = "edge"} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_value_in_edge_mode(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'infc.pad' op takes a value in constant mode only}}
  %0 = infc.pad %x, %v {high = array<i64: 0, 0>, low = array<i64: 1, 0>, mode = "edge"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<2x3xf32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'infc.pad' op expects a rank-0 value of the input's element type, got 'tensor<1xf32>'}}
  %0 = infc.pad %x, %v {high = array<i64: 0, 0>, low = array<i64: 1, 0>, mode = "constant"} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @pad_empty_dim(%x: tensor<0x3xf32>) {
  // expected-error @+1 {{'infc.pad' op cannot pad an empty dim in wrap mode (dim 0)}}
  %0 = infc.pad %x {high = array<i64: 0, 0>, low = array<i64: 1, 0>, mode = "wrap"} : (tensor<0x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @cumsum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.cumsum' op expects axis in [0, 2), got 2}}
  %0 = infc.cumsum %x {axis = 2 : i64, exclusive = false, reverse = false} : tensor<2x3xf32>
  return
}

// -----

func.func @cumsum_bool(%x: tensor<3xi1>) {
  // expected-error @+1 {{'infc.cumsum' op is not defined on i1}}
  %0 = infc.cumsum %x {axis = 0 : i64, exclusive = false, reverse = false} : tensor<3xi1>
  return
}

// -----

func.func @scatter_axis(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'infc.scatter' op expects axis in [0, 2), got -1}}
  %0 = infc.scatter %x, %i, %u {axis = -1 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_shapes(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x2xf32>) {
  // expected-error @+1 {{'infc.scatter' op expects indices and updates of one shape, got 'tensor<1x3xi64>' and 'tensor<1x2xf32>'}}
  %0 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_rank(%x: tensor<2x3xf32>, %i: tensor<3xi64>, %u: tensor<3xf32>) {
  // expected-error @+1 {{'infc.scatter' op expects indices of the data's rank 2}}
  %0 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<3xi64>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_too_large(%x: tensor<2x3xf32>, %i: tensor<1x4xi64>, %u: tensor<1x4xf32>) {
  // expected-error @+1 {{'infc.scatter' op indices are larger than the data in dim 1}}
  %0 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<1x4xi64>, tensor<1x4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_update_type(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf64>) {
  // expected-error @+1 {{'infc.scatter' op expects updates of the data's element type}}
  %0 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @scatter_reduction(%x: tensor<2x3xf32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf32>) {
  // expected-error @+1 {{'infc.scatter' op expects reduction none, add, mul, max or min, got 'sub'}}
  %0 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "sub"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @topk_k(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects k in [0, 3], got 4}}
  %0:2 = infc.topk %x {axis = 1 : i64, k = 4 : i64, largest = true} : tensor<2x3xf32> -> tensor<2x4xf32>, tensor<2x4xi64>
  return
}

// -----

func.func @topk_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects axis in [0, 2)}}
  %0:2 = infc.topk %x {axis = 2 : i64, k = 1 : i64, largest = true} : tensor<2x3xf32> -> tensor<2x1xf32>, tensor<2x1xi64>
  return
}

// -----

func.func @topk_bool(%x: tensor<2x3xi1>) {
  // expected-error @+1 {{'infc.topk' op is not defined on i1}}
  %0:2 = infc.topk %x {axis = 1 : i64, k = 1 : i64, largest = true} : tensor<2x3xi1> -> tensor<2x1xi1>, tensor<2x1xi64>
  return
}

// -----

func.func @quantize_per_axis_length(%x: tensor<2x3xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{expects a per-axis scale of shape [3], got 'tensor<2xf32>'}}
  %0 = infc.quantize %x, %s {axis = 1 : i64, block_size = 0 : i64} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xi8>
  return
}

// -----

func.func @quantize_blocked_shape(%x: tensor<2x4xf32>, %s: tensor<2x3xf32>) {
  // expected-error @+1 {{expects a blocked scale of the input's shape with dim 1 divided by the block size 2}}
  %0 = infc.quantize %x, %s {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<2x4xi8>
  return
}

// -----

func.func @quantize_zero_point_type(%x: tensor<4xf32>, %s: tensor<f32>, %z: tensor<i8>) {
  // expected-error @+1 {{expects a zero point of element type 'ui8'}}
  %0 = infc.quantize %x, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<4xf32>, tensor<f32>, tensor<i8>) -> tensor<4xui8>
  return
}

// -----

func.func @dequantize_int_result(%x: tensor<4xi8>, %s: tensor<f32>) {
  // expected-error @+1 {{expects a float result}}
  %0 = infc.dequantize %x, %s {axis = 0 : i64, block_size = 0 : i64} : (tensor<4xi8>, tensor<f32>) -> tensor<4xi32>
  return
}

// -----

// A result may leave an inferred dim `?`, never claim a size the inference does not give.
func.func @result_claims_a_dynamic_size(%a: tensor<?x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'infc.add' op inferred type(s) 'tensor<?x3xf32>' are incompatible with return type(s) of operation 'tensor<4x3xf32>'}}
  // expected-error @+1 {{'infc.add' op failed to infer returned types}}
  %0 = infc.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @conv_dynamic_channels(%x: tensor<1x?x8x8xf32>, %w: tensor<8x4x3x3xf32>) {
  // expected-error @+1 {{'infc.conv' op expects static channel counts and a static weight shape}}
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x?x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @concat_dynamic_and_static_disagree(%a: tensor<?x3xf32>, %b: tensor<2x4xf32>) {
  // expected-error @+1 {{expects inputs to agree on dim 1}}
  %0 = infc.concat %a, %b {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x4xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @broadcast_static_sizes_still_disagree(%a: tensor<?x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{operand shapes 'tensor<?x3xf32>' and 'tensor<4xf32>' do not broadcast}}
  // expected-error @+1 {{'infc.mul' op failed to infer returned types}}
  %0 = infc.mul %a, %b : (tensor<?x3xf32>, tensor<4xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @paged_attention_heads_not_a_multiple(%q: tensor<1x4x?x8xf32>, %k: tensor<1x3x?x8xf32>) {
  // expected-error @+1 {{expects static head counts, the query's a multiple of the key's, got 4 and 3}}
  %0 = infc.paged_attention %q, %k, %k {layer = 0 : i64, scale = 1.0 : f64} : (tensor<1x4x?x8xf32>, tensor<1x3x?x8xf32>, tensor<1x3x?x8xf32>) -> tensor<1x4x?x8xf32>
  return
}

// -----

func.func @paged_attention_rows_differ(%q: tensor<1x4x5x8xf32>, %k: tensor<1x2x6x8xf32>) {
  // expected-error @+1 {{expects query and key of the same rows}}
  %0 = infc.paged_attention %q, %k, %k {layer = 0 : i64, scale = 1.0 : f64} : (tensor<1x4x5x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x4x5x8xf32>
  return
}

// -----

func.func @paged_attention_scale_not_positive(%q: tensor<1x4x?x8xf32>, %k: tensor<1x2x?x8xf32>) {
  // expected-error @+1 {{expects a layer >= 0 and a positive scale}}
  %0 = infc.paged_attention %q, %k, %k {layer = 0 : i64, scale = 0.0 : f64} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  return
}

// -----

func.func @decoder_logits_width(%h: tensor<1x?x16xf32>, %w: tensor<12x10xf32>) {
  // expected-error @+1 {{expects a static weight [H, V] whose H is hidden's and V the result's}}
  %0 = infc.decoder_logits %h, %w : (tensor<1x?x16xf32>, tensor<12x10xf32>) -> tensor<1x?x10xf32>
  return
}

// -----

func.func @decoder_logits_batch(%h: tensor<2x?x16xf32>, %w: tensor<16x10xf32>) {
  // expected-error @+1 {{expects one batch row and the hidden rows' count in the result}}
  %0 = infc.decoder_logits %h, %w : (tensor<2x?x16xf32>, tensor<16x10xf32>) -> tensor<2x?x10xf32>
  return
}
