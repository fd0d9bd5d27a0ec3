// RUN: infc-opt %s -infc-linalg-to-gpu-loops -cse -split-input-file | FileCheck %s

// A matmul: one point per output element, the output loaded once, the reduction over k a
// loop-carried value, one store.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%[[C0]], %[[C0]]) to (%[[C4]], %[[C16]]) step (%[[C1]], %[[C1]]) {
// CHECK: %[[INIT:.*]] = memref.load %[[C]][%[[I]], %[[J]]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %[[C1]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[I]], %[[K]]]
// CHECK: %[[Y:.*]] = memref.load %[[B]][%[[K]], %[[J]]]
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK: scf.yield %[[S]] : f32
// CHECK: }
// CHECK-NOT: memref.load %[[C]]
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK-NOT: linalg.
func.func @matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A pooling window is never loaded (the payload does not read it); strided windows index
// through affine maps; a fill reads no output.
// CHECK-LABEL: func.func @pool
// CHECK: scf.parallel
// CHECK-NOT: memref.load %{{.*}} : memref<2x2xf32>
// CHECK: affine.apply
// CHECK: scf.parallel
// CHECK-NOT: memref.load
// CHECK: memref.store
func.func @pool(%x: memref<1x1x4x4xf32>, %w: memref<2x2xf32>, %y: memref<1x1x2x2xf32>) {
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x1x4x4xf32>, memref<2x2xf32>) outs(%y : memref<1x1x2x2xf32>)
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x1x2x2xf32>)
  return
}

// -----

// A full reduction has no parallel dimension: a one-point parallel loop around it (one
// kernel of one thread); linalg.index becomes the loop counter.
// CHECK-LABEL: func.func @sum
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK: %[[INIT:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: scf.for %[[I:.*]] = {{.*}} iter_args(%{{.*}} = %[[INIT]]) -> (f32) {
// CHECK: arith.index_cast %[[I]]
// CHECK: memref.store %{{.*}}, %{{.*}}[] : memref<f32>
func.func @sum(%x: memref<8xf32>, %s: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<8xf32>) outs(%s : memref<f32>) {
  ^bb0(%v: f32, %acc: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %p = arith.mulf %v, %f : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A fill of a matmul's output right before it: the reduction starts from the fill value, no
// fill loop is left and the output is never read. A fill whose buffer is read in between
// stays.
// CHECK-LABEL: func.func @fill_then_matmul
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>, %[[D:.*]]: memref<4x16xf32>, %[[E:.*]]: memref<4x16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.parallel
// CHECK-NOT: memref.load %[[C]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: scf.parallel
// CHECK: memref.store %[[ZERO]], %[[D]]
// CHECK: scf.parallel
// CHECK: memref.store %{{.*}}, %[[E]]
// CHECK: scf.parallel
// CHECK: memref.load %[[D]]
// CHECK: scf.for
// CHECK-NOT: linalg.
func.func @fill_then_matmul(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>,
                            %d: memref<4x16xf32>, %e: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<4x16xf32>)
  linalg.copy ins(%d : memref<4x16xf32>) outs(%e : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%d : memref<4x16xf32>)
  return
}

// -----

// Also past a linalg op between that does not touch the filled buffer (--precision fp16's
// cast of the matmul's input to half, itself run inside the matmul's loads).
// CHECK-LABEL: func.func @fill_cast_matmul
// CHECK-SAME: (%[[WS:.*]]: memref<1024xi8>, %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf16>, %[[C:.*]]: memref<4x16xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: scf.parallel
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (f32)
// CHECK: memref.load %[[A]]
// CHECK: arith.truncf
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK-NOT: scf.parallel
// CHECK: return
#id12 = affine_map<(d0, d1) -> (d0, d1)>
func.func @fill_cast_matmul(%ws: memref<1024xi8>, %a: memref<4x8xf32>, %b: memref<8x16xf16>,
                            %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %h = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x8xf16>
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id12, #id12], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x8xf32>) outs(%h : memref<4x8xf16>) {
  ^bb0(%x: f32, %o: f16):
    %t = arith.truncf %x : f32 to f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %b : memref<4x8xf16>, memref<8x16xf16>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f16, %y: f16, %acc: f32):
    %xf = arith.extf %x : f16 to f32
    %yf = arith.extf %y : f16 to f32
    %m = arith.mulf %xf, %yf : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An elementwise op right after a reduction that reads its output at the same point (a bias
// add) runs in the same thread on the value just computed: no loop of its own, no load of
// the matmul's output. The output is still stored.
// CHECK-LABEL: func.func @epilogue
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<4x16xf32>, %[[Y:.*]]: memref<4x16xf32>)
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK: %[[B:.*]] = memref.load %[[BIAS]][%[[J]]]
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[B]] : f32
// CHECK: memref.store %[[R]], %[[Y]][%[[I]], %[[J]]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @epilogue(%a: memref<4x8xf32>, %w: memref<8x16xf32>, %bias: memref<16xf32>,
                    %c: memref<4x16xf32>, %y: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %w : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<4x16xf32>, memref<16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// In place too (bufferization writes a bias add into the product's buffer): the thread
// stores its sum, then the epilogue's result over it.
// CHECK-LABEL: func.func @epilogue_in_place
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK: %[[B:.*]] = memref.load %[[BIAS]][%[[J]]]
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[B]] : f32
// CHECK: memref.store %[[R]], %[[C]][%[[I]], %[[J]]]
// CHECK: scf.reduce
// CHECK-NOT: scf.parallel
// CHECK: return
#id1 = affine_map<(d0, d1) -> (d0, d1)>
#row1 = affine_map<(d0, d1) -> (d1)>
func.func @epilogue_in_place(%a: memref<4x8xf32>, %w: memref<8x16xf32>, %bias: memref<16xf32>,
                             %c: memref<4x16xf32>) {
  linalg.matmul ins(%a, %w : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id1, #row1, #id1], iterator_types = ["parallel", "parallel"]}
      ins(%c, %bias : memref<4x16xf32>, memref<16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not when the epilogue's output shares bytes with the matmul's input (the memory plan put
// two buffers that were live at different times at one offset): the fused loop would
// overwrite what other threads still read.
// CHECK-LABEL: func.func @epilogue_overlap
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.addf
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_overlap(%ws: memref<1024xi8>, %w: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %a = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x16xf32>
  %c = memref.view %ws[%c512][] : memref<1024xi8> to memref<4x16xf32>
  %y = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x16xf32>
  linalg.matmul ins(%a, %w : memref<4x16xf32>, memref<16x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Nor when the epilogue also reads the output through another view (another thread's
// element: a transposed read).
// CHECK-LABEL: func.func @epilogue_alias
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.addf
#id3 = affine_map<(d0, d1) -> (d0, d1)>
#tr3 = affine_map<(d0, d1) -> (d1, d0)>
func.func @epilogue_alias(%a: memref<4x4xf32>, %w: memref<4x4xf32>, %c: memref<4x4xf32>,
                          %y: memref<4x4xf32>) {
  linalg.matmul ins(%a, %w : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  %view = memref.cast %c : memref<4x4xf32> to memref<?x4xf32>
  %cv = memref.cast %view : memref<?x4xf32> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#id3, #tr3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%c, %cv : memref<4x4xf32>, memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %s = arith.addf %x, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Through a reshape too (the 2-D product of a 3-D activation, read back as 3-D by the bias
// add): the epilogue's indices come from the output's, the row split by an i32 division.
// CHECK-LABEL: func.func @epilogue_expanded
// CHECK-SAME: (%[[A:.*]]: memref<12x8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<12x16xf32>, %[[Y:.*]]: memref<3x4x16xf32>)
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK: %[[I32:.*]] = arith.index_castui %[[I]] : index to i32
// CHECK: %[[REM:.*]] = arith.remui %[[I32]], %{{.*}} : i32
// CHECK: %[[DIV:.*]] = arith.divui %[[I32]], %{{.*}} : i32
// CHECK-DAG: %[[INNER:.*]] = arith.index_castui %[[REM]] : i32 to index
// CHECK-DAG: %[[OUTER:.*]] = arith.index_castui %[[DIV]] : i32 to index
// CHECK: %[[B:.*]] = memref.load %[[BIAS]][%[[J]]]
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[B]] : f32
// CHECK: memref.store %[[R]], %[[Y]][%[[OUTER]], %[[INNER]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: return
#id4 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row4 = affine_map<(d0, d1, d2) -> (d2)>
func.func @epilogue_expanded(%a: memref<12x8xf32>, %w: memref<8x16xf32>, %bias: memref<16xf32>,
                             %c: memref<12x16xf32>, %y: memref<3x4x16xf32>) {
  linalg.matmul ins(%a, %w : memref<12x8xf32>, memref<8x16xf32>) outs(%c : memref<12x16xf32>)
  %c3 = memref.expand_shape %c [[0, 1], [2]] output_shape [3, 4, 16]
      : memref<12x16xf32> into memref<3x4x16xf32>
  linalg.generic {indexing_maps = [#id4, #row4, #id4],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c3, %bias : memref<3x4x16xf32>, memref<16xf32>) outs(%y : memref<3x4x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A unit dim takes index 0, no division (BERT's 32x256 products as 1x32x256); in place
// through the view.
// CHECK-LABEL: func.func @epilogue_expanded_unit
// CHECK-SAME: (%[[A:.*]]: memref<12x8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[C:.*]]: memref<12x16xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = memref.expand_shape %[[C]]
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK-NOT: arith.divui
// CHECK: %[[R:.*]] = arith.addf %[[SUM]]
// CHECK: memref.store %[[R]], %[[C3]][%[[ZERO]], %[[I]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: return
#id5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row5 = affine_map<(d0, d1, d2) -> (d2)>
func.func @epilogue_expanded_unit(%a: memref<12x8xf32>, %w: memref<8x16xf32>,
                                  %bias: memref<16xf32>, %c: memref<12x16xf32>) {
  linalg.matmul ins(%a, %w : memref<12x8xf32>, memref<8x16xf32>) outs(%c : memref<12x16xf32>)
  %c3 = memref.expand_shape %c [[0, 1], [2]] output_shape [1, 12, 16]
      : memref<12x16xf32> into memref<1x12x16xf32>
  linalg.generic {indexing_maps = [#id5, #row5, #id5],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c3, %bias : memref<1x12x16xf32>, memref<16xf32>) outs(%c3 : memref<1x12x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction of every dim (ReduceSum with no axes, keepdims) expanded from 0-d to 1x1x1:
// the expansion has no groups, every index of its result is 0 (it had been left unset).
// CHECK-LABEL: func.func @epilogue_expanded_from_scalar
// CHECK-SAME: (%[[X:.*]]: memref<3x2x2xf32>, %[[S:.*]]: memref<f32>, %[[Y:.*]]: memref<1x1x1xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[R:.*]] = arith.mulf %[[SUM]]
// CHECK: memref.store %[[R]], %[[Y]][%[[ZERO]], %[[ZERO]], %[[ZERO]]]
// CHECK: return
#all6 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#none6 = affine_map<(d0, d1, d2) -> ()>
#id6 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @epilogue_expanded_from_scalar(%x: memref<3x2x2xf32>, %s: memref<f32>,
                                         %y: memref<1x1x1xf32>) {
  linalg.generic {indexing_maps = [#all6, #none6],
                  iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x : memref<3x2x2xf32>) outs(%s : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  }
  %s3 = memref.expand_shape %s [] output_shape [1, 1, 1] : memref<f32> into memref<1x1x1xf32>
  linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%s3 : memref<1x1x1xf32>) outs(%y : memref<1x1x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A batch matmul's product read as 2-D: the row is batch * rows + row.
// CHECK-LABEL: func.func @epilogue_collapsed
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<8x16xf32>)
// CHECK: scf.parallel (%[[N:[a-z0-9]+]], %[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[SCALED:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.addi %[[SCALED]], %[[I]] : index
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[SUM]]
// CHECK: memref.store %[[R]], %[[Y]][%[[ROW]], %[[J]]]
// CHECK-NOT: scf.parallel
// CHECK: return
#id6 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_collapsed(%a: memref<2x4x8xf32>, %w: memref<2x8x16xf32>,
                              %c: memref<2x4x16xf32>, %y: memref<8x16xf32>) {
  linalg.batch_matmul ins(%a, %w : memref<2x4x8xf32>, memref<2x8x16xf32>)
      outs(%c : memref<2x4x16xf32>)
  %c2 = memref.collapse_shape %c [[0, 1], [2]] : memref<2x4x16xf32> into memref<8x16xf32>
  linalg.generic {indexing_maps = [#id6, #id6], iterator_types = ["parallel", "parallel"]}
      ins(%c2 : memref<8x16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not when the epilogue reads the output through two views (one of them at another
// thread's element).
// CHECK-LABEL: func.func @epilogue_two_views
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.addf
#id7 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @epilogue_two_views(%a: memref<12x8xf32>, %w: memref<8x16xf32>, %c: memref<12x16xf32>,
                              %y: memref<3x4x16xf32>) {
  linalg.matmul ins(%a, %w : memref<12x8xf32>, memref<8x16xf32>) outs(%c : memref<12x16xf32>)
  %v1 = memref.expand_shape %c [[0, 1], [2]] output_shape [3, 4, 16]
      : memref<12x16xf32> into memref<3x4x16xf32>
  %v2 = memref.expand_shape %c [[0, 1], [2]] output_shape [4, 3, 16]
      : memref<12x16xf32> into memref<4x3x16xf32>
  %v3 = memref.collapse_shape %v2 [[0, 1], [2]] : memref<4x3x16xf32> into memref<12x16xf32>
  %v4 = memref.expand_shape %v3 [[0, 1], [2]] output_shape [3, 4, 16]
      : memref<12x16xf32> into memref<3x4x16xf32>
  linalg.generic {indexing_maps = [#id7, #id7, #id7],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%v1, %v4 : memref<3x4x16xf32>, memref<3x4x16xf32>) outs(%y : memref<3x4x16xf32>) {
  ^bb0(%x: f32, %t: f32, %o: f32):
    %s = arith.addf %x, %t : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A product only the epilogue reads (a memory plan buffer, nothing after reads it) is not
// stored at all: the epilogue has it in a register.
// CHECK-LABEL: func.func @epilogue_dead_product
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<4x16xf32>)
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK-NOT: memref.store
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[SUM]]
// CHECK-NEXT: memref.store %[[R]], %[[Y]][%[[I]], %[[J]]]
// CHECK-NOT: memref.store
// CHECK: return
#id8 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_dead_product(%ws: memref<1024xi8>, %a: memref<4x8xf32>,
                                 %w: memref<8x16xf32>, %y: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x16xf32>
  linalg.matmul ins(%a, %w : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id8, #id8], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Stored when an op after the epilogue reads it too.
// CHECK-LABEL: func.func @epilogue_product_read_later
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<4x16xf32>, %[[Z:[a-z0-9]+]]: memref<4x16xf32>)
// CHECK: %[[C:.*]] = memref.view
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: memref.store %[[SUM]], %[[C]][%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[Y]][%[[I]], %[[J]]]
// CHECK: scf.parallel
// CHECK: memref.load %[[C]]
#id9 = affine_map<(d0, d1) -> (d0, d1)>
func.func @epilogue_product_read_later(%ws: memref<1024xi8>, %a: memref<4x8xf32>,
                                       %w: memref<8x16xf32>, %y: memref<4x16xf32>,
                                       %z: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x16xf32>
  linalg.matmul ins(%a, %w : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id9, #id9], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%y : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id9, #id9], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x16xf32>) outs(%z : memref<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A chain of epilogues (attention's Q: the product, its bias add, the transpose to heads),
// each on the element the one before computed: the transpose writes it at the permuted
// point. Neither the product nor the bias add's result is stored: only the next link reads
// them (workspace buffers, overwritten or dead after).
// CHECK-LABEL: func.func @epilogue_chain_transpose
// CHECK-SAME: (%[[WS:.*]]: memref<2048xi8>, %[[A:.*]]: memref<12x8xf32>, %[[W:.*]]: memref<8x16xf32>, %[[BIAS:.*]]: memref<16xf32>, %[[Y:.*]]: memref<1x2x12x8xf32>)
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK-NOT: memref.store
// CHECK: %[[B:.*]] = memref.load %[[BIAS]][%[[J]]]
// CHECK: %[[R:.*]] = arith.addf %[[SUM]], %[[B]] : f32
// CHECK-NOT: memref.store
// CHECK: %[[J32:.*]] = arith.index_castui %[[J]] : index to i32
// CHECK: %[[REM:.*]] = arith.remui %[[J32]]
// CHECK: %[[DIV:.*]] = arith.divui %[[J32]]
// CHECK-DAG: %[[LANE:.*]] = arith.index_castui %[[REM]] : i32 to index
// CHECK-DAG: %[[HEAD:.*]] = arith.index_castui %[[DIV]] : i32 to index
// CHECK: memref.store %[[R]], %[[Y]][%{{.*}}, %[[HEAD]], %[[I]], %[[LANE]]]
// CHECK-NOT: memref.store
// CHECK-NOT: scf.parallel
// CHECK: return
#id10 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row10 = affine_map<(d0, d1, d2) -> (d2)>
func.func @epilogue_chain_transpose(%ws: memref<2048xi8>, %a: memref<12x8xf32>,
                                    %w: memref<8x16xf32>, %bias: memref<16xf32>,
                                    %y: memref<1x2x12x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %c = memref.view %ws[%c0][] : memref<2048xi8> to memref<12x16xf32>
  %t = memref.view %ws[%c1024][] : memref<2048xi8> to memref<1x12x16xf32>
  linalg.matmul ins(%a, %w : memref<12x8xf32>, memref<8x16xf32>) outs(%c : memref<12x16xf32>)
  %c3 = memref.expand_shape %c [[0, 1], [2]] output_shape [1, 12, 16]
      : memref<12x16xf32> into memref<1x12x16xf32>
  linalg.generic {indexing_maps = [#id10, #row10, #id10],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c3, %bias : memref<1x12x16xf32>, memref<16xf32>) outs(%t : memref<1x12x16xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    linalg.yield %s : f32
  }
  %heads = memref.expand_shape %t [[0], [1], [2, 3]] output_shape [1, 12, 2, 8]
      : memref<1x12x16xf32> into memref<1x12x2x8xf32>
  linalg.transpose ins(%heads : memref<1x12x2x8xf32>) outs(%y : memref<1x2x12x8xf32>)
      permutation = [0, 2, 1, 3]
  return
}

// -----

// Not a second link whose output shares bytes with the first link's (the memory plan put
// them together): two threads would write one byte at different points.
// CHECK-LABEL: func.func @epilogue_chain_overlap
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: arith.addf
// CHECK: scf.reduce
// CHECK: scf.parallel
// CHECK: arith.negf
#id11 = affine_map<(d0, d1) -> (d0, d1)>
#tr11 = affine_map<(d0, d1) -> (d1, d0)>
func.func @epilogue_chain_overlap(%ws: memref<2048xi8>, %a: memref<8x8xf32>,
                                  %w: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1024 = arith.constant 1024 : index
  %t = memref.view %ws[%c1024][] : memref<2048xi8> to memref<8x8xf32>
  %y = memref.view %ws[%c1024][] : memref<2048xi8> to memref<8x8xf32>
  linalg.matmul ins(%a, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#id11, #id11], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<8x8xf32>) outs(%t : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#tr11, #id11], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n = arith.negf %x : f32
    linalg.yield %n : f32
  }
  return
}
