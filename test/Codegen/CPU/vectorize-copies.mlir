// RUN: infc-opt %s -infc-vectorize-copies=vector-bits=512 -cse | FileCheck %s

// A copy out of a strided subsample (every other row and pixel, channels contiguous):
// loops over the outer dims, each row of 40 floats as two 16-lane moves and an 8-lane one.
// CHECK-LABEL: func.func @subsample
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c1 step %c1
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c2 step %c1
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %c3 step %c1
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %c32 step %c16
// CHECK: %[[V:.*]] = vector.transfer_read %{{.*}}[%[[I]], %[[J]], %[[K]], %[[L]]], %{{.*}} {in_bounds = [true]} : memref<1x2x3x40xf32, strided<[960, 480, 80, 1]>>, vector<16xf32>
// CHECK: vector.transfer_write %[[V]], %arg1[%[[I]], %[[J]], %[[K]], %[[L]]] {in_bounds = [true]} : vector<16xf32>, memref<1x2x3x40xf32>
// CHECK: }
// CHECK: %[[R:.*]] = vector.transfer_read %{{.*}}[%[[I]], %[[J]], %[[K]], %c32], %{{.*}} {in_bounds = [true]} : memref<1x2x3x40xf32, strided<[960, 480, 80, 1]>>, vector<8xf32>
// CHECK: vector.transfer_write %[[R]], %arg1[%[[I]], %[[J]], %[[K]], %c32] {in_bounds = [true]} : vector<8xf32>, memref<1x2x3x40xf32>
// CHECK-NOT: linalg.copy
func.func @subsample(%x: memref<1x4x6x40xf32>, %y: memref<1x2x3x40xf32>) {
  %s = memref.subview %x[0, 0, 0, 0] [1, 2, 3, 40] [1, 2, 2, 1] : memref<1x4x6x40xf32> to memref<1x2x3x40xf32, strided<[960, 480, 80, 1]>>
  linalg.copy ins(%s : memref<1x2x3x40xf32, strided<[960, 480, 80, 1]>>) outs(%y : memref<1x2x3x40xf32>)
  return
}

// Rows not contiguous (a stride of 2 innermost), or shorter than a vector: left alone.
// CHECK-LABEL: func.func @strided_rows
// CHECK: linalg.copy
// CHECK-LABEL: func.func @short_rows
// CHECK: linalg.copy
func.func @strided_rows(%x: memref<4x64xf32>, %y: memref<4x32xf32>) {
  %s = memref.subview %x[0, 0] [4, 32] [1, 2] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 2]>>
  linalg.copy ins(%s : memref<4x32xf32, strided<[64, 2]>>) outs(%y : memref<4x32xf32>)
  return
}
func.func @short_rows(%x: memref<4x3xf32>, %y: memref<4x3xf32>) {
  linalg.copy ins(%x : memref<4x3xf32>) outs(%y : memref<4x3xf32>)
  return
}
