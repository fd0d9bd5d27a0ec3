// RUN: infc-opt %s -infc-linalg-to-gpu-loops -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false" -split-input-file | FileCheck %s --check-prefix=OFF

// A LayerNorm's ops over rows of 100 (its mean and variance reductions, the elementwise
// ops between and after them) run as one kernel: a block per row (4), 128 threads each
// taking every 128th element of the row. A reduction's partial sums (f32) are combined in
// each warp by a butterfly of shuffles (xor 16, 8, ..., 1), the 4 warps' totals through
// shared memory after one barrier, added up by every thread; thread 0 adds the fill's value
// and stores the row's result, a barrier before each next op. No loop nest is left.
// CHECK-LABEL: func.func @layernorm
// CHECK-SAME: (%[[WS:.*]]: memref<2048xi8>, %[[X:.*]]: memref<4x100xf32>, %[[Y:.*]]: memref<4x100xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[MEAN:.*]] = memref.view %[[WS]][%c0][] : memref<2048xi8> to memref<4xf32>
// CHECK-DAG: %[[CENTERED:.*]] = memref.view %[[WS]][%c128][] : memref<2048xi8> to memref<4x100xf32>
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-SAME: workgroup(%[[S1:.*]] : memref<4xf32, #gpu.address_space<workgroup>>, %[[S2:.*]] : memref<4xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[PART:.*]] = scf.for %[[P:.*]] = %[[TID]] to %c100 step %c128 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (f32)
// CHECK: memref.load %[[X]][%[[ROW]], %[[P]]]
// CHECK: %[[SH16:.*]], %{{.*}} = gpu.shuffle  xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK: %[[W16:.*]] = arith.addf %[[PART]], %[[SH16]]
// CHECK: gpu.shuffle  xor %[[W16]], %c8_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: %[[SH1:.*]], %{{.*}} = gpu.shuffle  xor %[[W2:.*]], %c1_i32, %c32_i32
// CHECK: %[[WARP:.*]] = arith.addf %[[W2]], %[[SH1]]
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c32
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if %[[LEADER]] {
// CHECK: %[[W:.*]] = arith.divui %[[TID]], %c32
// CHECK: memref.store %[[WARP]], %[[S1]][%[[W]]]
// CHECK: gpu.barrier
// CHECK: %[[T0:.*]] = memref.load %[[S1]][%c0]
// CHECK: %[[T1:.*]] = memref.load %[[S1]][%c1]
// CHECK: %[[T01:.*]] = arith.addf %[[T0]], %[[T1]]
// CHECK: memref.load %[[S1]][%c2]
// CHECK: arith.addf %[[T01]]
// CHECK: memref.load %[[S1]][%c3]
// CHECK: %[[TOTAL:.*]] = arith.addf
// CHECK: arith.cmpi eq, %[[TID]], %c0
// CHECK: scf.if
// CHECK: %[[SUM:.*]] = arith.addf %[[TOTAL]], %[[ZERO]]
// CHECK: memref.store %[[SUM]], %[[MEAN]][%[[ROW]]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[Q:.*]] = %[[TID]] to %c100 step %c128 {
// CHECK: memref.load %[[MEAN]][%[[ROW]]]
// CHECK: memref.store %{{.*}}, %[[CENTERED]][%[[ROW]], %[[Q]]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: gpu.shuffle
// CHECK: memref.store %{{.*}}, %[[S2]][%{{.*}}]
// CHECK: math.rsqrt
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK: gpu.terminator
// CHECK-NOT: linalg.
// CHECK: return
// OFF-LABEL: func.func @layernorm
// OFF-NOT: gpu.launch
// OFF: scf.parallel
#row = affine_map<(i, j) -> (i)>
#id = affine_map<(i, j) -> (i, j)>
func.func @layernorm(%ws: memref<2048xi8>, %x: memref<4x100xf32>, %y: memref<4x100xf32>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 0.01 : f32
  %eps = arith.constant 1.0e-5 : f32
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %mean = memref.view %ws[%c0][] : memref<2048xi8> to memref<4xf32>
  %var = memref.view %ws[%c64][] : memref<2048xi8> to memref<4xf32>
  %centered = memref.view %ws[%c128][] : memref<2048xi8> to memref<4x100xf32>
  linalg.fill ins(%zero : f32) outs(%mean : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x100xf32>) outs(%mean : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : memref<4x100xf32>, memref<4xf32>) outs(%centered : memref<4x100xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %a = arith.mulf %m, %inv : f32
    %d = arith.subf %v, %a : f32
    linalg.yield %d : f32
  }
  linalg.fill ins(%zero : f32) outs(%var : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%centered : memref<4x100xf32>) outs(%var : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %sq : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%centered, %var : memref<4x100xf32>, memref<4xf32>) outs(%y : memref<4x100xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %a = arith.mulf %s, %inv : f32
    %b = arith.addf %a, %eps : f32
    %r = math.rsqrt %b : f32
    %n = arith.mulf %v, %r : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A sum of halves (f16: NVVM has no one-instruction shuffle for it) is combined in a
// shared-memory tree instead: a partial sum a thread in shared memory, each step halving
// the threads that add (32, 16, ..., 1), a barrier after each; thread 0 reads the total.
// CHECK-LABEL: func.func @sum_f16
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%[[S:.*]] : memref<64xf16, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.shuffle
// CHECK: %[[PART:.*]] = scf.for
// CHECK: memref.store %[[PART]], %[[S]][%[[TID:.*]]]
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %[[TID]], %c32
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[S]][%[[TID]]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %[[TID]], %c1
// CHECK: gpu.barrier
// CHECK: memref.load %[[S]][%c0]
// CHECK-NOT: gpu.shuffle
// CHECK: return
#sum_in = affine_map<(i, j) -> (i, j)>
#sum_out = affine_map<(i, j) -> (i)>
func.func @sum_f16(%ws: memref<1024xi8>, %x: memref<3x50xf16>, %y: memref<3xf16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%y : memref<3xf16>)
  linalg.generic {indexing_maps = [#sum_in, #sum_out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<3x50xf16>) outs(%y : memref<3xf16>) {
  ^bb0(%v: f16, %acc: f16):
    %s = arith.addf %v, %acc : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// A softmax in place over rows of 40 of a 3-D buffer (rows 2 x 3: the block index split
// into both), its max starting from the fill's -inf and combined with maximumf; 64 threads
// (the row rounded up to a power of two), read through a reshape of the row maxima.
// CHECK-LABEL: func.func @softmax_in_place
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: gpu.launch blocks(%[[ROW:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK: arith.remui %[[ROW]], %c3
// CHECK: arith.divui %[[ROW]], %c3
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: arith.maximumf %{{.*}}, %[[NEGINF]]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
#in3 = affine_map<(a, b, c) -> (a, b, c)>
#out3 = affine_map<(a, b, c) -> (a, b)>
#bcast = affine_map<(a, b, c) -> (a, b, 0)>
func.func @softmax_in_place(%ws: memref<1024xi8>, %x: memref<2x3x40xf32>) {
  %neginf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %m = memref.view %ws[%c0][] : memref<1024xi8> to memref<2x3xf32>
  linalg.fill ins(%neginf : f32) outs(%m : memref<2x3xf32>)
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x40xf32>) outs(%m : memref<2x3xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  %mx = memref.expand_shape %m [[0], [1, 2]] output_shape [2, 3, 1] : memref<2x3xf32> into memref<2x3x1xf32>
  linalg.generic {indexing_maps = [#in3, #bcast, #in3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : memref<2x3x40xf32>, memref<2x3x1xf32>) outs(%x : memref<2x3x40xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %d = arith.subf %v, %b : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  }
  linalg.fill ins(%zero : f32) outs(%m : memref<2x3xf32>)
  linalg.generic {indexing_maps = [#in3, #out3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<2x3x40xf32>) outs(%m : memref<2x3xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#in3, #bcast, #in3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mx : memref<2x3x40xf32>, memref<2x3x1xf32>) outs(%x : memref<2x3x40xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %q = arith.divf %v, %s : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// Not a row kernel: the op after the reduction reads its result across rows (transposed:
// row i needs the results of every row), so the ops lower as loops (a thread a point,
// the transpose the reduction's epilogue at the transposed point).
// CHECK-LABEL: func.func @reads_other_rows
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: %[[N:.*]] = arith.negf %[[SUM]]
// CHECK: memref.store %[[N]], %{{.*}}[%[[J]], %[[I]]]
// CHECK-NOT: scf.parallel
#red = affine_map<(i, j, k) -> (i, j, k)>
#rows = affine_map<(i, j, k) -> (i, j)>
#t = affine_map<(i, j) -> (j, i)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @reads_other_rows(%ws: memref<1024xi8>, %x: memref<4x4x64xf32>, %y: memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %r = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x4xf32>
  linalg.generic {indexing_maps = [#red, #rows], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<4x4x64xf32>) outs(%r : memref<4x4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#t, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : memref<4x4xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// Not a row kernel: the reduction's output shares bytes with its input (two workspace
// views that overlap), which another block may still be reading.
// CHECK-LABEL: func.func @output_overlaps_input
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
#ido = affine_map<(i, j) -> (i, j)>
#rowo = affine_map<(i, j) -> (i)>
func.func @output_overlaps_input(%ws: memref<2048xi8>) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %a = memref.view %ws[%c0][] : memref<2048xi8> to memref<4x64xf32>
  %r = memref.view %ws[%c256][] : memref<2048xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [#ido, #rowo], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x64xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not a row kernel: rows of 16 (below 32, a thread a row does as well); a matmul (its own
// kernels); a payload that is no combiner of the accumulator (a running mean).
// CHECK-LABEL: func.func @not_row_reductions
// CHECK-NOT: gpu.launch
// CHECK: return
#rowd = affine_map<(i, j) -> (i)>
#idd = affine_map<(i, j) -> (i, j)>
func.func @not_row_reductions(%x: memref<8x16xf32>, %r: memref<8xf32>, %a: memref<8x64xf32>,
                              %b: memref<64x8xf32>, %c: memref<8x8xf32>, %z: memref<8x64xf32>,
                              %s: memref<8xf32>) {
  %half = arith.constant 0.5 : f32
  linalg.generic {indexing_maps = [#idd, #rowd], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x16xf32>) outs(%r : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    linalg.yield %t : f32
  }
  linalg.matmul ins(%a, %b : memref<8x64xf32>, memref<64x8xf32>) outs(%c : memref<8x8xf32>)
  linalg.generic {indexing_maps = [#idd, #rowd], iterator_types = ["parallel", "reduction"]}
      ins(%z : memref<8x64xf32>) outs(%s : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %t = arith.addf %v, %acc : f32
    %m = arith.mulf %t, %half : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// The scale right after a matmul (attention's scores) is the matmul's epilogue, not the
// first op of the softmax's row kernel: the scaled scores are what is stored (in half, with
// --precision), read once by the row kernel.
// CHECK-LABEL: func.func @scale_stays_with_matmul
// CHECK-DAG: %[[EIGHTH:.*]] = arith.constant 1.250000e-01 : f32
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: %[[SCALED:.*]] = arith.mulf %{{.*}}, %[[EIGHTH]] : f32
// CHECK: memref.store %[[SCALED]]
// CHECK: gpu.launch
// CHECK-NOT: %[[EIGHTH]]
// CHECK: arith.maximumf
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
#mm_a = affine_map<(i, j, k) -> (i, k)>
#mm_b = affine_map<(i, j, k) -> (k, j)>
#mm_c = affine_map<(i, j, k) -> (i, j)>
#id2 = affine_map<(i, j) -> (i, j)>
#row2 = affine_map<(i, j) -> (i)>
func.func @scale_stays_with_matmul(%ws: memref<2048xi8>, %q: memref<4x8xf32>, %k: memref<8x40xf32>,
                                   %m: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %eighth = arith.constant 0.125 : f32
  %neginf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %c640 = arith.constant 640 : index
  %p = memref.view %ws[%c0][] : memref<2048xi8> to memref<4x40xf32>
  %s = memref.view %ws[%c640][] : memref<2048xi8> to memref<4x40xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x40xf32>)
  linalg.generic {indexing_maps = [#mm_a, #mm_b, #mm_c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<4x8xf32>, memref<8x40xf32>) outs(%p : memref<4x40xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %prod = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<4x40xf32>) outs(%s : memref<4x40xf32>) {
  ^bb0(%v: f32, %o: f32):
    %scaled = arith.mulf %v, %eighth : f32
    linalg.yield %scaled : f32
  }
  linalg.fill ins(%neginf : f32) outs(%m : memref<4xf32>)
  linalg.generic {indexing_maps = [#id2, #row2], iterator_types = ["parallel", "reduction"]}
      ins(%s : memref<4x40xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An op after a matmul that could not be its epilogue (it broadcasts the product along the
// row) still joins the row group: not a kernel of its own.
// CHECK-LABEL: func.func @broadcast_joins_rows
// CHECK: %[[V:.*]] = memref.view %{{.*}}[%c0][] : memref<2048xi8> to memref<4x1xf32>
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[V]]
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch
// CHECK: memref.load %[[V]]
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
#bc_a = affine_map<(i, j, k) -> (i, k)>
#bc_b = affine_map<(i, j, k) -> (k, j)>
#bc_c = affine_map<(i, j, k) -> (i, j)>
#bc_id = affine_map<(i, j) -> (i, j)>
#bc_col = affine_map<(i, j) -> (i, 0)>
#bc_row = affine_map<(i, j) -> (i)>
func.func @broadcast_joins_rows(%ws: memref<2048xi8>, %x: memref<4x8xf32>, %w: memref<8x1xf32>,
                                %s: memref<4x40xf32>, %m: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %neginf = arith.constant 0xFF800000 : f32
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %v = memref.view %ws[%c0][] : memref<2048xi8> to memref<4x1xf32>
  %e = memref.view %ws[%c64][] : memref<2048xi8> to memref<4x40xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<4x1xf32>)
  linalg.generic {indexing_maps = [#bc_a, #bc_b, #bc_c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<4x8xf32>, memref<8x1xf32>) outs(%v : memref<4x1xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %prod = arith.mulf %a, %b : f32
    %sum = arith.addf %acc, %prod : f32
    linalg.yield %sum : f32
  }
  linalg.generic {indexing_maps = [#bc_id, #bc_col, #bc_id], iterator_types = ["parallel", "parallel"]}
      ins(%s, %v : memref<4x40xf32>, memref<4x1xf32>) outs(%e : memref<4x40xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  }
  linalg.fill ins(%neginf : f32) outs(%m : memref<4xf32>)
  linalg.generic {indexing_maps = [#bc_id, #bc_row], iterator_types = ["parallel", "reduction"]}
      ins(%e : memref<4x40xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  return
}
