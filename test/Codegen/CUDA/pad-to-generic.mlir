// RUN: infc-opt %s -infc-pad-to-generic -split-input-file | FileCheck %s

// A pad becomes one loop nest over the result: the source is read at the clamped index and
// the padding value selected outside it (only the padded dims are checked).
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x3x3xf32>, %[[V:.*]]: f32)
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x6x4xf32>)
// CHECK: %[[I2:.*]] = linalg.index 2 : index
// CHECK: arith.subi %[[I2]], %{{.*}} : index
// CHECK: %[[C2:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: arith.cmpi sge, %[[I2]]
// CHECK: arith.cmpi slt, %[[I2]]
// CHECK: %[[I3:.*]] = linalg.index 3 : index
// CHECK: arith.subi %[[I3]], %{{.*}} : index
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}, %[[C2]], %{{.*}}] : tensor<1x2x3x3xf32>
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[E]], %[[V]] : f32
// CHECK: linalg.yield %[[R]] : f32
func.func @pad(%x: tensor<1x2x3x3xf32>, %v: f32) -> tensor<1x2x6x4xf32> {
  %0 = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 2, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %v : f32
  } : tensor<1x2x3x3xf32> to tensor<1x2x6x4xf32>
  return %0 : tensor<1x2x6x4xf32>
}

// -----

// A negative (cropping) pad is left alone.
// CHECK-LABEL: func.func @crop
// CHECK: tensor.pad
func.func @crop(%x: tensor<4xf32>, %v: f32) -> tensor<3xf32> {
  %0 = tensor.pad %x low[-1] high[0] {
  ^bb0(%a: index):
    tensor.yield %v : f32
  } : tensor<4xf32> to tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A padding constant made inside the pad's region is made again before the loop nest.
// CHECK-LABEL: func.func @inner_constant
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: arith.select %{{.*}}, %{{.*}}, %[[ZERO]] : f32
// CHECK-NOT: tensor.pad
func.func @inner_constant(%x: tensor<4xf32>) -> tensor<6xf32> {
  %0 = tensor.pad %x low[1] high[1] {
  ^bb0(%a: index):
    %z = arith.constant 0.0 : f32
    tensor.yield %z : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// A transpose into the pad (the NCHW image into the first NHWC convolution) is read through:
// the loop nest reads the transpose's input at the permuted index (source dim p is input dim
// perm[p]: NHWC [n, h, w, c] of NCHW [n, c, h, w]), and the transpose is gone.
// CHECK-LABEL: func.func @transpose_before
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x5xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x7x3xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: %[[H:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[I2:.*]] = linalg.index 2 : index
// CHECK: %[[W:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[I3:.*]] = linalg.index 3 : index
// CHECK: tensor.extract %[[X]][%[[I0]], %[[I3]], %[[H]], %[[W]]] : tensor<1x3x4x5xf32>
// CHECK-NOT: linalg.transpose
func.func @transpose_before(%x: tensor<1x3x4x5xf32>) -> tensor<1x6x7x3xf32> {
  %e = tensor.empty() : tensor<1x4x5x3xf32>
  %t = linalg.transpose ins(%x : tensor<1x3x4x5xf32>) outs(%e : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
  %z = arith.constant 0.0 : f32
  %0 = tensor.pad %t low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x4x5x3xf32> to tensor<1x6x7x3xf32>
  return %0 : tensor<1x6x7x3xf32>
}

// -----

// A transpose of the pad's result (an NCHW pad into an NHWC convolution) is the loop nest's
// own order: it runs over the transposed result [n, h, w, c], pad dim p at loop dim
// perm^-1[p] (the pad's H at loop 1), and the transpose is gone.
// CHECK-LABEL: func.func @transpose_after
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x4x5xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x7x3xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK: %[[I3:.*]] = linalg.index 3 : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK: arith.subi %[[I1]], %{{.*}} : index
// CHECK: %[[H:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: %[[I2:.*]] = linalg.index 2 : index
// CHECK: %[[W:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK: tensor.extract %[[X]][%[[I0]], %[[I3]], %[[H]], %[[W]]] : tensor<1x3x4x5xf32>
// CHECK-NOT: linalg.transpose
func.func @transpose_after(%x: tensor<1x3x4x5xf32>) -> tensor<1x6x7x3xf32> {
  %z = arith.constant 0.0 : f32
  %0 = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x3x4x5xf32> to tensor<1x3x6x7xf32>
  %e = tensor.empty() : tensor<1x6x7x3xf32>
  %t = linalg.transpose ins(%0 : tensor<1x3x6x7xf32>) outs(%e : tensor<1x6x7x3xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x6x7x3xf32>
}

// -----

// A transpose with other users stays, and the pad reads it.
// CHECK-LABEL: func.func @transpose_shared
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: linalg.generic
// CHECK: tensor.extract %[[T]]
func.func @transpose_shared(%x: tensor<1x3x4x5xf32>) -> (tensor<1x6x7x3xf32>, tensor<1x4x5x3xf32>) {
  %e = tensor.empty() : tensor<1x4x5x3xf32>
  %t = linalg.transpose ins(%x : tensor<1x3x4x5xf32>) outs(%e : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
  %z = arith.constant 0.0 : f32
  %0 = tensor.pad %t low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x4x5x3xf32> to tensor<1x6x7x3xf32>
  return %0, %t : tensor<1x6x7x3xf32>, tensor<1x4x5x3xf32>
}
