// RUN: infc-opt %s -infc-outline-parallel-regions -split-input-file | FileCheck %s

// Each omp.parallel of a function with several becomes a call of an internal function of
// its own. The arguments are what the region reads from outside but constants, global
// addresses and GEPs of them, which are made again inside (LLVM folds those into the
// outlined body). Nested regions move with the outer one; the attributes that steer code
// generation are copied.
llvm.mlir.global internal constant @weights(dense<1.0> : tensor<8xf32>) : !llvm.array<8 x f32>

// CHECK-LABEL: llvm.func internal @main_par_0(
// CHECK-SAME:      %[[M:.*]]: i64, %[[OUT:.*]]: !llvm.ptr)
// CHECK-SAME:      target_cpu = "znver3"
// CHECK:         %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
// CHECK:         %[[W:.*]] = llvm.mlir.addressof @weights
// CHECK:         %[[AT:.*]] = llvm.getelementptr %[[W]][2]
// CHECK:         omp.parallel {
// CHECK:           llvm.add %[[M]], %[[FOUR]]
// CHECK:           llvm.load %[[AT]]
// CHECK:           omp.parallel {
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func internal @main_par_1(
// CHECK-SAME:      %{{.*}}: !llvm.ptr)
// CHECK-NOT:     omp.parallel
// CHECK:         omp.parallel {
// CHECK-NOT:     omp.parallel
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @main(
// CHECK-SAME:      %[[ARG0:.*]]: !llvm.ptr, %[[ARG1:.*]]: i64)
// CHECK-NOT:     omp.parallel
// CHECK:         %[[SQUARE:.*]] = llvm.mul %[[ARG1]], %[[ARG1]]
// CHECK:         llvm.call @main_par_0(%[[SQUARE]], %[[ARG0]]) : (i64, !llvm.ptr) -> ()
// CHECK:         llvm.call @main_par_1(%[[ARG0]]) : (!llvm.ptr) -> ()
// CHECK-NOT:     omp.parallel
// CHECK:         llvm.return
llvm.func @main(%out: !llvm.ptr, %n: i64) attributes {target_cpu = "znver3"} {
  %four = llvm.mlir.constant(4 : i64) : i64
  %w = llvm.mlir.addressof @weights : !llvm.ptr
  %at = llvm.getelementptr %w[2] : (!llvm.ptr) -> !llvm.ptr, f32
  %m = llvm.mul %n, %n : i64
  omp.parallel {
    %v = llvm.add %m, %four : i64
    %x = llvm.load %at : !llvm.ptr -> f32
    llvm.store %v, %out : i64, !llvm.ptr
    omp.parallel {
      llvm.store %x, %out : f32, !llvm.ptr
      omp.terminator
    }
    omp.terminator
  }
  omp.parallel {
    llvm.store %four, %out : i64, !llvm.ptr
    omp.terminator
  }
  llvm.return
}

// -----

// One region alone: left where it is.
// CHECK-LABEL: llvm.func @single(
// CHECK:         omp.parallel
// CHECK-NOT:     llvm.call
llvm.func @single(%out: !llvm.ptr) {
  %one = llvm.mlir.constant(1 : i64) : i64
  omp.parallel {
    llvm.store %one, %out : i64, !llvm.ptr
    omp.terminator
  }
  llvm.return
}
