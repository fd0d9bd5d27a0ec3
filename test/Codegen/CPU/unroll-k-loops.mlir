// RUN: infc-opt %s -infc-unroll-k-loops -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-unroll-k-loops=factor=2 -split-input-file | FileCheck %s --check-prefix=TWO

// The K loop of a 6 x 64 register tile (K = 18): four steps an iteration (16 of them), a
// remainder loop for the last two. At factor 2: nine iterations of two steps.
// CHECK-LABEL: func.func @k_loop
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[MAIN:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C4]] iter_args
// CHECK-COUNT-4: vector.contract
// CHECK: scf.yield
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[MAIN]])
// CHECK: vector.contract
// CHECK-NOT: vector.contract
// CHECK: scf.yield
// TWO-LABEL: func.func @k_loop
// TWO: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// TWO-COUNT-2: vector.contract
// TWO-NOT: vector.contract
// TWO: return
func.func @k_loop(%a: memref<6x18xf32>, %b: memref<18x64xf32>, %c: memref<6x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c18 = arith.constant 18 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x64xf32>
  %acc = scf.for %k = %c0 to %c18 step %c1 iter_args(%t = %zero) -> (vector<6x64xf32>) {
    %col = memref.subview %a[0, %k] [6, 1] [1, 1] : memref<6x18xf32> to memref<6x1xf32, strided<[18, 1], offset: ?>>
    %row = memref.subview %b[%k, 0] [1, 64] [1, 1] : memref<18x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
    %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x1xf32, strided<[18, 1], offset: ?>>, vector<6x1xf32>
    %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<1x64xf32>
    %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
    scf.yield %s : vector<6x64xf32>
  }
  vector.transfer_write %acc, %c[%c0, %c0] {in_bounds = [true, true]} : vector<6x64xf32>, memref<6x64xf32>
  return
}

// -----

// Loops that are not a register tile's K loop stay: one carrying no vector, one with a
// loop inside (the taps around the channels: only the inner one unrolls).
// CHECK-LABEL: func.func @others
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE:.*]] {
// CHECK: memref.store
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[ONE]] iter_args
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-COUNT-4: vector.fma
func.func @others(%m: memref<16xf32>, %v: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %m[%i] : memref<16xf32>
  }
  %r = scf.for %t = %c0 to %c8 step %c1 iter_args(%a = %v) -> (vector<16xf32>) {
    %s = scf.for %k = %c0 to %c8 step %c1 iter_args(%b = %a) -> (vector<16xf32>) {
      %f = vector.fma %v, %v, %b : vector<16xf32>
      scf.yield %f : vector<16xf32>
    }
    scf.yield %s : vector<16xf32>
  }
  return %r : vector<16xf32>
}
