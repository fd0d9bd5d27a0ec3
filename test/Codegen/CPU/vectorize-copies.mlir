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

// Rows not contiguous (a stride of 2 innermost), or of one element: left alone.
// CHECK-LABEL: func.func @strided_rows
// CHECK: linalg.copy
// CHECK-LABEL: func.func @single_elements
// CHECK: linalg.copy
func.func @strided_rows(%x: memref<4x64xf32>, %y: memref<4x32xf32>) {
  %s = memref.subview %x[0, 0] [4, 32] [1, 2] : memref<4x64xf32> to memref<4x32xf32, strided<[64, 2]>>
  linalg.copy ins(%s : memref<4x32xf32, strided<[64, 2]>>) outs(%y : memref<4x32xf32>)
  return
}
func.func @single_elements(%x: memref<4x1xf32>, %y: memref<4x1xf32>) {
  linalg.copy ins(%x : memref<4x1xf32>) outs(%y : memref<4x1xf32>)
  return
}

// A row shorter than a vector (the 32 channels of a pixel in an int8 model's im2col) is
// one move of its length.
// CHECK-LABEL: func.func @short_rows
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c4 step %c1
// CHECK-NOT: scf.for
// CHECK: %[[V:.*]] = vector.transfer_read %arg0[%[[I]], %c0], %{{.*}} {in_bounds = [true]} : memref<4x32xi8>, vector<32xi8>
// CHECK: vector.transfer_write %[[V]], %arg1[%[[I]], %c0] {in_bounds = [true]} : vector<32xi8>, memref<4x32xi8>
// CHECK-NOT: linalg.copy
func.func @short_rows(%x: memref<4x32xi8>, %y: memref<4x32xi8>) {
  linalg.copy ins(%x : memref<4x32xi8>) outs(%y : memref<4x32xi8>)
  return
}
