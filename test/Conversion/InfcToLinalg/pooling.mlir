// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// max_pool pads with -inf (padding never wins); a window of up to 25 taps is the maximumf
// of one strided slice of the padded input per tap, in one elementwise generic (it
// vectorizes and fuses); a larger one is linalg.pooling_nchw_max, accumulating from -inf.
// avg_pool sums over zero padding and divides by a compile-time table of the elements each
// window counts.

// CHECK-LABEL: func @max_pool_padded
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NEGINF]] : f32
// CHECK: } : tensor<1x2x5x5xf32> to tensor<1x2x7x6xf32>
// CHECK: %[[W0:.*]] = tensor.extract_slice %[[P]][0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[W5:.*]] = tensor.extract_slice %[[P]][0, 0, 2, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[W0]], {{.*}}, %[[W5]] :
// CHECK-COUNT-5: arith.maximumf
// CHECK-NOT: arith.maximumf
// CHECK: return %[[R]]
func.func @max_pool_padded(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = infc.max_pool %x {kernel = array<i64: 3, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Dilated taps: the slices start at multiples of the dilation.
// CHECK-LABEL: func @max_pool_unpadded
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK-NOT: tensor.pad
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 0] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[X]][0, 0, 0, 2] [1, 1, 2, 2] [1, 1, 1, 1]
// CHECK: tensor.extract_slice %[[X]][0, 0, 2, 0]
// CHECK: tensor.extract_slice %[[X]][0, 0, 2, 2]
func.func @max_pool_unpadded(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = infc.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 2, 2>, ceil_mode = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// A 6x6 window (36 taps): linalg's pooling op.
// CHECK-LABEL: func @max_pool_large_window
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<6x6xf32>
// CHECK: %[[INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[INIT]] : f32) outs(%{{.*}} : tensor<1x1x1x1xf32>)
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME: ins(%{{.*}}, %[[WIN]] : tensor<1x1x6x6xf32>, tensor<6x6xf32>) outs(%[[ACC]] : tensor<1x1x1x1xf32>)
func.func @max_pool_large_window(%x: tensor<1x1x6x6xf32>) -> tensor<1x1x1x1xf32> {
  %0 = infc.max_pool %x {kernel = array<i64: 6, 6>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x1x6x6xf32>) -> tensor<1x1x1x1xf32>
  return %0 : tensor<1x1x1x1xf32>
}

// -----

// ceil_mode's last window reads one element past the end: extra -inf padding at the end.
// CHECK-LABEL: func @max_pool_ceil_mode
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: } : tensor<1x1x4x4xf32> to tensor<1x1x5x5xf32>
// CHECK-COUNT-8: arith.maximumf
func.func @max_pool_ceil_mode(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = infc.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// Without count_include_pad, corner windows of a 3x3 kernel over 1-padded 3x3 see 4 elements,
// edges 6, the center 9.
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$HW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @avg_pool_exclude_pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x3x3xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: %[[SUM:.*]] = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
// CHECK-SAME: ins(%[[P]], %{{.*}} : tensor<1x1x5x5xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<1x1x3x3xf32>)
// CHECK: %[[DIV:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$HW]], #[[$ID4]]]
// CHECK-SAME: ins(%[[SUM]], %[[DIV]] : tensor<1x1x3x3xf32>, tensor<3x3xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %[[D:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[S]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[Q]]
// CHECK: return %[[R]]
func.func @avg_pool_exclude_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// With count_include_pad every window counts the whole kernel.
// CHECK-LABEL: func @avg_pool_include_pad
// CHECK: linalg.pooling_nchw_sum
// CHECK: %[[DIV:.*]] = arith.constant dense<9.000000e+00> : tensor<3x3xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[DIV]] :
// CHECK: arith.divf
func.func @avg_pool_include_pad(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = true} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// ceil_mode's partial last window divides by what it covers of the input (never the padding
// added for it, even with count_include_pad): 9, 6 / 6, 4 for a 3x3 kernel, stride 2 over 4x4.
// CHECK-LABEL: func @avg_pool_ceil_mode
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: linalg.pooling_nchw_sum
// CHECK: arith.constant dense<{{\[}}[9.000000e+00, 6.000000e+00], [6.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK-LABEL: func @avg_pool_ceil_mode_include_pad
// The declared pads count, the ceil overhang does not: windows at -1, 1, 3 count 3, 3, 2.
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: arith.constant dense<{{\[}}[9.000000e+00, 9.000000e+00, 6.000000e+00], [9.000000e+00, 9.000000e+00, 6.000000e+00], [6.000000e+00, 6.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
func.func @avg_pool_ceil_mode(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = false} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}
func.func @avg_pool_ceil_mode_include_pad(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32> {
  %0 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true} : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// The divisor table takes the pooled element type.
// CHECK-LABEL: func @avg_pool_f16
// CHECK: linalg.pooling_nchw_sum
// CHECK-SAME: outs(%{{.*}} : tensor<1x1x2x2xf16>)
// CHECK: arith.constant dense<4.000000e+00> : tensor<2x2xf16>
// CHECK: arith.divf %{{.*}}, %{{.*}} : f16
func.func @avg_pool_f16(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x2x2xf16> {
  %0 = infc.avg_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x1x4x4xf16>) -> tensor<1x1x2x2xf16>
  return %0 : tensor<1x1x2x2xf16>
}
