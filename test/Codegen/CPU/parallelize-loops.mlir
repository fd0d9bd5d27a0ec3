// RUN: infc-opt %s -infc-parallelize-loops="min-loop-work=0 min-function-work=0" | FileCheck %s
// RUN: infc-opt %s -infc-parallelize-loops | FileCheck %s --check-prefix=COST

// An scf.for marked infc.parallel whose iter_args (if any) are memrefs it yields back
// unchanged becomes a one-dimensional scf.parallel over the same bounds: the body is
// cloned with the iter_args replaced by their inits, and the loop's results by the inits.
// Everything else stays an scf.for.

// The output-column loop of a bufferized matmul, still carrying its buffer.
// CHECK-LABEL: func.func @marked_buffer
// CHECK-SAME: (%[[BUF:.*]]: memref<8x16xf32>, %[[OUT:.*]]: memref<8x16xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%[[J:.*]]) = (%[[C0]]) to (%[[C16]]) step (%[[C4]]) {
// CHECK: %[[SV:.*]] = memref.subview %[[BUF]][0, %[[J]]] [8, 4] [1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[SV]] :
// CHECK: scf.reduce
// CHECK-NOT: infc.parallel
// CHECK: linalg.copy ins(%[[BUF]] : memref<8x16xf32>) outs(%[[OUT]] : memref<8x16xf32>)
// CHECK: return
func.func @marked_buffer(%buf: memref<8x16xf32>, %out: memref<8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  %r = scf.for %j = %c0 to %c16 step %c4 iter_args(%b = %buf) -> (memref<8x16xf32>) {
    %sv = memref.subview %b[0, %j] [8, 4] [1, 1] : memref<8x16xf32> to memref<8x4xf32, strided<[16, 1], offset: ?>>
    linalg.fill ins(%one : f32) outs(%sv : memref<8x4xf32, strided<[16, 1], offset: ?>>)
    scf.yield %b : memref<8x16xf32>
  } {infc.parallel}
  linalg.copy ins(%r : memref<8x16xf32>) outs(%out : memref<8x16xf32>)
  return
}

// The same loop after canonicalization has dropped its iter_args.
// CHECK-LABEL: func.func @marked_no_iter_args
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) {
// CHECK: memref.store
// CHECK: scf.reduce
// CHECK-NOT: infc.parallel
// CHECK: return
func.func @marked_no_iter_args(%buf: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %buf[%i] : memref<16xf32>
  } {infc.parallel}
  return
}

// Not marked: stays sequential.
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @unmarked(%buf: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %buf[%i] : memref<16xf32>
  }
  return
}

// Marked, but it carries a value from one iteration to the next (a sum): stays.
// CHECK-LABEL: func.func @marked_carries_value
// CHECK-NOT: scf.parallel
// CHECK: %[[S:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: } {infc.parallel}
// CHECK: return %[[S]]
func.func @marked_carries_value(%buf: memref<16xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.for %i = %c0 to %c16 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = memref.load %buf[%i] : memref<16xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  } {infc.parallel}
  return %s : f32
}

// Marked, with a memref iter_arg that it does not simply yield back: stays.
// CHECK-LABEL: func.func @marked_swaps_buffers
// CHECK-NOT: scf.parallel
// CHECK: scf.for {{.*}} iter_args(%[[X:.*]] = %{{.*}}, %[[Y:.*]] = %{{.*}}) -> (memref<16xf32>, memref<16xf32>) {
// CHECK: scf.yield %[[Y]], %[[X]]
// CHECK: } {infc.parallel}
// CHECK: return
func.func @marked_swaps_buffers(%a: memref<16xf32>, %b: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %a, %y = %b) -> (memref<16xf32>, memref<16xf32>) {
    linalg.copy ins(%x : memref<16xf32>) outs(%y : memref<16xf32>)
    scf.yield %y, %x : memref<16xf32>, memref<16xf32>
  } {infc.parallel}
  return
}

// Three row blocks, each over two panels of 6-row tiles (infc-pack-matmul-panels' nest):
// one three-dimensional scf.parallel, the views of the outer bodies moved into it and the
// self-copy dropped, so the threads share all 3 x 2 x 4 iterations, not the 3 row blocks.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel (%[[R:.*]], %[[P:.*]], %[[T:.*]]) = (%{{.*}}, %{{.*}}, %{{.*}}) to (%{{.*}}, %{{.*}}, %{{.*}}) step (%{{.*}}, %{{.*}}, %{{.*}}) {
// CHECK: %[[ROW:.*]] = arith.muli %[[R]], %{{.*}} : index
// CHECK: %[[BLOCK:.*]] = memref.subview %arg0[%[[ROW]], 0] [24, 128]
// CHECK: %[[COL:.*]] = arith.muli %[[P]], %{{.*}} : index
// CHECK: %[[PANEL:.*]] = memref.subview %[[BLOCK]][0, %[[COL]]] [24, 64]
// CHECK: memref.subview %[[PANEL]][%[[T]], 0] [6, 64]
// CHECK: linalg.fill
// CHECK-NOT: memref.copy
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @nested(%c: memref<72x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c24 = arith.constant 24 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  scf.for %r = %c0 to %c3 step %c1 {
    %row = arith.muli %r, %c24 : index
    %block = memref.subview %c[%row, 0] [24, 128] [1, 1] : memref<72x128xf32> to memref<24x128xf32, strided<[128, 1], offset: ?>>
    scf.for %p = %c0 to %c2 step %c1 {
      %col = arith.muli %p, %c64 : index
      %panel = memref.subview %block[0, %col] [24, 64] [1, 1] : memref<24x128xf32, strided<[128, 1], offset: ?>> to memref<24x64xf32, strided<[128, 1], offset: ?>>
      scf.for %t = %c0 to %c24 step %c6 {
        %tile = memref.subview %panel[%t, 0] [6, 64] [1, 1] : memref<24x64xf32, strided<[128, 1], offset: ?>> to memref<6x64xf32, strided<[128, 1], offset: ?>>
        linalg.fill ins(%one : f32) outs(%tile : memref<6x64xf32, strided<[128, 1], offset: ?>>)
      } {infc.parallel}
      memref.copy %panel, %panel : memref<24x64xf32, strided<[128, 1], offset: ?>> to memref<24x64xf32, strided<[128, 1], offset: ?>>
    } {infc.parallel}
  } {infc.parallel}
  return
}

// The cost model (second RUN, default thresholds: min-loop-work 32768, min-function-work
// 1000000 units of about an instruction each). The tests above are all too small for it:
// COST-LABEL: func.func @marked_buffer
// COST-NOT: scf.parallel
// COST: scf.for
// COST: linalg.fill
// COST-NOT: infc.parallel
// COST: return

// One nest of 512 iterations, each filling 4096 floats (a linalg op counts its iteration
// space: about 2 million units): parallel. The loop of 16 stores beside it (about 50
// units) stays sequential, although the function as a whole is large.
// COST-LABEL: func.func @large_and_small
// COST: scf.parallel
// COST: linalg.fill
// COST: scf.reduce
// COST: scf.for
// COST-NOT: infc.parallel
// COST: memref.store
// COST: return
func.func @large_and_small(%big: memref<512x4096xf32>, %small: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c512 = arith.constant 512 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c512 step %c1 {
    %row = memref.subview %big[%i, 0] [1, 4096] [1, 1] : memref<512x4096xf32> to memref<4096xf32, strided<[1], offset: ?>>
    linalg.fill ins(%one : f32) outs(%row : memref<4096xf32, strided<[1], offset: ?>>)
  } {infc.parallel}
  scf.for %i = %c0 to %c16 step %c1 {
    memref.store %one, %small[%i] : memref<16xf32>
  } {infc.parallel}
  return
}

// Nests of about 41000 units each (40 fills of 1024; above min-loop-work), but 82000 in
// all (below min-function-work): the whole function stays on the calling thread.
// COST-LABEL: func.func @small_function
// COST-NOT: scf.parallel
// COST: return
func.func @small_function(%a: memref<40x1024xf32>, %b: memref<40x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c40 = arith.constant 40 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c40 step %c1 {
    %row = memref.subview %a[%i, 0] [1, 1024] [1, 1] : memref<40x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    linalg.fill ins(%one : f32) outs(%row : memref<1024xf32, strided<[1], offset: ?>>)
  } {infc.parallel}
  scf.for %i = %c0 to %c40 step %c1 {
    %row = memref.subview %b[%i, 0] [1, 1024] [1, 1] : memref<40x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
    linalg.fill ins(%one : f32) outs(%row : memref<1024xf32, strided<[1], offset: ?>>)
  } {infc.parallel}
  return
}

// A loop whose trip count is known only at run time counts as large.
// COST-LABEL: func.func @runtime_extent
// COST: scf.parallel
// COST: return
func.func @runtime_extent(%buf: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %buf[%i] : memref<?xf32>
  } {infc.parallel}
  return
}

// The nest of @small_function (about 41000 units) inside an unmarked loop of 30 iterations
// (a batch loop around a batched matmul's nest): it counts 30 times in the function's work
// (1.2 million, above min-function-work), so it is parallel, each run of it a region.
// COST-LABEL: func.func @repeated_nest
// COST: scf.for
// COST: scf.parallel
// COST: linalg.fill
// COST: return
func.func @repeated_nest(%a: memref<30x40x1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %one = arith.constant 1.0 : f32
  scf.for %b = %c0 to %c30 step %c1 {
    scf.for %i = %c0 to %c40 step %c1 {
      %row = memref.subview %a[%b, %i, 0] [1, 1, 1024] [1, 1, 1] : memref<30x40x1024xf32> to memref<1024xf32, strided<[1], offset: ?>>
      linalg.fill ins(%one : f32) outs(%row : memref<1024xf32, strided<[1], offset: ?>>)
    } {infc.parallel}
  }
  return
}
