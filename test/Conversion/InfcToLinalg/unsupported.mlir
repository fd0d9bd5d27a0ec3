// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -verify-diagnostics

// Element types an elementwise op has no scalar lowering for are reported on the op, and the
// conversion fails.

func.func @sqrt_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+2 {{'infc.sqrt' op is not supported on element type 'i32'}}
  // expected-error @+1 {{failed to legalize operation 'infc.sqrt' that was explicitly marked illegal}}
  %0 = infc.sqrt %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @pow_bool(%x: tensor<3xi1>) -> tensor<3xi1> {
  // expected-error @+2 {{'infc.pow' op is not supported on element type 'i1'}}
  // expected-error @+1 {{failed to legalize operation 'infc.pow'}}
  %0 = infc.pow %x, %x : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0 : tensor<3xi1>
}

// -----

func.func @sigmoid_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+2 {{'infc.sigmoid' op is not supported on element type 'i32'}}
  // expected-error @+1 {{failed to legalize operation 'infc.sigmoid'}}
  %0 = infc.sigmoid %x : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @reciprocal_int(%x: tensor<3xi8>) -> tensor<3xi8> {
  // expected-error @+2 {{'infc.reciprocal' op is not supported on element type 'i8'}}
  // expected-error @+1 {{failed to legalize operation 'infc.reciprocal'}}
  %0 = infc.reciprocal %x : tensor<3xi8>
  return %0 : tensor<3xi8>
}

// -----

func.func @leaky_relu_int(%x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+2 {{'infc.leaky_relu' op is not supported on element type 'i32'}}
  // expected-error @+1 {{failed to legalize operation 'infc.leaky_relu'}}
  %0 = infc.leaky_relu %x {alpha = 0.1 : f64} : tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

func.func @exp_int(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+2 {{'infc.exp' op is not supported on element type 'i64'}}
  // expected-error @+1 {{failed to legalize operation 'infc.exp'}}
  %0 = infc.exp %x : tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// channels_last has lowerings for float convs (plain or depthwise) and plain integer convs
// only: a grouped integer one (which infc-channels-last never writes) is refused.
func.func @channels_last_grouped_int(%x: tensor<1x4x4x4xi32>) -> tensor<1x4x4x4xi32> {
  %w = infc.constant dense<1> : tensor<4x2x1x1xi32>
  // expected-error @+2 {{'infc.conv' op channels_last is lowered for float convolutions, plain or depthwise, and plain integer convolutions}}
  // expected-error @+1 {{failed to legalize operation 'infc.conv'}}
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xi32>, tensor<4x2x1x1xi32>) -> tensor<1x4x4x4xi32>
  return %y : tensor<1x4x4x4xi32>
}
