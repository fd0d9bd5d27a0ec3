// RUN: infc-opt %s -infc-implicit-conv=vector-bits=512 -cse -split-input-file | FileCheck %s --check-prefix=AVX512
// RUN: infc-opt %s -infc-implicit-conv -cse -split-input-file | FileCheck %s --check-prefix=AVX2

// The implicit-GEMM convolution convert-infc-to-linalg writes for a stride-1 3x3 conv of a
// 6x6 image with C = 2, F = 64 (padded input [9 * 8, C] with Wp = 8, wide output [6 * 8,
// F]). At 512 bits: the weights packed at compile time into one 64-wide panel [1, 18, 64]
// (K = 9 taps x 2 channels); one panel, so the loop over the 8 full 6-row tiles carries the
// threads; each tile's accumulators start from the fill value and run through a loop over
// the taps (row offset (t / 3) * 8 + t % 3, weights from row 2t) and one over the channels,
// a vector.contract of a 6 x 1 column of the input and a 1 x 64 panel row per step.
// AVX512-LABEL: func.func @conv3x3
// AVX512: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<1x18x64xf32>
// AVX512: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// AVX512: scf.for %[[R:.*]] = %{{.*}} to %[[C8:.*]] step %{{.*}} iter_args(%[[Y:.*]] = %{{.*}}) -> (tensor<48x64xf32>)
// AVX512: %[[M0:.*]] = arith.muli %[[R]], %{{.*}} : index
// AVX512: %[[ACC:.*]] = vector.broadcast %{{.*}} : f32 to vector<6x64xf32>
// AVX512: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<6x64xf32>)
// AVX512: %[[I:.*]] = arith.divui %[[T]], %[[C3:.*]] : index
// AVX512: %[[J:.*]] = arith.remui %[[T]], %[[C3]] : index
// AVX512: %[[IW:.*]] = arith.muli %[[I]], %[[C8]] : index
// AVX512: %[[SHIFT:.*]] = arith.addi %[[IW]], %[[J]] : index
// AVX512: %[[ROW:.*]] = arith.addi %[[M0]], %[[SHIFT]] : index
// AVX512: %[[KB:.*]] = arith.muli %[[T]], %[[C2:.*]] : index
// AVX512: scf.for %[[CH:.*]] = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%[[A:.*]] = %{{.*}}) -> (vector<6x64xf32>)
// AVX512: %[[K:.*]] = arith.addi %[[KB]], %[[CH]] : index
// AVX512: %[[XS:.*]] = tensor.extract_slice %arg0[%[[ROW]], %[[CH]]] [6, 1] [1, 1] : tensor<72x2xf32> to tensor<6x1xf32>
// AVX512: %[[XV:.*]] = vector.transfer_read %[[XS]]
// AVX512: %[[WS:.*]] = tensor.extract_slice %[[W]][%[[P]], %[[K]], 0] [1, 1, 64] [1, 1, 1] : tensor<1x18x64xf32> to tensor<1x64xf32>
// AVX512: %[[WV:.*]] = vector.transfer_read %[[WS]]
// AVX512: vector.contract {{.*}} %[[XV]], %[[WV]], %[[A]] : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: vector.transfer_write %{{.*}}, %[[Y]][%[[M0]], %{{.*}}] {in_bounds = [true, true]} : vector<6x64xf32>, tensor<48x64xf32>
// AVX512: } {infc.parallel}
// AVX512-NOT: infc.parallel
// AVX512-NOT: linalg.generic
// 256 bits: 16-wide panels (4 of them, in parallel) and 6 x 16 tiles, no edge (48 = 8 x 6).
// AVX2-LABEL: func.func @conv3x3
// AVX2: arith.constant dense<{{.*}}> : tensor<4x18x16xf32>
// AVX2: vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
// AVX2: vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<48x64xf32>
// AVX2-NEXT: scf.yield
// AVX2-NEXT: }
// AVX2-NEXT: scf.yield
// AVX2-NEXT: } {infc.parallel}
#a = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @conv3x3(%x: tensor<72x2xf32>) -> tensor<48x64xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<72x2xf32>, tensor<9x2x64xf32>) outs(%acc : tensor<48x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<48x64xf32>
  return %y : tensor<48x64xf32>
}

// -----

// A wide output of 4 x 7 = 28 rows (Wp = 7): four 6-row tiles and a static 4-row edge tile
// after the loop, in the same panel.
// AVX512-LABEL: func.func @edge_rows
// AVX512: scf.for
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: } {infc.parallel}
// AVX512: %[[E:.*]] = arith.constant 24 : index
// AVX512: vector.contract {{.*}} : vector<4x1xf32>, vector<1x64xf32> into vector<4x64xf32>
// AVX512: vector.transfer_write %{{.*}}, %{{.*}}[%[[E]], %{{.*}}] {in_bounds = [true, true]} : vector<4x64xf32>, tensor<28x64xf32>
#a2 = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 7 + d2 mod 3, d3)>
#b2 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @edge_rows(%x: tensor<49x4xf32>) -> tensor<28x64xf32> {
  %w = arith.constant dense<0.5> : tensor<9x4x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<28x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<28x64xf32>) -> tensor<28x64xf32>
  %y = linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<49x4xf32>, tensor<9x4x64xf32>) outs(%acc : tensor<28x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 7>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<28x64xf32>
  return %y : tensor<28x64xf32>
}

// -----

// M = 80, F = 192 would be an 8 x 48 tile for a matmul (split into one-vector columns by
// infc-tile-and-vectorize-matmul); the contractions here are not split, so the tile is
// four vectors wide: 6 x 64 and a 2-row edge, never a 48-lane row.
// AVX512-LABEL: func.func @three_vector_width
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: vector.contract {{.*}} : vector<2x1xf32>, vector<1x64xf32> into vector<2x64xf32>
// AVX512-NOT: x48xf32>
#a3 = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 10 + d2 mod 3, d3)>
#b3 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c3 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @three_vector_width(%x: tensor<130x2xf32>) -> tensor<80x192xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x192xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x192xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<80x192xf32>) -> tensor<80x192xf32>
  %y = linalg.generic {indexing_maps = [#a3, #b3, #c3], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<130x2xf32>, tensor<9x2x192xf32>) outs(%acc : tensor<80x192xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 10>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<80x192xf32>
  return %y : tensor<80x192xf32>
}

// -----

// The wide output sliced to its 6 x 6 pixels, then a bias and a relu (what the seam writes
// for a conv with a bias and a Relu): each tile row goes through the bias and relu and is
// stored at its pixel (oh, c) of a [1, 6, 6, F] output (wide row m = oh * 8 + c), garbage
// columns c >= 6 not at all; the epilogue generic and the slice of the wide output are
// gone, the result is that output.
// AVX512-LABEL: func.func @conv3x3_bias_relu
// AVX512: %[[BIAS:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<64xf32>, vector<64xf32>
// AVX512: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<1x6x6x64xf32>)
// AVX512: %[[ACC:.*]] = scf.for {{.*}} -> (vector<6x64xf32>)
// AVX512: %[[R0:.*]] = vector.extract %[[ACC]][0] : vector<64xf32> from vector<6x64xf32>
// AVX512: %[[S0:.*]] = arith.addf %[[R0]], %[[BIAS]] : vector<64xf32>
// AVX512: %[[Y0:.*]] = arith.maximumf %[[S0]], %{{.*}} : vector<64xf32>
// AVX512: %[[COL:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// AVX512: %[[OH:.*]] = arith.divui %{{.*}}, %{{.*}} : index
// AVX512: %[[VALID:.*]] = arith.cmpi ult, %[[COL]], %{{.*}} : index
// AVX512: scf.if %[[VALID]] -> (tensor<1x6x6x64xf32>)
// AVX512: vector.transfer_write %[[Y0]], %{{.*}}[%{{.*}}, %[[OH]], %[[COL]], %{{.*}}] {in_bounds = [true]} : vector<64xf32>, tensor<1x6x6x64xf32>
// AVX512: } else {
// AVX512: vector.extract %[[ACC]][5] : vector<64xf32> from vector<6x64xf32>
// AVX512: } {infc.parallel}
// AVX512-NOT: linalg.generic
// AVX512-NOT: tensor.extract_slice %{{.*}} : tensor<1x6x8x64xf32>
// AVX512: return %{{.*}} : tensor<1x6x6x64xf32>
#a = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv3x3_bias_relu(%x: tensor<72x2xf32>, %bias: tensor<64xf32>) -> tensor<1x6x6x64xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<72x2xf32>, tensor<9x2x64xf32>) outs(%acc : tensor<48x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<48x64xf32>
  %wide = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 6, 8, 64] : tensor<48x64xf32> into tensor<1x6x8x64xf32>
  %s = tensor.extract_slice %wide[0, 0, 0, 0] [1, 6, 6, 64] [1, 1, 1, 1] : tensor<1x6x8x64xf32> to tensor<1x6x6x64xf32>
  %o = tensor.empty() : tensor<1x6x6x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %bias : tensor<1x6x6x64xf32>, tensor<64xf32>) outs(%o : tensor<1x6x6x64xf32>) {
  ^bb0(%v: f32, %bb: f32, %out: f32):
    %0 = arith.addf %v, %bb : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x6x6x64xf32>
  return %r : tensor<1x6x6x64xf32>
}

// -----

// Tap 3's channel 1 has all-zero weights (as a space-to-depth stem's taps past the original
// kernel do): its K row is dropped from the packed weights (7 of 8 rows), and the taps run
// one after the other, each a loop over its channels (2, 2, 2, then 1) with a constant row
// offset (0, 1, 7, 8 for Wp = 7): no loop over the taps.
// AVX512-LABEL: func.func @zero_rows
// AVX512: arith.constant dense<5.000000e-01> : tensor<1x7x32xf32>
// AVX512: scf.for {{.*}} -> (tensor<42x32xf32>)
// AVX512: scf.for {{.*}} -> (tensor<42x32xf32>)
// AVX512-NOT: arith.divui
// AVX512: scf.for %{{.*}} = %{{.*}} to %[[C2:.*]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<7x32xf32>)
// AVX512: vector.contract {{.*}} : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
// AVX512: scf.for %{{.*}} = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<7x32xf32>)
// AVX512: scf.for %{{.*}} = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<7x32xf32>)
// AVX512: scf.for %{{.*}} = %{{.*}} to %[[C1:.*]] step %[[C1]] iter_args(%{{.*}} = %{{.*}}) -> (vector<7x32xf32>)
// AVX512-NOT: scf.for {{.*}} -> (vector<7x32xf32>)
// AVX512: vector.transfer_write
#a = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 2) * 7 + d2 mod 2, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @zero_rows(%x: tensor<56x2xf32>) -> tensor<42x32xf32> {
  %w = arith.constant dense<[[[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]], [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]], [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]], [[0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5], [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]]]> : tensor<4x2x32xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<42x32xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<42x32xf32>) -> tensor<42x32xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<56x2xf32>, tensor<4x2x32xf32>) outs(%acc : tensor<42x32xf32>) attrs = {infc.implicit_conv = array<i64: 2, 2, 7>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<42x32xf32>
  return %y : tensor<42x32xf32>
}

// -----

// Pixel rows (`[KH, KW, Wp, S, OW]` = [3, 3, 8, 1, 6]: a 6x6 output over an 8-wide padded
// input, no garbage columns): each of a tile's 6 rows computes its pixel's input row once,
// (m / 6) * 8 + m % 6, and each K step broadcasts from those rows plus the tap's offset
// (six tensor.extract ops gathered into the 6 x 1 column), not from one strided slice.
// AVX512-LABEL: func.func @pixel_rows
// AVX512: scf.for {{.*}} -> (tensor<36x64xf32>)
// AVX512: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<36x64xf32>)
// AVX512: %[[M0:.*]] = arith.muli %[[R]], %{{.*}} : index
// AVX512: %[[M:.*]] = arith.addi %[[M0]], %{{.*}} : index
// AVX512: arith.divui %[[M]], %{{.*}} : index
// AVX512: arith.remui %[[M]], %{{.*}} : index
// AVX512: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<6x64xf32>)
// AVX512: scf.for %[[CH:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<6x64xf32>)
// AVX512-COUNT-6: tensor.extract %arg0[%{{.*}}, %[[CH]]] : tensor<64x2xf32>
// AVX512: vector.from_elements {{.*}} : vector<6x1xf32>
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512-NOT: tensor.extract_slice %arg0
#a = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 6) * 8 + d0 mod 6 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @pixel_rows(%x: tensor<64x2xf32>) -> tensor<36x64xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<36x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<36x64xf32>) -> tensor<36x64xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<64x2xf32>, tensor<9x2x64xf32>) outs(%acc : tensor<36x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8, 1, 6>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<36x64xf32>
  return %y : tensor<36x64xf32>
}

// -----

// Pixel rows reshaped to [1, OH, OW, F] and a bias + relu on them: each accumulator row
// goes through the epilogue and is stored at its pixel (m / OW, m % OW), so the bias and
// relu are no pass of their own and a pad after them can take the pixels into its interior.
// AVX512-LABEL: func.func @pixel_rows_epilogue
// AVX512: %[[E:.*]] = tensor.empty() : tensor<1x6x6x64xf32>
// AVX512: scf.for {{.*}} iter_args(%{{.*}} = %[[E]]) -> (tensor<1x6x6x64xf32>)
// AVX512: %[[BIAS:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<64xf32>, vector<64xf32>
// AVX512: %[[H0:.*]] = arith.divui %[[M0:.*]], %c6 : index
// AVX512-NEXT: %[[W0:.*]] = arith.remui %[[M0]], %c6 : index
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: %[[A0:.*]] = vector.extract %{{.*}}[0] : vector<64xf32> from vector<6x64xf32>
// AVX512: %[[S0:.*]] = arith.addf %[[A0]], %[[BIAS]] : vector<64xf32>
// AVX512: %[[R0:.*]] = arith.maximumf %[[S0]], %{{.*}} : vector<64xf32>
// AVX512: vector.transfer_write %[[R0]], %{{.*}}[%{{.*}}, %[[H0]], %[[W0]], %{{.*}}] {in_bounds = [true]} : vector<64xf32>, tensor<1x6x6x64xf32>
// AVX512-NOT: linalg.generic
// AVX512: return
#a = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 6) * 8 + d0 mod 6 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#bias4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @pixel_rows_epilogue(%x: tensor<64x2xf32>, %bias: tensor<64xf32>) -> tensor<1x6x6x64xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<36x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<36x64xf32>) -> tensor<36x64xf32>
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<64x2xf32>, tensor<9x2x64xf32>) outs(%acc : tensor<36x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8, 1, 6>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<36x64xf32>
  %y4 = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 6, 6, 64] : tensor<36x64xf32> into tensor<1x6x6x64xf32>
  %e4 = tensor.empty() : tensor<1x6x6x64xf32>
  %r = linalg.generic {indexing_maps = [#id4, #bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y4, %bias : tensor<1x6x6x64xf32>, tensor<64xf32>) outs(%e4 : tensor<1x6x6x64xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x6x6x64xf32>
  return %r : tensor<1x6x6x64xf32>
}

// -----

// A 1x1 convolution (a filled matmul of constant weights, its product reshaped to
// [1, OH, OW, F]) of more than 64 pixels whose relu'd result is padded: run as 1x1 pixel
// rows, each tile row stored at its pixel (so the pad can take them into its interior), the
// relu applied per row. Without the pad it stays a matmul (infc-pack-matmul-panels'), and
// so does one whose F (96) the register tile (6 x 64 at 512 bits) does not divide.
// AVX512-LABEL: func.func @padded_pointwise
// AVX512-NOT: linalg.matmul
// AVX512: %[[E:.*]] = tensor.empty() : tensor<1x9x8x64xf32>
// AVX512: %[[Y:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[E]]) -> (tensor<1x9x8x64xf32>)
// AVX512: %[[H:.*]] = arith.divui %{{.*}}, %c8 : index
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512: arith.maximumf {{.*}} : vector<64xf32>
// AVX512: vector.transfer_write {{.*}}[%{{.*}}, %[[H]], %{{.*}}, %{{.*}}] {in_bounds = [true]} : vector<64xf32>, tensor<1x9x8x64xf32>
// AVX512: tensor.pad %[[Y]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// AVX512-LABEL: func.func @unpadded_pointwise
// AVX512: linalg.matmul
// AVX512-LABEL: func.func @padded_pointwise_f96
// AVX512: linalg.matmul
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @padded_pointwise(%x: tensor<72x16xf32>) -> tensor<1x11x10x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<72x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<72x64xf32>) -> tensor<72x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<72x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<72x64xf32>) -> tensor<72x64xf32>
  %y4 = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 9, 8, 64] : tensor<72x64xf32> into tensor<1x9x8x64xf32>
  %e4 = tensor.empty() : tensor<1x9x8x64xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y4 : tensor<1x9x8x64xf32>) outs(%e4 : tensor<1x9x8x64xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x9x8x64xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x9x8x64xf32> to tensor<1x11x10x64xf32>
  return %p : tensor<1x11x10x64xf32>
}
func.func @unpadded_pointwise(%x: tensor<72x16xf32>) -> tensor<1x9x8x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<72x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<72x64xf32>) -> tensor<72x64xf32>
  %y = linalg.matmul ins(%x, %w : tensor<72x16xf32>, tensor<16x64xf32>) outs(%acc : tensor<72x64xf32>) -> tensor<72x64xf32>
  %y4 = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 9, 8, 64] : tensor<72x64xf32> into tensor<1x9x8x64xf32>
  return %y4 : tensor<1x9x8x64xf32>
}
func.func @padded_pointwise_f96(%x: tensor<72x16xf32>) -> tensor<1x11x10x96xf32> {
  %w = arith.constant dense<0.5> : tensor<16x96xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<72x96xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<72x96xf32>) -> tensor<72x96xf32>
  %y = linalg.matmul ins(%x, %w : tensor<72x16xf32>, tensor<16x96xf32>) outs(%acc : tensor<72x96xf32>) -> tensor<72x96xf32>
  %y4 = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 9, 8, 96] : tensor<72x96xf32> into tensor<1x9x8x96xf32>
  %p = tensor.pad %y4 low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x9x8x96xf32> to tensor<1x11x10x96xf32>
  return %p : tensor<1x11x10x96xf32>
}

// -----

// Three panels of 64 (F = 192) and 13 row tiles of 80 pixels: the panels would share out
// 2 : 1 over 2 threads, the row tiles 7 : 6, and the weights are small (16 x 192), so the
// parallel loop is over the row tiles, each a serial loop over the panels that reads the
// panel's bias and stores its 6 rows through the epilogue; then the edge tile (2 rows) of
// every panel, bias and all.
// AVX512-LABEL: func.func @rows_outside_panels
// AVX512: %[[ROWS:.*]] = scf.for %{{.*}} = %c0 to %c13 step %c1 iter_args
// AVX512: scf.for %{{.*}} = %c0 to %{{.*}} step %c1 iter_args
// AVX512: %[[B:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<192xf32>, vector<64xf32>
// AVX512: vector.contract {{.*}} : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
// AVX512-COUNT-6: arith.addf %{{.*}}, %[[B]] : vector<64xf32>
// AVX512: } {infc.parallel}
// AVX512: %[[Y:.*]] = scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[ROWS]])
// AVX512: %[[EB:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<192xf32>, vector<64xf32>
// AVX512: vector.contract {{.*}} : vector<2x1xf32>, vector<1x64xf32> into vector<2x64xf32>
// AVX512-COUNT-2: arith.addf %{{.*}}, %[[EB]] : vector<64xf32>
// AVX512-NOT: infc.parallel
// AVX512: tensor.pad %[[Y]] low[0, 1, 1, 0] high[0, 1, 1, 0]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @rows_outside_panels(%x: tensor<80x16xf32>, %bias: tensor<192xf32>) -> tensor<1x12x10x192xf32> {
  %w = arith.constant dense<0.5> : tensor<16x192xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<80x192xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<80x192xf32>) -> tensor<80x192xf32>
  %y = linalg.matmul ins(%x, %w : tensor<80x16xf32>, tensor<16x192xf32>) outs(%acc : tensor<80x192xf32>) -> tensor<80x192xf32>
  %y4 = tensor.expand_shape %y [[0, 1, 2], [3]] output_shape [1, 10, 8, 192] : tensor<80x192xf32> into tensor<1x10x8x192xf32>
  %e4 = tensor.empty() : tensor<1x10x8x192xf32>
  %r = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%y4, %bias : tensor<1x10x8x192xf32>, tensor<192xf32>) outs(%e4 : tensor<1x10x8x192xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.maximumf %0, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x10x8x192xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x10x8x192xf32> to tensor<1x12x10x192xf32>
  return %p : tensor<1x12x10x192xf32>
}
