// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// matmul: rank-2 weights -> one linalg.matmul (lhs batch folded into M), equal batches ->
// linalg.batch_matmul, broadcast batches -> a generic contraction. conv: plain -> im2col +
// linalg.matmul, depthwise -> depthwise_conv_2d_nchw_chw, other groups ->
// conv_2d_ngchw_gfchw; padding is an explicit tensor.pad with zeros.

// CHECK-LABEL: func @matmul_2d
// CHECK-SAME: (%[[A:.*]]: tensor<3x4xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<3x5xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<3x4xf32>, tensor<4x5xf32>) outs(%[[ACC]] : tensor<3x5xf32>)
// CHECK: return %[[R]]
func.func @matmul_2d(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %0 = infc.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// CHECK-LABEL: func @matmul_weights
// CHECK-SAME: (%[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<4x5xf32>)
// CHECK: %[[A2:.*]] = tensor.collapse_shape %[[A]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[C:.*]] = linalg.matmul ins(%[[A2]], %[[B]] : tensor<6x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<6x5xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[C]] {{\[}}[0, 1], [2]] output_shape [2, 3, 5] : tensor<6x5xf32> into tensor<2x3x5xf32>
// CHECK: return %[[R]]
func.func @matmul_weights(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = infc.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// CHECK-LABEL: func @matmul_batch
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<2x6x3x4xf32> into tensor<12x3x4xf32>
// CHECK-DAG: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<2x6x4x5xf32> into tensor<12x4x5xf32>
// CHECK: %[[C:.*]] = linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x3x4xf32>, tensor<12x4x5xf32>) outs(%{{.*}} : tensor<12x3x5xf32>)
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0, 1], [2], [3]] output_shape [2, 6, 3, 5] : tensor<12x3x5xf32> into tensor<2x6x3x5xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul_batch(%a: tensor<2x6x3x4xf32>, %b: tensor<2x6x4x5xf32>) -> tensor<2x6x3x5xf32> {
  %0 = infc.matmul %a, %b : (tensor<2x6x3x4xf32>, tensor<2x6x4x5xf32>) -> tensor<2x6x3x5xf32>
  return %0 : tensor<2x6x3x5xf32>
}

// -----

// Iteration space (batch..., m, n, k); size-1 batch dims read index 0, missing ones are dropped.
// CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, 0, d2, d4)>
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d4, d3)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @matmul_broadcast_batch
// CHECK-SAME: (%[[A:.*]]: tensor<2x1x3x4xi32>, %[[B:.*]]: tensor<6x4x5xi32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<2x6x3x5xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x1x3x4xi32>, tensor<6x4x5xi32>) outs(%[[ACC]] : tensor<2x6x3x5xi32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[O:.*]]: i32):
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[P]], %[[O]] : i32
// CHECK-NEXT: linalg.yield %[[S]] : i32
func.func @matmul_broadcast_batch(%a: tensor<2x1x3x4xi32>, %b: tensor<6x4x5xi32>) -> tensor<2x6x3x5xi32> {
  %0 = infc.matmul %a, %b : (tensor<2x1x3x4xi32>, tensor<6x4x5xi32>) -> tensor<2x6x3x5xi32>
  return %0 : tensor<2x6x3x5xi32>
}

// -----

// Plain convolution as one matmul: Y[F, N*OH*OW] = W[F, C*KH*KW] x Col[C*KH*KW, N*OH*OW],
// Col[c, kh, kw, n, oh, ow] = input[n, c, oh * stride + kh * dilation, ow * stride + kw *
// dilation], one copy per tap (kh, kw) from a strided window (here stride 2).
// CHECK-DAG: #[[$TAPIN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
// CHECK-LABEL: func @conv_padded_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[PADV:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 2] high[0, 0, 1, 0]
// CHECK: tensor.yield %[[PADV]] : f32
// CHECK: } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
// CHECK: %[[WIN:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2] : tensor<1x4x10x10xf32> to tensor<1x4x4x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$TAPIN]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[WIN]] : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<4x1x4x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
// CHECK: tensor.extract_slice %[[P]][0, 0, 2, 2] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK: %[[COL6:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 2, 2, 0, 0, 0] [4, 1, 1, 1, 4, 4]
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[COL6]] {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<4x3x3x1x4x4xf32> into tensor<36x16xf32>
// CHECK: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<8x4x3x3xf32> into tensor<8x36xf32>
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x16xf32>)
// CHECK: %[[Y:.*]] = linalg.matmul ins(%[[W2]], %[[COL]] : tensor<8x36xf32>, tensor<36x16xf32>) outs(%[[ACC]] : tensor<8x16xf32>)
// CHECK: %[[Y4:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2, 3]] output_shape [1, 8, 4, 4] : tensor<8x16xf32> into tensor<1x8x4x4xf32>
// CHECK: %[[B3:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1, 2]] output_shape [8, 1, 1] : tensor<8xf32> into tensor<8x1x1xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$BIAS]], #[[$ID4]]]
// CHECK-SAME: ins(%[[Y4]], %[[B3]] :
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @conv_padded_bias(%x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %0 = infc.conv %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 2, 1, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// A 1x1 stride-1 convolution of one image needs no im2col: the input is Col.
// CHECK-LABEL: func @conv_pointwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x5x5xf32>, %[[W:.*]]: tensor<8x4x1x1xf32>)
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2, 3]] : tensor<1x4x5x5xf32> into tensor<4x25xf32>
// CHECK: %[[W2:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<8x4x1x1xf32> into tensor<8x4xf32>
// CHECK: %[[Y:.*]] = linalg.matmul ins(%[[W2]], %[[COL]] : tensor<8x4xf32>, tensor<4x25xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2, 3]] output_shape [1, 8, 5, 5] : tensor<8x25xf32> into tensor<1x8x5x5xf32>
// CHECK: return %[[R]]
func.func @conv_pointwise(%x: tensor<1x4x5x5xf32>, %w: tensor<8x4x1x1xf32>) -> tensor<1x8x5x5xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x5x5xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x5x5xf32>
  return %0 : tensor<1x8x5x5xf32>
}

// -----

// Two images, no padding, a dilated width: im2col as one copy per kernel tap, each from a
// strided window of X (here width offsets 0, 2, 4 for the dilation 2) into its [C, N, OH, OW]
// slice of Col; the matmul yields [F, N, OH, OW], transposed to NCHW.
// CHECK-DAG: #[[$NCHW_TO_CNHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>
// CHECK-LABEL: func @conv_batch_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<8x4x3x3xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[WIN:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [2, 4, 6, 4] [1, 1, 1, 1] : tensor<2x4x8x8xf32> to tensor<2x4x6x4xf32>
// CHECK: %[[DST:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0, 0] [4, 1, 1, 2, 6, 4] [1, 1, 1, 1, 1, 1] : tensor<4x3x3x2x6x4xf32> to tensor<4x2x6x4xf32>
// CHECK: %[[TAP:.*]] = linalg.generic {indexing_maps = [#[[$NCHW_TO_CNHW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[WIN]] : tensor<2x4x6x4xf32>) outs(%[[DST]] : tensor<4x2x6x4xf32>)
// CHECK: tensor.insert_slice %[[TAP]] into %{{.*}}[0, 0, 0, 0, 0, 0] [4, 1, 1, 2, 6, 4]
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 2] [2, 4, 6, 4] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 4] [2, 4, 6, 4] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[X]][0, 0, 2, 4] [2, 4, 6, 4] [1, 1, 1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 2, 2, 0, 0, 0] [4, 1, 1, 2, 6, 4]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3, 4, 5]] : tensor<4x3x3x2x6x4xf32> into tensor<36x48xf32>
// CHECK: %[[Y:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x36xf32>, tensor<36x48xf32>) outs(%{{.*}} : tensor<8x48xf32>)
// CHECK: %[[Y4:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0], [1, 2, 3]] output_shape [8, 2, 6, 4] : tensor<8x48xf32> into tensor<8x2x6x4xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[Y4]] : tensor<8x2x6x4xf32>) outs(%{{.*}} : tensor<2x8x6x4xf32>) permutation = [1, 0, 2, 3]
// CHECK: return %[[T]]
func.func @conv_batch_dilated(%x: tensor<2x4x8x8xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x8x6x4xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 2>, group = 1 : i64} : (tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x6x4xf32>
  return %0 : tensor<2x8x6x4xf32>
}

// -----

// Depthwise: a sum over the 9 taps of strided windows of the input (here stride 2 along W,
// dilation 2 along H) times the tap's per-channel weight, in one all-parallel generic.
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func @conv_depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<4x1x3x3xf32>)
// CHECK: %[[W9:.*]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1, 2, 3]] : tensor<4x1x3x3xf32> into tensor<4x9xf32>
// The windows (tap order), then the taps' weights.
// CHECK: %[[X00:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 4, 4, 3] [1, 1, 1, 2] : tensor<1x4x8x8xf32> to tensor<1x4x4x3xf32>
// CHECK: %[[X01:.*]] = tensor.extract_slice %[[X]][0, 0, 0, 1] [1, 4, 4, 3] [1, 1, 1, 2]
// CHECK: tensor.extract_slice %[[X]][0, 0, 4, 2] [1, 4, 4, 3] [1, 1, 1, 2]
// CHECK: %[[W00:.*]] = tensor.extract_slice %[[W9]][0, 0] [4, 1] [1, 1] : tensor<4x9xf32> to tensor<4xf32>
// CHECK: %[[W22:.*]] = tensor.extract_slice %[[W9]][0, 8] [4, 1] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$ID4]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$CH]], #[[$ID4]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X00]], %[[X01]], {{.*}}, %[[W00]], {{.*}}, %[[W22]] :
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x4x3xf32>)
// CHECK: %[[P0:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: %[[P1:.*]] = math.fma %{{.*}}, %{{.*}}, %[[P0]] : f32
// CHECK-COUNT-7: math.fma
// CHECK: linalg.yield
func.func @conv_depthwise(%x: tensor<1x4x8x8xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// Two groups of 2 input channels and 3 filters each; the padding happens before the split.
// CHECK-LABEL: func @conv_grouped
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK: } : tensor<1x4x8x8xf32> to tensor<1x4x8x10xf32>
// CHECK: %[[XG:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 8, 10] : tensor<1x4x8x10xf32> into tensor<1x2x2x8x10xf32>
// CHECK: %[[WG:.*]] = tensor.expand_shape %[[W]] {{\[}}[0, 1], [2], [3], [4]] output_shape [2, 3, 2, 3, 3] : tensor<6x2x3x3xf32> into tensor<2x3x2x3x3xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_ngchw_gfchw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME: ins(%[[XG]], %[[WG]] : tensor<1x2x2x8x10xf32>, tensor<2x3x2x3x3xf32>) outs(%{{.*}} : tensor<1x2x3x4x8xf32>)
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x4x8xf32> into tensor<1x6x4x8xf32>
// CHECK: return %[[R]]
func.func @conv_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x8xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 0, 1>, dilations = array<i64: 2, 1>, group = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x8xf32>
  return %0 : tensor<1x6x4x8xf32>
}

// -----

// A channel multiplier (8 filters over 4 channels, group 4) is not depthwise_conv_2d_nchw_chw.
// CHECK-LABEL: func @conv_depthwise_multiplier
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw
// CHECK: linalg.conv_2d_ngchw_gfchw
// CHECK-SAME: outs(%{{.*}} : tensor<1x4x2x6x6xf32>)
func.func @conv_depthwise_multiplier(%x: tensor<1x4x8x8xf32>, %w: tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32> {
  %0 = infc.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %0 : tensor<1x8x6x6xf32>
}

// -----

// The integer convolutions (ConvInteger, QLinearConv) accumulate in i32: the same im2col +
// matmul, the bias an integer add.
// CHECK-LABEL: func @conv_i32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x27xi32>, tensor<27x32xi32>)
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.addf
func.func @conv_i32(%x: tensor<2x3x6x6xi32>, %w: tensor<4x3x3x3xi32>, %b: tensor<4xi32>) -> tensor<2x4x4x4xi32> {
  %0 = infc.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x3x6x6xi32>, tensor<4x3x3x3xi32>, tensor<4xi32>) -> tensor<2x4x4x4xi32>
  return %0 : tensor<2x4x4x4xi32>
}

// -----

// An i32 convolution of a cast from ui8 (what infc-fold-qdq emits): im2col copies the bytes
// (padded with 0 as bytes), and the widening follows it, zero-extending, right before the
// matmul, where infc-vnni-matmul looks for it.
// CHECK-LABEL: func @conv_of_u8
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: : tensor<1x2x6x6xi8>
// CHECK: tensor.insert_slice {{.*}} : tensor<2x1x4x4xi8> into tensor<2x3x3x1x4x4xi8>
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x18xi32>, tensor<18x16xi32>)
func.func @conv_of_u8(%x: tensor<1x2x4x4xui8>, %w: tensor<4x2x3x3xi32>) -> tensor<1x4x4x4xi32> {
  %0 = infc.cast %x : tensor<1x2x4x4xui8> -> tensor<1x2x4x4xi32>
  %1 = infc.conv %0, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x2x4x4xi32>, tensor<4x2x3x3xi32>) -> tensor<1x4x4x4xi32>
  return %1 : tensor<1x4x4x4xi32>
}
