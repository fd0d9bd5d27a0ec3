// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// Regression (fixed): a zero-size concat input after the others is inserted at offset == dim size, which
// tensor.insert_slice rejects ("offset 1 is out-of-bounds: 3 >= 3"). ONNX models concat empty
// tensors (e.g. an empty past state); empty inputs should simply be skipped.

// CHECK-LABEL: func @concat_empty_last
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x3xf32>
// CHECK-NOT: tensor.insert_slice
func.func @concat_empty_last(%x: tensor<2x3xf32>, %y: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %0 = infc.concat %x, %y {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
