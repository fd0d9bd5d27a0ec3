// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// A multi-dim tensor with no elements crosses the function boundary as tensor<0xT> (the
// bare-pointer call convention refuses memref<2x4x0xf32>, whose canonical strides are not
// static); inside, the argument is a tensor.empty of its shape, and the result a fresh one.

// CHECK-LABEL: func @empty_io
// CHECK-SAME: (%{{.*}}: tensor<0xf32>, %[[X:.*]]: tensor<2x4xf32>) -> (tensor<0xf32>, tensor<2x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x0xf32>
// CHECK: tensor.insert_slice %[[X]]
// CHECK: %[[R:.*]] = tensor.empty() : tensor<0xf32>
// CHECK: return %[[R]], %{{.*}} : tensor<0xf32>, tensor<2x4xf32>
func.func @empty_io(%e: tensor<2x0xf32>, %x: tensor<2x4xf32>) -> (tensor<2x0xf32>, tensor<2x4xf32>) {
  %0 = infc.concat %e, %x {axis = 1 : i64} : (tensor<2x0xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %1 = infc.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 0>, steps = array<i64: 1, 1>} : (tensor<2x4xf32>) -> tensor<2x0xf32>
  return %1, %0 : tensor<2x0xf32>, tensor<2x4xf32>
}
