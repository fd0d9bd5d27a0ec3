// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -mlir-print-elementsattrs-with-hex-if-larger=100000 | FileCheck %s
// RUN: infc-opt %s -convert-infc-to-linalg="byte-row-multiple=64" -split-input-file -mlir-print-elementsattrs-with-hex-if-larger=100000 | FileCheck %s --check-prefix=AMX

// channels_last (what infc-channels-last writes for the CPU): a plain convolution is the
// matmul of the linear layers, activation rows [N*OH*OW, KH*KW*C] times the weights as a
// constant [KH*KW*C, F] permuted at compile time. W[f][c][i][j] = 1000f + 100c + 10i + j,
// so W' [KH, KW, C, F] holds W'[i][j][c] = [100c + 10i + j, 1000 + 100c + 10i + j].
// The padding pads H and W; im2col is one loop over the 3 output rows x 4 taps, marked
// infc.parallel, each step copying one tap's row (a strided NHWC window, C contiguous) to
// Col[0, r, :, 2 * tap : 2 * tap + 2] (step s: r = s / 4, tap = s % 4 = 2i + j; input row
// 2r + i, column j); the bias adds along the last dim.
// CHECK-LABEL: func.func @plain
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
// CHECK: %[[W4:.*]] = arith.constant dense<{{\[\[\[\[}}0.000000e+00, 1.000000e+03], [1.000000e+02, 1.100000e+03]], {{\[\[}}1.000000e+00, 1.001000e+03], [1.010000e+02, 1.101000e+03]]], {{\[\[\[}}1.000000e+01, 1.010000e+03], [1.100000e+02, 1.110000e+03]], {{\[\[}}1.100000e+01, 1.011000e+03], [1.110000e+02, 1.111000e+03]]]]> : tensor<2x2x2x2xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[W4]] {{\[}}[0, 1, 2], [3]] : tensor<2x2x2x2xf32> into tensor<8x2xf32>
// CHECK: %[[C12:.*]] = arith.constant 12 : index
// CHECK: %[[LOOP:.*]] = scf.for %[[S:.*]] = %{{.*}} to %[[C12]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x3x3x8xf32>) {
// CHECK: %[[R:.*]] = arith.divui %[[S]], %c4
// CHECK: %[[TAP:.*]] = arith.remui %[[S]], %c4
// CHECK: %[[I:.*]] = arith.divui %[[TAP]], %c2
// CHECK: %[[J:.*]] = arith.remui %[[TAP]], %c2
// CHECK: %[[R2:.*]] = arith.muli %[[R]], %c2
// CHECK: %[[ROW:.*]] = arith.addi %[[R2]], %[[I]]
// CHECK: %[[WIN:.*]] = tensor.extract_slice %[[P]][0, %[[ROW]], %[[J]], 0] [1, 1, 3, 2] [1, 1, 2, 1] : tensor<1x6x6x2xf32> to tensor<1x1x3x2xf32>
// CHECK: %[[AT:.*]] = arith.muli %[[TAP]], %c2
// CHECK: %[[DEST:.*]] = tensor.extract_slice %[[ACC]][0, %[[R]], 0, %[[AT]]] [1, 1, 3, 2] [1, 1, 1, 1]
// CHECK: %[[COPY:.*]] = linalg.copy ins(%[[WIN]] : tensor<1x1x3x2xf32>) outs(%[[DEST]] : tensor<1x1x3x2xf32>)
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[COPY]] into %[[ACC]][0, %[[R]], 0, %[[AT]]]
// CHECK: scf.yield %[[INS]]
// CHECK: } {infc.parallel}
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[LOOP]] {{\[}}[0, 1, 2], [3]] : tensor<1x3x3x8xf32> into tensor<9x8xf32>
// CHECK: %[[Y:.*]] = linalg.matmul {infc.conv} ins(%[[COL]], %[[W]] : tensor<9x8xf32>, tensor<8x2xf32>)
// CHECK: %[[Y4:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1, 2], [3]] output_shape [1, 3, 3, 2] : tensor<9x2xf32> into tensor<1x3x3x2xf32>
// CHECK: linalg.generic {{.*}} ins(%[[Y4]], %arg1 : tensor<1x3x3x2xf32>, tensor<2xf32>)
// CHECK: arith.addf
func.func @plain(%x: tensor<1x4x4x2xf32>, %b: tensor<2xf32>) -> tensor<1x3x3x2xf32> {
  %w = infc.constant dense<[[[[0.0, 1.0], [10.0, 11.0]], [[100.0, 101.0], [110.0, 111.0]]],
                           [[[1000.0, 1001.0], [1010.0, 1011.0]], [[1100.0, 1101.0], [1110.0, 1111.0]]]]> : tensor<2x2x2x2xf32>
  %y = infc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x2xf32>, tensor<2x2x2x2xf32>, tensor<2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// A 1x1 stride-1 convolution reads its input in place: no copy, the NHWC input is the
// matmul's A operand.
// CHECK-LABEL: func.func @pointwise
// CHECK-NOT: linalg.copy
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2], [3]] : tensor<1x5x5x3xf32> into tensor<25x3xf32>
// CHECK: linalg.matmul {infc.conv} ins(%[[A]], %{{.*}} : tensor<25x3xf32>, tensor<3x4xf32>)
func.func @pointwise(%x: tensor<1x5x5x3xf32>) -> tensor<1x5x5x4xf32> {
  %w = infc.constant dense<0.5> : tensor<4x3x1x1xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x5x5x3xf32>, tensor<4x3x1x1xf32>) -> tensor<1x5x5x4xf32>
  return %y : tensor<1x5x5x4xf32>
}

// -----

// Depthwise: the sum over the taps of strided windows times that tap's weights, a contiguous
// [C] row of the [KH*KW, C] constant (W[c][0][i][j] = 10c + 3i + j, so row 1 is [1, 11]),
// broadcast along the last dim.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[W4:.*]] = arith.constant dense<{{\[\[\[\[}}0.000000e+00, 1.000000e+01], [1.000000e+00, 1.100000e+01]], {{\[\[}}3.000000e+00, 1.300000e+01], [4.000000e+00, 1.400000e+01]]]]> : tensor<1x2x2x2xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[W4]] {{\[}}[0, 1, 2], [3]] : tensor<1x2x2x2xf32> into tensor<4x2xf32>
// CHECK: tensor.extract_slice %[[W]][1, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK: math.fma
func.func @depthwise(%x: tensor<1x4x4x2xf32>) -> tensor<1x3x3x2xf32> {
  %w = infc.constant dense<[[[[0.0, 1.0], [3.0, 4.0]]], [[[10.0, 11.0], [13.0, 14.0]]]]> : tensor<2x1x2x2xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x2x2xf32>) -> tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// Max pooling over NHWC: the taps' windows are strided in H and W.
// CHECK-LABEL: func.func @max_pool
// CHECK: tensor.extract_slice %arg0[0, 1, 1, 0] [1, 2, 2, 3] [1, 2, 2, 1] : tensor<1x4x4x3xf32> to tensor<1x2x2x3xf32>
// CHECK: arith.maximumf
func.func @max_pool(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32> {
  %y = infc.max_pool %x {ceil_mode = false, channels_last, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32>
  return %y : tensor<1x2x2x3xf32>
}

// -----

// Average pooling over NHWC: a sum pool, then the divisor table [OH, OW, 1].
// CHECK-LABEL: func.func @avg_pool
// CHECK: linalg.pooling_nhwc_sum
// CHECK: arith.constant dense<{{.*}}> : tensor<2x2x1xf32>
// CHECK: arith.divf
func.func @avg_pool(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32> {
  %y = infc.avg_pool %x {ceil_mode = false, channels_last, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x3xf32>) -> tensor<1x2x2x3xf32>
  return %y : tensor<1x2x2x3xf32>
}

// -----

// A stride-1 3x3 convolution with F = 64 on an 8-wide image: an implicit GEMM. The input is
// padded by one more zero row at the bottom and viewed as [11 * 10, C]; the generic's output
// is the wide [8 * 10, F] (10 columns a row, 2 of them garbage), whose first 8 columns are
// the result. Tap t reads rows m + (t / 3) * 10 + t % 3.
// CHECK: #[[MA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 10 + d2 mod 3, d3)>
// CHECK: #[[MB:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK: #[[MC:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
// CHECK-LABEL: func.func @implicit
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 2, 1, 0]
// CHECK: } : tensor<1x8x8x2xf32> to tensor<1x11x10x2xf32>
// CHECK: %[[X:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3]] : tensor<1x11x10x2xf32> into tensor<110x2xf32>
// CHECK: %[[W4:.*]] = arith.constant dense<1.000000e+00> : tensor<3x3x2x64xf32>
// CHECK: %[[W:.*]] = tensor.collapse_shape %[[W4]] {{\[}}[0, 1], [2], [3]] : tensor<3x3x2x64xf32> into tensor<9x2x64xf32>
// CHECK: %[[Y:.*]] = linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %[[W]] : tensor<110x2xf32>, tensor<9x2x64xf32>) outs(%{{.*}} : tensor<80x64xf32>) attrs =  {infc.implicit_conv = array<i64: 3, 3, 10>}
// CHECK: %[[Y4:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1, 2], [3]] output_shape [1, 8, 10, 64] : tensor<80x64xf32> into tensor<1x8x10x64xf32>
// CHECK: tensor.extract_slice %[[Y4]][0, 0, 0, 0] [1, 8, 8, 64] [1, 1, 1, 1] : tensor<1x8x10x64xf32> to tensor<1x8x8x64xf32>
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.matmul
func.func @implicit(%x: tensor<1x8x8x2xf32>) -> tensor<1x8x8x64xf32> {
  %w = infc.constant dense<1.0> : tensor<64x2x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<64x2x3x3xf32>) -> tensor<1x8x8x64xf32>
  return %y : tensor<1x8x8x64xf32>
}

// -----

// The same on a 4-wide image: (3 - 1) x 64 garbage columns per 18 x 4 useful ones would cost
// more than the im2col copies save: im2col and a matmul.
// CHECK-LABEL: func.func @narrow_image
// CHECK-NOT: infc.implicit_conv
// CHECK: linalg.copy
// CHECK: linalg.matmul
func.func @narrow_image(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x64xf32> {
  %w = infc.constant dense<1.0> : tensor<64x2x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<64x2x3x3xf32>) -> tensor<1x4x4x64xf32>
  return %y : tensor<1x4x4x64xf32>
}

// -----

// A stride-2 convolution of 3 channels (a stem): the padded image, 2 (OH + 2) = 8 rows by
// 2 (OW + 2 - 1) = 6 columns, goes through a 2x2 space-to-depth to [1, 4, 3, 12], then a
// stride-1 implicit GEMM with a 2x2 kernel over 12 channels (the 3x3 kernel's taps spread
// over four phases, zero where 2i + a or 2j + b passes 3). W[f][c][i][j] = 1 everywhere, so
// W2[f][(a, b, c)][i][j] is 1 where 2i + a < 3 and 2j + b < 3, else 0.
// CHECK-LABEL: func.func @stem
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 3, 1, 0]
// CHECK: } : tensor<1x4x4x3xf32> to tensor<1x8x6x3xf32>
// CHECK: %[[S:.*]] = tensor.expand_shape %[[P]] {{\[}}[0], [1, 2], [3, 4], [5]] output_shape [1, 4, 2, 3, 2, 3] : tensor<1x8x6x3xf32> into tensor<1x4x2x3x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<1x4x2x3x2x3xf32>) outs(%{{.*}} : tensor<1x4x3x2x2x3xf32>) permutation = [0, 1, 3, 2, 4, 5]
// CHECK: %[[X2:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2], [3, 4, 5]] : tensor<1x4x3x2x2x3xf32> into tensor<1x4x3x12xf32>
// CHECK: arith.constant dense<{{\[\[\[\[}}1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00]], {{\[\[}}1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00]], {{\[\[}}1.000000e+00, 1.000000e+00], [1.000000e+00, 1.000000e+00]], {{\[\[}}1.000000e+00, 0.000000e+00], [1.000000e+00, 0.000000e+00]]
// CHECK: tensor.collapse_shape %[[X2]] {{\[}}[0, 1, 2], [3]] : tensor<1x4x3x12xf32> into tensor<12x12xf32>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<6x64xf32>) attrs =  {infc.implicit_conv = array<i64: 2, 2, 3>}
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 2, 2, 64] [1, 1, 1, 1] : tensor<1x2x3x64xf32> to tensor<1x2x2x64xf32>
// CHECK-NOT: linalg.copy
func.func @stem(%x: tensor<1x4x4x3xf32>) -> tensor<1x2x2x64xf32> {
  %w = infc.constant dense<1.0> : tensor<64x3x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x4x3xf32>, tensor<64x3x3x3xf32>) -> tensor<1x2x2x64xf32>
  return %y : tensor<1x2x2x64xf32>
}

// -----

// A 10x10 map with 128 filters: the wide output's (3 - 1) x 128 garbage columns per row
// would cost more than they save, and with 100 pixels (more than 64) the implicit GEMM runs
// over the pixel rows instead: output row m reads, per tap, input row (m / 10) * 12 + m % 10
// of the padded image (Wp = 12) shifted by (t / 3) * 12 + t % 3, no garbage columns, no
// im2col, the result [100, 128] is the image.
// CHECK-LABEL: func.func @pixel_rows
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x10x10x2xf32> to tensor<1x12x12x2xf32>
// CHECK: %[[X:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1, 2], [3]] : tensor<1x12x12x2xf32> into tensor<144x2xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<144x2xf32>, tensor<9x2x128xf32>) outs(%{{.*}} : tensor<100x128xf32>) attrs =  {infc.implicit_conv = array<i64: 3, 3, 12, 1, 10>}
// CHECK: tensor.expand_shape %[[Y]] {{\[}}[0, 1, 2], [3]] output_shape [1, 10, 10, 128] : tensor<100x128xf32> into tensor<1x10x10x128xf32>
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.matmul
func.func @pixel_rows(%x: tensor<1x10x10x2xf32>) -> tensor<1x10x10x128xf32> {
  %w = infc.constant dense<1.0> : tensor<128x2x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x10x10x2xf32>, tensor<128x2x3x3xf32>) -> tensor<1x10x10x128xf32>
  return %y : tensor<1x10x10x128xf32>
}

// -----

// Stride 2 over pixel rows (8 channels: no space-to-depth): the padded 22x22 image, output
// row m reading row (m / 10) * 44 + (m % 10) * 2 per tap.
// CHECK: #[[PA:.*]] = affine_map<(d0, d1, d2, d3) -> ((d0 floordiv 10) * 44 + (d0 mod 10) * 2 + (d2 floordiv 3) * 22 + d2 mod 3, d3)>
// CHECK-LABEL: func.func @pixel_rows_stride2
// CHECK: linalg.generic {indexing_maps = [#[[PA]], {{.*}}outs(%{{.*}} : tensor<100x64xf32>) attrs =  {infc.implicit_conv = array<i64: 3, 3, 22, 2, 10>}
// CHECK-NOT: linalg.copy
func.func @pixel_rows_stride2(%x: tensor<1x20x20x8xf32>) -> tensor<1x10x10x64xf32> {
  %w = infc.constant dense<1.0> : tensor<64x8x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x20x20x8xf32>, tensor<64x8x3x3xf32>) -> tensor<1x10x10x64xf32>
  return %y : tensor<1x10x10x64xf32>
}

// -----

// 24 filters (neither 32 nor a multiple of 64: no implicit GEMM's register tile fits) over
// a 10x10 map: zero filters appended up to 32, the wide implicit GEMM over [1, 10, 10, 32],
// the first 24 channels kept, the bias added to them. W[f][0][i][j] = 10f + 2i + j + 1 for
// the first three filters, so W' [KH, KW, C, 32] holds W'[i][j][0] = [2i + j + 1,
// 11 + 2i + j, 21 + 2i + j, (21 more filters), 0, ..., 0].
// CHECK-LABEL: func.func @few_filters
// CHECK: arith.constant dense<{{\[\[\[\[}}1.000000e+00, 1.100000e+01, 2.100000e+01, 5.000000e-01, {{(5.000000e-01, )+}}0.000000e+00, {{(0\.000000e\+00, )+}}0.000000e+00]], {{\[\[}}2.000000e+00, 1.200000e+01, 2.200000e+01, 5.000000e-01, {{.*}} : tensor<2x2x1x32xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<110x32xf32>) attrs =  {infc.implicit_conv = array<i64: 2, 2, 11>}
// CHECK: %[[Y4:.*]] = tensor.expand_shape %[[Y]] {{.*}} output_shape [1, 10, 11, 32]
// CHECK: %[[V:.*]] = tensor.extract_slice %[[Y4]][0, 0, 0, 0] [1, 10, 10, 32] [1, 1, 1, 1]
// CHECK: %[[F:.*]] = tensor.extract_slice %[[V]][0, 0, 0, 0] [1, 10, 10, 24] [1, 1, 1, 1] : tensor<1x10x10x32xf32> to tensor<1x10x10x24xf32>
// CHECK: linalg.generic {{.*}} ins(%[[F]], %arg1 : tensor<1x10x10x24xf32>, tensor<24xf32>)
// CHECK-NOT: linalg.copy
// CHECK-NOT: linalg.matmul
func.func @few_filters(%x: tensor<1x10x10x1xf32>, %b: tensor<24xf32>) -> tensor<1x10x10x24xf32> {
  %w = infc.constant dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[11.0, 12.0], [13.0, 14.0]]], [[[21.0, 22.0], [23.0, 24.0]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]], [[[0.5, 0.5], [0.5, 0.5]]]]> : tensor<24x1x2x2xf32>
  %y = infc.conv %x, %w, %b {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x10x10x1xf32>, tensor<24x1x2x2xf32>, tensor<24xf32>) -> tensor<1x10x10x24xf32>
  return %y : tensor<1x10x10x24xf32>
}

// -----

// An int8 model's convolution (i32 over bytes widened by a cast): the bytes are padded with
// zero and copied by the im2col loop as bytes, widened after, and multiplied by the weights
// [KH*KW*C, F] (i32 of s8 values): the C = ext(A) x B form infc-vnni-matmul takes.
// CHECK-LABEL: func.func @bytes
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x4x4x8xi8> to tensor<1x6x6x8xi8>
// CHECK: %[[LOOP:.*]] = scf.for {{.*}} -> (tensor<1x4x4x72xi8>) {
// CHECK: tensor.extract_slice %[[P]]
// CHECK: linalg.copy ins(%{{.*}} : tensor<1x1x4x8xi8>)
// CHECK: } {infc.parallel}
// CHECK: %[[COL:.*]] = tensor.collapse_shape %[[LOOP]] {{.*}} into tensor<16x72xi8>
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[COL]] : tensor<16x72xi8>) outs(%{{.*}} : tensor<16x72xi32>)
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: linalg.matmul {infc.conv} ins(%[[WIDE]], %{{.*}} : tensor<16x72xi32>, tensor<72x16xi32>)
// With byte-row-multiple=64 (AMX), the 72-byte rows take 128: im2col zero-fills the tail
// columns [72, 128) (a strided fill of the empty matrix, before the loop writes the taps),
// and the weights get 56 zero rows at compile time.
// AMX-LABEL: func.func @bytes
// AMX: %[[E:.*]] = tensor.empty() : tensor<1x4x4x128xi8>
// AMX: %[[T:.*]] = tensor.extract_slice %[[E]][0, 0, 0, 72] [1, 4, 4, 56] [1, 1, 1, 1]
// AMX: %[[Z:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%[[T]] : tensor<1x4x4x56xi8>)
// AMX: %[[I:.*]] = tensor.insert_slice %[[Z]] into %[[E]][0, 0, 0, 72] [1, 4, 4, 56]
// AMX: %[[W:.*]] = arith.constant dense<{{\[\[}}3, {{.*}}, 3], [0, {{.*}}, 0]]> : tensor<128x16xi32>
// AMX: scf.for {{.*}} iter_args(%{{.*}} = %[[I]]) -> (tensor<1x4x4x128xi8>)
// AMX: } {infc.parallel}
// AMX: tensor.collapse_shape {{.*}} into tensor<16x128xi8>
// AMX: linalg.matmul {infc.conv} ins(%{{.*}}, %[[W]] : tensor<16x128xi32>, tensor<128x16xi32>)
func.func @bytes(%x: tensor<1x4x4x8xui8>) -> tensor<1x4x4x16xi32> {
  %w = infc.constant dense<3> : tensor<16x8x3x3xi32>
  %c = infc.cast %x : tensor<1x4x4x8xui8> -> tensor<1x4x4x8xi32>
  %y = infc.conv %c, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xi32>, tensor<16x8x3x3xi32>) -> tensor<1x4x4x16xi32>
  return %y : tensor<1x4x4x16xi32>
}

// -----

// A 1x1 one reads its bytes in place: [OH*OW, C] widened, no im2col.
// CHECK-LABEL: func.func @bytes_pointwise
// CHECK: %[[A:.*]] = tensor.collapse_shape %arg0 {{.*}} : tensor<1x4x4x8xi8> into tensor<16x8xi8>
// CHECK: %[[WIDE:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<16x8xi8>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: linalg.matmul {infc.conv} ins(%[[WIDE]], %{{.*}} : tensor<16x8xi32>, tensor<8x16xi32>)
// CHECK-NOT: linalg.copy
func.func @bytes_pointwise(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x16xi32> {
  %w = infc.constant dense<3> : tensor<16x8x1x1xi32>
  %c = infc.cast %x : tensor<1x4x4x8xi8> -> tensor<1x4x4x8xi32>
  %y = infc.conv %c, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x8xi32>, tensor<16x8x1x1xi32>) -> tensor<1x4x4x16xi32>
  return %y : tensor<1x4x4x16xi32>
}

// -----

// A strided, dilated int8 convolution with K = 36 (3x3 taps x 4 channels) and distinct
// weights W[f][c][i][j] = 36f + 9c + 3i + j + 1: the loop reads input row 2r + 2i, column
// 2j, every other pixel; with byte-row-multiple=64 the weights [KH, KW, C, F] -> [36, 2]
// get 28 zero rows: rows (i, j, c) = (0, 0, 0..3) are [1, 37], [10, 46], [19, 55], [28, 64],
// then (0, 1, 0) is [2, 38].
// CHECK-LABEL: func.func @bytes_strided_dilated
// CHECK: scf.for %[[S:.*]] = %{{.*}} to %c27 step %{{.*}} iter_args(%{{.*}}) -> (tensor<1x3x3x36xi8>) {
// CHECK: %[[R:.*]] = arith.divui %[[S]], %c9
// CHECK: %[[TAP:.*]] = arith.remui %[[S]], %c9
// CHECK: %[[I:.*]] = arith.divui %[[TAP]], %c3
// CHECK: %[[J:.*]] = arith.remui %[[TAP]], %c3
// CHECK: %[[I2:.*]] = arith.muli %[[I]], %c2
// CHECK: %[[R2:.*]] = arith.muli %[[R]], %c2
// CHECK: %[[ROW:.*]] = arith.addi %[[R2]], %[[I2]]
// CHECK: %[[COL:.*]] = arith.muli %[[J]], %c2
// CHECK: tensor.extract_slice %arg0[0, %[[ROW]], %[[COL]], 0] [1, 1, 3, 4] [1, 1, 2, 1] : tensor<1x9x9x4xi8> to tensor<1x1x3x4xi8>
// CHECK: linalg.matmul {infc.conv} ins(%{{.*}}, %{{.*}} : tensor<9x36xi32>, tensor<36x2xi32>)
// AMX-LABEL: func.func @bytes_strided_dilated
// AMX: arith.constant dense<{{\[\[}}1, 37], [10, 46], [19, 55], [28, 64], [2, 38], {{.*}}, [36, 72], [0, 0], {{.*}}, [0, 0]]> : tensor<64x2xi32>
// AMX: linalg.matmul {infc.conv} ins(%{{.*}}, %{{.*}} : tensor<9x64xi32>, tensor<64x2xi32>)
func.func @bytes_strided_dilated(%x: tensor<1x9x9x4xi8>) -> tensor<1x3x3x2xi32> {
  %w = infc.constant dense<[[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[10, 11, 12], [13, 14, 15], [16, 17, 18]], [[19, 20, 21], [22, 23, 24], [25, 26, 27]], [[28, 29, 30], [31, 32, 33], [34, 35, 36]]], [[[37, 38, 39], [40, 41, 42], [43, 44, 45]], [[46, 47, 48], [49, 50, 51], [52, 53, 54]], [[55, 56, 57], [58, 59, 60], [61, 62, 63]], [[64, 65, 66], [67, 68, 69], [70, 71, 72]]]]> : tensor<2x4x3x3xi32>
  %c = infc.cast %x : tensor<1x9x9x4xi8> -> tensor<1x9x9x4xi32>
  %y = infc.conv %c, %w {channels_last, dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x9x9x4xi32>, tensor<2x4x3x3xi32>) -> tensor<1x3x3x2xi32>
  return %y : tensor<1x3x3x2xi32>
}
