// RUN: infc-opt %s -split-input-file -verify-diagnostics

// Regression (fixed): I64Attr getters return uint64_t, so SoftmaxOp/LayerNormOp::verify's `getAxis() < 0` is
// never true and the message prints a negative axis as 18446744073709551615 (the check still
// fires through `>= rank`).

func.func @softmax_negative_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'infc.softmax' op expects axis in [0, 2), got -1}}
  %0 = infc.softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @layer_norm_negative_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>) {
  // expected-error @+1 {{'infc.layer_norm' op expects axis in [0, 2), got -1}}
  %0 = infc.layer_norm %x, %s {axis = -1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return
}
