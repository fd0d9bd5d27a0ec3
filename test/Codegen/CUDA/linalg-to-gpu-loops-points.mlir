// RUN: infc-opt %s -infc-linalg-to-gpu-loops -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="point-groups=false" -split-input-file | FileCheck %s --check-prefix=OFF

// An LSTM cell's tail: all-parallel ops over the same 3x16 points, each reading what the
// ones before wrote at its own point, run as one loop nest (one kernel), the payloads in
// turn at each point. The 3x1 mask between them (other ranges, independent of the ops
// before it) moves before the run.
// CHECK-LABEL: func.func @cell
// CHECK-SAME: (%[[WS:.*]]: memref<1024xi8>, %[[X:.*]]: memref<3x16xf32>, %[[L:.*]]: memref<3x1xi32>, %[[H:.*]]: memref<3x16xf32>)
// CHECK: %[[T:.*]] = memref.view %[[WS]]
// CHECK: %[[M:.*]] = memref.view %[[WS]]
// CHECK: scf.parallel (%[[R:[a-z0-9]+]], %[[C:[a-z0-9]+]]) = {{.*}} to (%{{.*}}, %c1)
// CHECK: arith.cmpi
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: math.tanh
// CHECK: memref.store %{{.*}}, %[[T]][%[[I]], %[[J]]]
// CHECK: memref.load %[[M]][%[[I]], %{{.*}}]
// CHECK: memref.load %[[T]][%[[I]], %[[J]]]
// CHECK: arith.select
// CHECK: memref.store %{{.*}}, %[[H]][%[[I]], %[[J]]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
// OFF-LABEL: func.func @cell
// OFF: scf.parallel
// OFF: math.tanh
// OFF: scf.parallel
// OFF: arith.cmpi
// OFF: scf.parallel
// OFF: arith.select
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i, 0)>
func.func @cell(%ws: memref<1024xi8>, %x: memref<3x16xf32>, %len: memref<3x1xi32>,
                %h: memref<3x16xf32>) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1 : i32
  %t = memref.view %ws[%c0][] : memref<1024xi8> to memref<3x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<3x16xf32>) outs(%t : memref<3x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  }
  %m = memref.view %ws[%c256][] : memref<1024xi8> to memref<3x1xi1>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%len : memref<3x1xi32>) outs(%m : memref<3x1xi1>) {
  ^bb0(%v: i32, %o: i1):
    %r = arith.cmpi sgt, %v, %one : i32
    linalg.yield %r : i1
  }
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %t : memref<3x1xi1>, memref<3x16xf32>) outs(%h : memref<3x16xf32>) {
  ^bb0(%k: i1, %v: f32, %o: f32):
    %r = arith.select %k, %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Not when an op reads what an earlier one wrote at another point (transposed): that
// element belongs to another thread, which may not have written it yet.
// CHECK-LABEL: func.func @other_point
// CHECK: scf.parallel
// CHECK: math.tanh
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.negf
#id2 = affine_map<(i, j) -> (i, j)>
#tr2 = affine_map<(i, j) -> (j, i)>
func.func @other_point(%ws: memref<1024xi8>, %x: memref<4x4xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %t = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Nor past an op of other ranges that reads what the run wrote: it cannot move before it,
// so the run ends there (and the op after runs on its own).
// CHECK-LABEL: func.func @dependent_between
// CHECK: scf.parallel
// CHECK: math.tanh
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.addf
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.negf
#id3 = affine_map<(i, j) -> (i, j)>
func.func @dependent_between(%ws: memref<1024xi8>, %x: memref<4x4xf32>, %y: memref<2x4xf32>,
                             %z: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %t = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  }
  %top = memref.subview %t[0, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%top : memref<2x4xf32, strided<[4, 1]>>) outs(%y : memref<2x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.addf %v, %v : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x4xf32>) outs(%z : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Scalars (ops of no loops) stay one-point loops of their own.
// CHECK-LABEL: func.func @scalars
// CHECK: scf.parallel
// CHECK: arith.negf
// CHECK: scf.parallel
// CHECK: math.exp
#s = affine_map<() -> ()>
func.func @scalars(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>) {
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%a : memref<f32>) outs(%b : memref<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%b : memref<f32>) outs(%c : memref<f32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  }
  return
}
