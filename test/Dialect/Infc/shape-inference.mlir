// RUN: infc-opt %s -mlir-very-unsafe-disable-verifier-on-parsing -infc-shape-inference -split-input-file -verify-diagnostics | FileCheck %s

// Result types written with dynamic dims are refined to the inferred static ones, in order
// (a refined result refines its users), and the function signature follows the returned
// values. The parser's verifier is off for the last case, an op whose inference fails (the
// pass's own error); the IR is verified after the pass.

// CHECK-LABEL: func @elementwise_chain
// CHECK-SAME: -> (tensor<2x3xf32>, tensor<2x3xi1>)
// CHECK: infc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: infc.relu %{{.*}} : tensor<2x3xf32>
// CHECK: infc.mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
// CHECK: infc.less %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: return %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<2x3xi1>
func.func @elementwise_chain(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<2x1xf32>) -> (tensor<?x?xf32>, tensor<?x?xi1>) {
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  %1 = infc.relu %0 : tensor<?x?xf32>
  %2 = infc.mul %1, %c : (tensor<?x?xf32>, tensor<2x1xf32>) -> tensor<?x?xf32>
  %3 = infc.less %2, %0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  return %2, %3 : tensor<?x?xf32>, tensor<?x?xi1>
}

// -----

// CHECK-LABEL: func @linear
// CHECK-SAME: -> (tensor<5x2x3x6xf32>, tensor<1x8x4x4xf32>, tensor<1x4x2x2xf32>)
// CHECK: infc.matmul {{.*}} -> tensor<5x2x3x6xf32>
// CHECK: infc.conv {{.*}} -> tensor<1x8x4x4xf32>
// CHECK: infc.max_pool {{.*}} -> tensor<1x4x2x2xf32>
func.func @linear(%a: tensor<2x3x4xf32>, %b: tensor<5x1x4x6xf32>, %x: tensor<1x4x8x8xf32>,
                  %w: tensor<8x4x3x3xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %0 = infc.matmul %a, %b : (tensor<2x3x4xf32>, tensor<5x1x4x6xf32>) -> tensor<?x?x?x?xf32>
  %1 = infc.conv %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x?x?x?xf32>
  %2 = infc.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x8x8xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// -----

// CHECK-LABEL: func @data_movement
// CHECK-SAME: -> (tensor<4x2xf32>, tensor<2x7xf32>, tensor<4x3x2xf32>, tensor<2x2xf32>, tensor<2x1xf32>, tensor<2xi64>)
// CHECK: infc.transpose {{.*}} -> tensor<4x2xf32>
// CHECK: infc.concat {{.*}} -> tensor<2x7xf32>
// CHECK: infc.gather {{.*}} -> tensor<3x2xf32>
// CHECK: infc.broadcast %{{.*}} : tensor<3x2xf32> -> tensor<4x3x2xf32>
// CHECK: infc.slice %{{.*}} {{.*}} : (tensor<4x2xf32>) -> tensor<2x2xf32>
// CHECK: infc.reduce_sum {{.*}} -> tensor<2x1xf32>
// CHECK: infc.shape {{.*}} -> tensor<2xi64>
func.func @data_movement(%x: tensor<2x4xf32>, %y: tensor<2x3xf32>, %t: tensor<5x2xf32>, %i: tensor<3xi32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<4x3x2xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi64>) {
  %0 = infc.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<?x?xf32>
  %1 = infc.concat %x, %y {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  %2 = infc.gather %t, %i {axis = 0 : i64} : (tensor<5x2xf32>, tensor<3xi32>) -> tensor<?x?xf32>
  %3 = infc.broadcast %2 : tensor<?x?xf32> -> tensor<4x3x2xf32>
  %4 = infc.slice %0 {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 2>, steps = array<i64: 1, 1>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %5 = infc.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x4xf32>) -> tensor<?x?xf32>
  %6 = infc.shape %1 : tensor<?x?xf32> -> tensor<?xi64>
  return %0, %1, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<4x3x2xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xi64>
}

// -----

// Types that already match are left alone; so is the signature.
// CHECK-LABEL: func @already_static
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK: infc.neg %{{.*}} : tensor<4xf32>
func.func @already_static(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = infc.neg %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cannot_infer(%a: tensor<3x4xf32>, %b: tensor<5x2xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{contracting dims differ}}
  // expected-error @+1 {{'infc.matmul' op cannot infer its result types}}
  %0 = infc.matmul %a, %b : (tensor<3x4xf32>, tensor<5x2xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
