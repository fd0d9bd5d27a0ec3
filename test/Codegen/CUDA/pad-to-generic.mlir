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
