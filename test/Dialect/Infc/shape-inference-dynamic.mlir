// RUN: infc-opt %s -infc-shape-inference -split-input-file -verify-diagnostics | FileCheck %s

// Symbolic (`?`) dims through the shape functions (docs/dynamic-shapes.md step c): each op
// is written with a placeholder result, and the pass gives it the inferred type. A `?` meets
// 1 as `?` and a static n > 1 as n; window sizes of a `?` are `?`; a concatenated `?` is `?`.

// CHECK-LABEL: func @elementwise_and_linear
// CHECK-SAME: -> (tensor<?x3xf32>, tensor<5x3xf32>, tensor<?x3xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x3xi1>)
func.func @elementwise_and_linear(%a: tensor<?x3xf32>, %b: tensor<3xf32>, %c: tensor<5x1xf32>,
                                  %d: tensor<?x1xf32>, %w: tensor<3x4xf32>, %q: tensor<?x?xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>) {
  // CHECK: infc.add {{.*}} -> tensor<?x3xf32>
  %0 = infc.add %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x?xf32>
  // CHECK: infc.mul {{.*}} -> tensor<5x3xf32>
  %1 = infc.mul %a, %c : (tensor<?x3xf32>, tensor<5x1xf32>) -> tensor<?x?xf32>
  // CHECK: infc.sub {{.*}} -> tensor<?x3xf32>
  %2 = infc.sub %d, %a : (tensor<?x1xf32>, tensor<?x3xf32>) -> tensor<?x?xf32>
  // CHECK: infc.matmul {{.*}} -> tensor<?x4xf32>
  %3 = infc.matmul %a, %w : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  // A `?` contracting dim may be the other's 3.
  // CHECK: infc.matmul {{.*}} -> tensor<?x4xf32>
  %4 = infc.matmul %q, %w : (tensor<?x?xf32>, tensor<3x4xf32>) -> tensor<?x?xf32>
  // CHECK: infc.less {{.*}} -> tensor<?x3xi1>
  %5 = infc.less %a, %b : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x?xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>
}

// -----

// CHECK-LABEL: func @windows
// CHECK-SAME: -> (tensor<?x8x6x6xf32>, tensor<?x4x?x?xf32>, tensor<?x4xf32>)
func.func @windows(%x: tensor<?x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %y: tensor<?x4x?x?xf32>)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?xf32>) {
  // CHECK: infc.conv {{.*}} -> tensor<?x8x6x6xf32>
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<?x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<?x?x?x?xf32>
  // CHECK: infc.max_pool {{.*}} -> tensor<?x4x?x?xf32>
  %1 = infc.max_pool %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<?x4x?x?xf32>) -> tensor<?x?x?x?xf32>
  // CHECK: infc.reduce_mean {{.*}} -> tensor<?x4xf32>
  %2 = infc.reduce_mean %y {axes = array<i64: 2, 3>, keepdims = false} : (tensor<?x4x?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?xf32>
}

// -----

// CHECK-LABEL: func @data_movement
// CHECK-SAME: -> (tensor<3x?xf32>, tensor<?x3xf32>, tensor<4x?xf32>, tensor<?x5xf32>, tensor<?x2xf32>, tensor<?x3xi32>)
func.func @data_movement(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>, %c: tensor<4x?xf32>,
                         %e: tensor<?x8xf32>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>) {
  // CHECK: infc.transpose {{.*}} -> tensor<3x?xf32>
  %0 = infc.transpose %a {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<?x?xf32>
  // CHECK: infc.concat {{.*}} -> tensor<?x3xf32>
  %1 = infc.concat %a, %b {axis = 0 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x?xf32>
  // %c's 4 fixes dim 0; along the axis 3 + ? is ?.
  // CHECK: infc.concat {{.*}} -> tensor<4x?xf32>
  %2 = infc.concat %a, %c {axis = 1 : i64} : (tensor<?x3xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  // CHECK: infc.pad {{.*}} -> tensor<?x5xf32>
  %3 = infc.pad %a {low = array<i64: 0, 1>, high = array<i64: 0, 1>, mode = "constant"} : (tensor<?x3xf32>) -> tensor<?x?xf32>
  // CHECK: infc.topk {{.*}} -> tensor<?x2xf32>, tensor<?x2xi64>
  %4:2 = infc.topk %e {axis = 1 : i64, k = 2 : i64, largest = true} : tensor<?x8xf32> -> tensor<?x?xf32>, tensor<?x?xi64>
  // CHECK: infc.cast {{.*}} : tensor<?x3xf32> -> tensor<?x3xi32>
  %5 = infc.cast %a : tensor<?x3xf32> -> tensor<?x?xi32>
  return %0, %1, %2, %3, %4#0, %5 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi32>
}
