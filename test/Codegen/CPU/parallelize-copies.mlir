// RUN: infc-opt %s -infc-parallelize-copies=min-bytes=1024 -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-parallelize-loops -infc-parallelize-copies=min-bytes=1024 -split-input-file | FileCheck %s --check-prefix=SERIAL

// A large top-level fill and copy become parallel loops over their first dimension wider
// than 1 (here dim 1: N is 1), one slice per iteration; a small one, and one inside a loop,
// stay as they are.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: memref<1x64x8x8xf32>, %[[B:.*]]: memref<1x64x8x8xf32>, %[[S:.*]]: memref<4xf32>)
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%c64{{.*}}) step
// CHECK: %[[SB:.*]] = memref.subview %[[B]][0, %[[I]], 0, 0] [1, 1, 8, 8] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[SB]] :
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK-DAG: %[[SA:.*]] = memref.subview %[[A]][0, %[[J]], 0, 0] [1, 1, 8, 8]
// CHECK-DAG: %[[SB2:.*]] = memref.subview %[[B]][0, %[[J]], 0, 0] [1, 1, 8, 8]
// CHECK: linalg.copy ins(%[[SA]] : {{.*}}) outs(%[[SB2]] :
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[S]] : memref<4xf32>)
// CHECK: scf.for
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<1x64x8x8xf32>) outs(%[[B]] : memref<1x64x8x8xf32>)
func.func @main(%a: memref<1x64x8x8xf32>, %b: memref<1x64x8x8xf32>, %s: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  linalg.fill ins(%zero : f32) outs(%b : memref<1x64x8x8xf32>)
  linalg.copy ins(%a : memref<1x64x8x8xf32>) outs(%b : memref<1x64x8x8xf32>)
  linalg.fill ins(%zero : f32) outs(%s : memref<4xf32>)
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.copy ins(%a : memref<1x64x8x8xf32>) outs(%b : memref<1x64x8x8xf32>)
  }
  return
}

// -----

// A function whose marked loops infc-parallelize-loops judged too small to wake the
// workers for (with the second pipeline, which marks the function infc.serial) keeps its
// large fill serial; alone, infc-parallelize-copies makes it parallel as above.
// CHECK-LABEL: func.func @small_model
// CHECK: scf.parallel
// CHECK: linalg.fill
// SERIAL-LABEL: func.func @small_model
// SERIAL-NOT: scf.parallel
// SERIAL-NOT: infc.serial
// SERIAL: return
func.func @small_model(%big: memref<64x64xf32>, %small: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%big : memref<64x64xf32>)
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %small[%i] : memref<16xf32>
  } {infc.parallel}
  return
}
