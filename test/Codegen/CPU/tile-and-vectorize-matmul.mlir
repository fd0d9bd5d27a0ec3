// RUN: infc-opt %s -infc-tile-and-vectorize-matmul | FileCheck %s --check-prefix=AVX2
// RUN: infc-opt %s -infc-tile-and-vectorize-matmul=vector-bits=256 | FileCheck %s --check-prefix=AVX2
// RUN: infc-opt %s -infc-tile-and-vectorize-matmul=vector-bits=512 | FileCheck %s --check-prefix=AVX512

// Static f32 linalg.matmul [M, N, K] on tensors: register tiles mr x nr (6 x 16 at 256 bits,
// 6 x 64 at 512, see chooseRegisterTile), loops N, M, K with K in steps of one, the N loop marked infc.parallel, the
// tile a vector.contract whose accumulator is read before the K loop, carried as a vector
// iter_arg and written once after it. The N and M loops are peeled: a static edge tile
// follows the full tiles.

// M = 64 = 10 x 6 + 4 at 256 bits: ten 6x16 tiles, then a peeled 4x16 tile, per 16 columns.
// AVX2-LABEL: func.func @mm_64x128x96
// AVX2-DAG: %[[C0:.*]] = arith.constant 0 : index
// AVX2-DAG: %[[C1:.*]] = arith.constant 1 : index
// AVX2-DAG: %[[C6:.*]] = arith.constant 6 : index
// AVX2-DAG: %[[C16:.*]] = arith.constant 16 : index
// AVX2-DAG: %[[C60:.*]] = arith.constant 60 : index
// AVX2-DAG: %[[C96:.*]] = arith.constant 96 : index
// AVX2-DAG: %[[C128:.*]] = arith.constant 128 : index
// AVX2: %[[R:.*]] = scf.for %[[N:.*]] = %[[C0]] to %[[C128]] step %[[C16]] iter_args
// AVX2: scf.for %[[M:.*]] = %[[C0]] to %[[C60]] step %[[C6]] iter_args
// AVX2: %[[CT:.*]] = tensor.extract_slice %{{.*}}[%[[M]], %[[N]]] [6, 16] [1, 1] : tensor<64x128xf32> to tensor<6x16xf32>
// AVX2: %[[INIT:.*]] = vector.transfer_read %[[CT]]{{.*}} : tensor<6x16xf32>, vector<6x16xf32>
// AVX2: %[[K:.*]] = scf.for %[[KI:.*]] = %[[C0]] to %[[C96]] step %[[C1]] iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (vector<6x16xf32>)
// AVX2-DAG: tensor.extract_slice %{{.*}}[%[[KI]], 0] [1, 16] [1, 1] : tensor<96x16xf32> to tensor<1x16xf32>
// AVX2-DAG: tensor.extract_slice %{{.*}}[0, %[[KI]]] [6, 1] [1, 1] : tensor<6x96xf32> to tensor<6x1xf32>
// AVX2: %[[SUM:.*]] = vector.contract {{.*}}, %[[ACC]] : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// AVX2: scf.yield %[[SUM]] : vector<6x16xf32>
// AVX2: vector.transfer_write %[[K]], {{.*}} : vector<6x16xf32>, tensor<6x16xf32>
// AVX2: tensor.insert_slice {{.*}}[%[[M]], %[[N]]] [6, 16] [1, 1] : tensor<6x16xf32> into tensor<64x128xf32>
// The peeled M edge: rows 60..63, static.
// AVX2: tensor.extract_slice %{{.*}}[60, %[[N]]] [4, 16] [1, 1] : tensor<64x128xf32> to tensor<4x16xf32>
// AVX2: vector.transfer_read {{.*}} : tensor<4x16xf32>, vector<4x16xf32>
// AVX2: scf.for %{{.*}} = %[[C0]] to %[[C96]] step %[[C1]] iter_args({{.*}}) -> (vector<4x16xf32>)
// AVX2: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: vector.transfer_write {{.*}} : vector<4x16xf32>, tensor<4x16xf32>
// AVX2: } {infc.parallel}
// AVX2-NOT: linalg.matmul
// AVX2: return %[[R]]

// 64 x 128 divides into 8x32 tiles: no edge at 512 bits.
// At 512 bits the tile is 6 x 64 (24 zmm accumulators): M = 64 = 10 x 6 + 4, so ten 6x64
// tiles and a peeled 4x64 edge per 64 columns.
// AVX512-LABEL: func.func @mm_64x128x96
// AVX512-DAG: %[[C0:.*]] = arith.constant 0 : index
// AVX512-DAG: %[[C1:.*]] = arith.constant 1 : index
// AVX512-DAG: %[[C6:.*]] = arith.constant 6 : index
// AVX512-DAG: %[[C60:.*]] = arith.constant 60 : index
// AVX512-DAG: %[[C64:.*]] = arith.constant 64 : index
// AVX512-DAG: %[[C96:.*]] = arith.constant 96 : index
// AVX512-DAG: %[[C128:.*]] = arith.constant 128 : index
// AVX512: scf.for %[[N:.*]] = %[[C0]] to %[[C128]] step %[[C64]] iter_args
// AVX512: scf.for %[[M:.*]] = %[[C0]] to %[[C60]] step %[[C6]] iter_args
// AVX512: tensor.extract_slice %{{.*}}[%[[M]], %[[N]]] [6, 64] [1, 1] : tensor<64x128xf32> to tensor<6x64xf32>
// AVX512: %[[INIT:.*]] = vector.transfer_read {{.*}} : tensor<6x64xf32>, vector<6x64xf32>
// AVX512: %[[K:.*]] = scf.for %{{.*}} = %[[C0]] to %[[C96]] step %[[C1]] iter_args(%[[ACC:[a-z0-9_]+]] = %[[INIT]]) -> (vector<6x64xf32>)
// AVX512: %[[SUM:.*]] = vector.contract {{.*}}, %[[ACC]] : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: scf.yield %[[SUM]] : vector<6x64xf32>
// AVX512: vector.transfer_write %[[K]], {{.*}} : vector<6x64xf32>, tensor<6x64xf32>
// AVX512: tensor.extract_slice %{{.*}}[60, %[[N]]] [4, 64] [1, 1] : tensor<64x128xf32> to tensor<4x64xf32>
// AVX512: vector.contract {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// AVX512-NOT: vector.contract
// AVX512: } {infc.parallel}
// AVX512-NOT: linalg.matmul
// AVX512: return
func.func @mm_64x128x96(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// N = 49 leaves an N edge. At 256 bits, N = 3 x 16 + 1 and M = 10 x 6 + 4. M is peeled
// before N, so the one-column strip is tiled like the rest: static 6x1 tiles and a 4x1 edge,
// and no tile stays dynamic.
// AVX2-LABEL: func.func @mm_64x49x96
// AVX2-NOT: affine.min
// AVX2: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// AVX2: vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: } {infc.parallel}
// AVX2: vector.contract {{.*}} into vector<6x1xf32>
// AVX2: vector.contract {{.*}} into vector<4x1xf32>
// AVX2-NOT: linalg.matmul
// AVX2-NOT: affine.min
// AVX2: return

// At 512 bits N = 49 is less than the 64-wide tile: a single column tile 49 wide (four
// vectors a row once LLVM widens it), 6 rows, and a 4-row edge; the row-tile loop is the
// parallel one.
// AVX512-LABEL: func.func @mm_64x49x96
// AVX512: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX512: tensor.extract_slice %{{.*}}[%[[M]], 0] [6, 49] [1, 1] : tensor<64x49xf32> to tensor<6x49xf32>
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x49xf32> into vector<6x49xf32>
// AVX512: } {infc.parallel}
// AVX512: vector.contract {{.*}} : vector<4x1xf32>, vector<1x49xf32> into vector<4x49xf32>
// AVX512-NOT: infc.parallel
// AVX512-NOT: linalg.matmul
// AVX512: return
func.func @mm_64x49x96(%a: tensor<64x96xf32>, %b: tensor<96x49xf32>, %c: tensor<64x49xf32>) -> tensor<64x49xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x49xf32>) outs(%c : tensor<64x49xf32>) -> tensor<64x49xf32>
  return %0 : tensor<64x49xf32>
}

// N no wider than one vector (N <= 8 at 256 bits) takes nr = one vector and twice the rows:
// 12 x 8 tiles, then a peeled 6 x 8 edge (30 = 2 x 12 + 6). There is a single column tile,
// so no loop is left to mark parallel.
// AVX2-LABEL: func.func @narrow_30x8x4
// AVX2-NOT: infc.parallel
// AVX2: scf.for
// AVX2: vector.contract {{.*}} : vector<12x1xf32>, vector<1x8xf32> into vector<12x8xf32>
// AVX2: tensor.extract_slice %{{.*}}[24, 0] [6, 8] [1, 1] : tensor<30x8xf32> to tensor<6x8xf32>
// AVX2: vector.contract {{.*}} : vector<6x1xf32>, vector<1x8xf32> into vector<6x8xf32>
// AVX2-NOT: linalg.matmul
// AVX2-NOT: infc.parallel
// AVX2: return

// At 512 bits the tile is 16 x 16, wider than N = 8: nr shrinks to one vector (16 lanes,
// here holding N = 8) and M = 30 = 16 + 14 is peeled into a static edge.
// AVX512-LABEL: func.func @narrow_30x8x4
// AVX512-NOT: affine.min
// AVX512: vector.contract {{.*}} into vector<16x8xf32>
// AVX512: vector.contract {{.*}} into vector<14x8xf32>
// AVX512-NOT: linalg.matmul
// AVX512: return
func.func @narrow_30x8x4(%a: tensor<30x4xf32>, %b: tensor<4x8xf32>, %c: tensor<30x8xf32>) -> tensor<30x8xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<30x4xf32>, tensor<4x8xf32>) outs(%c : tensor<30x8xf32>) -> tensor<30x8xf32>
  return %0 : tensor<30x8xf32>
}

// Left alone: other element types, dynamic shapes, matmuls on buffers.
// AVX2-LABEL: func.func @untouched
// AVX2-NOT: scf.for
// AVX2-NOT: vector.
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf64>, tensor<4x4xf64>)
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x4xf32>)
// AVX2: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x8xf32>, memref<8x8xf32>)
// AVX2-NOT: scf.for
// AVX2-NOT: vector.
// AVX2: return
// AVX512-LABEL: func.func @untouched
// AVX512-NOT: scf.for
// AVX512: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf64>, tensor<4x4xf64>)
// AVX512: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4x4xf32>)
// AVX512: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<8x8xf32>, memref<8x8xf32>)
// AVX512-NOT: scf.for
// AVX512: return
func.func @untouched(%a: tensor<4x4xf64>, %b: tensor<4x4xf64>, %c: tensor<4x4xf64>,
                     %d: tensor<?x4xf32>, %e: tensor<4x4xf32>, %f: tensor<?x4xf32>,
                     %ma: memref<8x8xf32>, %mc: memref<8x8xf32>) -> (tensor<4x4xf64>, tensor<?x4xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf64>, tensor<4x4xf64>) outs(%c : tensor<4x4xf64>) -> tensor<4x4xf64>
  %1 = linalg.matmul ins(%d, %e : tensor<?x4xf32>, tensor<4x4xf32>) outs(%f : tensor<?x4xf32>) -> tensor<?x4xf32>
  linalg.matmul ins(%ma, %ma : memref<8x8xf32>, memref<8x8xf32>) outs(%mc : memref<8x8xf32>)
  return %0, %1 : tensor<4x4xf64>, tensor<?x4xf32>
}

// One column tile wide (a packed panel outside the panel loop): the row-tile loop carries
// the threads instead; the K loop never does.
// AVX2-LABEL: func.func @one_column_tile
// AVX2: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX2: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX2: vector.contract
// AVX2: scf.yield
// AVX2-NEXT: }
// AVX2-NOT: infc.parallel
// AVX2: } {infc.parallel}
func.func @one_column_tile(%a: tensor<64x96xf32>, %b: tensor<96x16xf32>) -> tensor<64x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x16xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x16xf32>) -> tensor<64x16xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x16xf32>) outs(%c : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %r : tensor<64x16xf32>
}

// C filled with one value: the fill is fused into each register tile and folds into the
// accumulators' start value, so the K loop starts from a constant vector, C is never read
// and no whole-C fill is left.
// AVX512-LABEL: func.func @filled_c
// AVX512-DAG: %[[ONE:.*]] = arith.constant dense<1.500000e+00> : vector<6x64xf32>
// AVX512-NOT: linalg.fill
// AVX512: scf.for
// AVX512-NOT: vector.transfer_read {{.*}} : tensor<6x64xf32>
// AVX512: scf.for {{.*}} iter_args(%{{.*}} = %[[ONE]]) -> (vector<6x64xf32>)
// AVX512: vector.contract
// AVX512: vector.transfer_write {{.*}} : vector<6x64xf32>, tensor<6x64xf32>
// AVX512-NOT: linalg.fill
func.func @filled_c(%a: tensor<64x96xf32>, %b: tensor<96x64xf32>) -> tensor<64x64xf32> {
  %z = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<64x64xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

// M = 49 (a 7x7 image) at 512 bits: tiles of 7 rows, none partial, rather than six of 8 and
// a one-row edge tile.
// AVX512-LABEL: func.func @seven_rows
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C7:.*]] iter_args
// AVX512: vector.contract {{.*}} : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// AVX512-NOT: vector<1x32xf32> into vector<1x32xf32>
func.func @seven_rows(%a: tensor<49x64xf32>, %b: tensor<64x32xf32>, %c: tensor<49x32xf32>) -> tensor<49x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<49x64xf32>, tensor<64x32xf32>) outs(%c : tensor<49x32xf32>) -> tensor<49x32xf32>
  return %r : tensor<49x32xf32>
}

// A panel's epilogue (marked by infc-pack-matmul-panels): the epilogue is what gets tiled,
// with the fill and the matmul fused into each of its tiles, so the bias add and the relu
// run on the accumulators and only their result is stored: no store of the product. The
// epilogue then runs row by row (row i of the K loop's result, the bias row, the write of
// row i), not on whole 8 x 32 tiles beside the accumulators.
// AVX512-LABEL: func.func @panel_epilogue
// AVX512-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// AVX512: scf.for
// AVX512: %[[K:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]) -> (vector<8x32xf32>)
// AVX512: vector.contract
// AVX512: }
// AVX512-NOT: vector.transfer_write
// AVX512: %[[B:.*]] = vector.transfer_read %arg2[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<32xf32>, vector<32xf32>
// AVX512: %[[K0:.*]] = vector.extract %[[K]][0] : vector<32xf32> from vector<8x32xf32>
// AVX512: %[[S0:.*]] = arith.addf %[[K0]], %[[B]] : vector<32xf32>
// AVX512: %[[R0:.*]] = arith.maximumf %[[S0]], %{{.*}} : vector<32xf32>
// AVX512: %[[W0:.*]] = vector.transfer_write %[[R0]], %{{.*}} {in_bounds = [true]} : vector<32xf32>, tensor<8x32xf32>
// AVX512: %[[K1:.*]] = vector.extract %[[K]][1] : vector<32xf32> from vector<8x32xf32>
// AVX512: %[[S1:.*]] = arith.addf %[[K1]], %[[B]] : vector<32xf32>
// AVX512: %[[R1:.*]] = arith.maximumf %[[S1]], %{{.*}} : vector<32xf32>
// AVX512: vector.transfer_write %[[R1]], %[[W0]][%{{.*}}, %{{.*}}] {in_bounds = [true]}
// AVX512: vector.extract %[[K]][7] : vector<32xf32> from vector<8x32xf32>
// AVX512-NOT: arith.addf {{.*}} : vector<8x32xf32>
// AVX512-NOT: linalg.
// AVX512: return
func.func @panel_epilogue(%a: tensor<64x8xf32>, %b: tensor<8x32xf32>, %bias: tensor<32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %o = tensor.empty() : tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %bias : tensor<64x32xf32>, tensor<32xf32>) outs(%o : tensor<64x32xf32>) attrs = {infc.epilogue} {
  ^bb0(%x: f32, %bb: f32, %out: f32):
    %0 = arith.addf %x, %bb : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// A residual add in the epilogue: its tile is read row by row too, each row where it is
// added (a whole 8 x 32 residual tile would sit beside the accumulators).
// AVX512-LABEL: func.func @residual_epilogue
// AVX512: %[[K:.*]] = scf.for {{.*}} -> (vector<8x32xf32>)
// AVX512: }
// AVX512-DAG: %[[K0:.*]] = vector.extract %[[K]][0] : vector<32xf32> from vector<8x32xf32>
// AVX512-DAG: %[[X0:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x32xf32>, vector<32xf32>
// AVX512: arith.addf %[[K0]], %[[X0]] : vector<32xf32>
// AVX512: vector.transfer_write
// AVX512-DAG: %[[K1:.*]] = vector.extract %[[K]][1] : vector<32xf32> from vector<8x32xf32>
// AVX512-DAG: %[[X1:.*]] = vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x32xf32>, vector<32xf32>
// AVX512: arith.addf %[[K1]], %[[X1]] : vector<32xf32>
// AVX512-NOT: vector<8x32xf32>, vector<8x32xf32>
// AVX512: return
func.func @residual_epilogue(%a: tensor<64x8xf32>, %b: tensor<8x32xf32>, %res: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %o = tensor.empty() : tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r, %res : tensor<64x32xf32>, tensor<64x32xf32>) outs(%o : tensor<64x32xf32>) attrs = {infc.epilogue} {
  ^bb0(%x: f32, %s: f32, %out: f32):
    %0 = arith.addf %x, %s : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// A residual held in place: the epilogue reads its output tile (the residual, which the
// loop carries). Row i is read from the tile as written up to row i - 1, so that each row
// is read and written back in one tensor and bufferization needs no copy of the tile.
// AVX512-LABEL: func.func @in_place_residual_epilogue
// AVX512: scf.for {{.*}} iter_args(%[[D:.*]] = %arg2) -> (tensor<64x32xf32>)
// AVX512: scf.for {{.*}} -> (vector<8x32xf32>)
// AVX512: %[[T:.*]] = tensor.extract_slice %[[D]]
// AVX512: %[[X0:.*]] = vector.transfer_read %[[T]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x32xf32>, vector<32xf32>
// AVX512: %[[W0:.*]] = vector.transfer_write %{{.*}}, %[[T]]
// AVX512: %[[X1:.*]] = vector.transfer_read %[[W0]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x32xf32>, vector<32xf32>
// AVX512: %[[W1:.*]] = vector.transfer_write %{{.*}}, %[[W0]]
// AVX512: vector.transfer_read %[[W1]]
// AVX512: return
func.func @in_place_residual_epilogue(%a: tensor<64x8xf32>, %b: tensor<8x32xf32>, %res: tensor<64x32xf32>) -> tensor<64x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x32xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x32xf32>) -> tensor<64x32xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x32xf32>) outs(%c : tensor<64x32xf32>) -> tensor<64x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x32xf32>) outs(%res : tensor<64x32xf32>) attrs = {infc.epilogue} {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.addf %x, %out : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<64x32xf32>
  return %y : tensor<64x32xf32>
}

// The same on an 8 x 48 tile split into one-vector columns: each column's output slice
// comes from the tile as the column before left it (not the older tile, which
// bufferization would copy), and every column's epilogue runs row by row.
// AVX512-LABEL: func.func @in_place_residual_split_columns
// AVX512: %[[T:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, 0] [8, 48] [1, 1]
// AVX512: %[[C0:.*]] = tensor.extract_slice %[[T]][0, 0] [8, 16] [1, 1]
// AVX512: %[[I0:.*]] = tensor.insert_slice %{{.*}} into %[[T]][0, 0] [8, 16] [1, 1]
// AVX512: %[[C1:.*]] = tensor.extract_slice %[[I0]][0, 16] [8, 16] [1, 1]
// AVX512: vector.transfer_read %[[C1]][%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<8x16xf32>, vector<16xf32>
// AVX512: %[[I1:.*]] = tensor.insert_slice %{{.*}} into %[[I0]][0, 16] [8, 16] [1, 1]
// AVX512: %[[C2:.*]] = tensor.extract_slice %[[I1]][0, 32] [8, 16] [1, 1]
// AVX512-NOT: vector<8x16xf32>, tensor<8x16xf32>
// AVX512: tensor.insert_slice %{{.*}} into %[[I1]][0, 32] [8, 16] [1, 1]
func.func @in_place_residual_split_columns(%a: tensor<64x8xf32>, %b: tensor<8x48xf32>, %res: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x48xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<64x48xf32>) -> tensor<64x48xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x8xf32>, tensor<8x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<64x48xf32>) outs(%res : tensor<64x48xf32>) attrs = {infc.epilogue} {
  ^bb0(%x: f32, %out: f32):
    %0 = arith.addf %x, %out : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}

// M = 49 with a wider N: still 7-row tiles, two vectors wide (6 x 64 would leave a one-row
// edge tile).
// AVX512-LABEL: func.func @seven_rows_wide
// AVX512: vector.contract {{.*}} : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// AVX512-NOT: vector<1x1xf32>
// AVX512-NOT: vector<6x1xf32>
// AVX512: return
func.func @seven_rows_wide(%d: tensor<49x64xf32>, %e: tensor<64x128xf32>, %f: tensor<49x128xf32>) -> tensor<49x128xf32> {
  %s = linalg.matmul ins(%d, %e : tensor<49x64xf32>, tensor<64x128xf32>) outs(%f : tensor<49x128xf32>) -> tensor<49x128xf32>
  return %s : tensor<49x128xf32>
}

// Three vectors (8 x 48) where 6 rows would leave a partial row tile and 8 none (M = 128,
// BERT's sequence; N a multiple of 48): split into one-vector column tiles whose
// accumulators are loop-carried vectors of their own, 8 x 16 each, and interleaved row by
// row (one broadcast of A[i], an FMA into each column tile's row i): never a <48 x float>
// row, which LLVM would widen to 64 lanes. M = 49 takes 7 x 48 tiles the same way.
// AVX512-LABEL: func.func @three_vectors
// AVX512: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8x16xf32>, vector<8x16xf32>, vector<8x16xf32>)
// AVX512-COUNT-24: vector.fma {{.*}} : vector<16xf32>
// AVX512-NOT: vector.contract
// AVX512: scf.for {{.*}} -> (vector<7x16xf32>, vector<7x16xf32>, vector<7x16xf32>)
// AVX512-COUNT-21: vector.fma {{.*}} : vector<16xf32>
// AVX512-NOT: vector<8x48xf32>
// AVX512-NOT: vector<7x48xf32>
// AVX512: return
func.func @three_vectors(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>, %c: tensor<128x96xf32>,
                         %d: tensor<49x64xf32>, %e: tensor<64x48xf32>, %f: tensor<49x48xf32>) -> (tensor<128x96xf32>, tensor<49x48xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>) outs(%c : tensor<128x96xf32>) -> tensor<128x96xf32>
  %s = linalg.matmul ins(%d, %e : tensor<49x64xf32>, tensor<64x48xf32>) outs(%f : tensor<49x48xf32>) -> tensor<49x48xf32>
  return %r, %s : tensor<128x96xf32>, tensor<49x48xf32>
}

// N = 40, B not packed (an attention score matmul of 40 tokens): not three vectors, which
// would split into one-vector columns that 40 leaves ragged (this failed to compile), but
// 8 x 32 tiles and a peeled 8 x 8 edge tile.
// AVX512-LABEL: func.func @ragged_three_vectors
// AVX512: scf.for {{.*}} -> (vector<8x32xf32>)
// AVX512: vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX512: scf.for {{.*}} -> (vector<8x8xf32>)
// AVX512: vector.contract {{.*}} : vector<8x1xf32>, vector<1x8xf32> into vector<8x8xf32>
// AVX512-NOT: linalg.matmul
// AVX512: return
func.func @ragged_three_vectors(%a: tensor<40x15xf32>, %b: tensor<15x40xf32>, %c: tensor<40x40xf32>) -> tensor<40x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<40x15xf32>, tensor<15x40xf32>) outs(%c : tensor<40x40xf32>) -> tensor<40x40xf32>
  return %r : tensor<40x40xf32>
}
