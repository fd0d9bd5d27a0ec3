// RUN: infc-opt %s -infc-lower-copies | FileCheck %s

// memref.copy (a runtime-library call once lowered) becomes linalg.copy, contiguous or strided,
// also inside loops.

// CHECK-LABEL: func @copies
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>, %[[S:.*]]: memref<2x8xf32, strided<[16, 1], offset: 4>>, %[[C:.*]]: memref<2x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<4x8xf32>) outs(%[[B]] : memref<4x8xf32>)
// CHECK: linalg.copy ins(%[[S]] : memref<2x8xf32, strided<[16, 1], offset: 4>>) outs(%[[C]] : memref<2x8xf32>)
// CHECK: scf.for
// CHECK: %[[ROW:.*]] = memref.subview %[[A]]
// CHECK: linalg.copy ins(%[[ROW]] : memref<8xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @copies(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %s: memref<2x8xf32, strided<[16, 1], offset: 4>>, %c: memref<2x8xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  memref.copy %s, %c : memref<2x8xf32, strided<[16, 1], offset: 4>> to memref<2x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    %tmp = memref.alloc() : memref<8xf32>
    memref.copy %row, %tmp : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
  }
  return
}

// A copy of a buffer onto itself (an in-place insert_slice after bufferization) goes away.
// CHECK-LABEL: func @self_copy
// CHECK-NOT: linalg.copy
// CHECK-NOT: memref.copy
// CHECK: return
func.func @self_copy(%a: memref<4x8xf32>) {
  %v = memref.subview %a[1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  memref.copy %v, %v : memref<2x8xf32, strided<[8, 1], offset: 8>> to memref<2x8xf32, strided<[8, 1], offset: 8>>
  return
}
