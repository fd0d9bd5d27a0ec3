// RUN: infc-opt %s -infc-gpu-launch-to-loops -cse -split-input-file -verify-diagnostics | FileCheck %s

// The emulator: a launch becomes loops over blocks (z, y, x) then threads (z, y, x), the
// ids and sizes the loop counters and the launch's operands.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: memref<512xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %[[BX:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %[[TX:.*]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK: %[[B:.*]] = arith.muli %[[BX]], %[[C256]] : index
// CHECK: %[[I:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK: memref.store %{{.*}}, %[[A]][%[[I]]]
// CHECK-NOT: gpu.
func.func @main(%a: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %sx : index
    %i = arith.addi %b, %tx : index
    memref.store %one, %a[%i] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @main(%a: memref<256xf32>) {
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  // expected-error @+1 {{infc-gpu-launch-to-loops: a kernel with barriers cannot run as loops}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    gpu.barrier
    gpu.terminator
  }
  return
}
