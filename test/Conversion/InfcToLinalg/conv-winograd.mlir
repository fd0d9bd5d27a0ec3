// RUN: infc-opt %s -convert-infc-to-linalg="winograd-min-channels=16" -split-input-file -mlir-print-elementsattrs-with-hex-if-larger=100000 | FileCheck %s
// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s --check-prefix=DEFAULT

// A 3x3 stride-1 NHWC convolution of 16 to 32 channels over a 5x6 map (pads 1): Winograd
// F(2x2, 3x3) over 3 x 3 tiles. The input is padded to whole 4x4 blocks (8 x 8: one zero
// row more at the bottom for the odd height); the input transform is a loop nest over the
// tile rows (infc.parallel), the tile columns and the channels by 16, reading the block's
// 16 vectors and writing V [16, 3, 3, 16]; the 16 matmuls [9, 16] x [16, 32] are one in a
// loop marked infc.weight_batch, each against slice %xi of the transformed weights U
// [16, 16, 32] (all ones here: U[0] = (G 1 G^T)[0][0] = 1); the output transform is a
// generic over [3, 2, 3, 2, 32] reading M[xi] at its tile, and the last row is dropped.
// The default (64 channels) leaves this one to the implicit GEMM.
// CHECK-LABEL: func.func @winograd
// CHECK: %[[P:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 2, 1, 0]
// CHECK: } : tensor<1x5x6x16xf32> to tensor<1x8x8x16xf32>
// CHECK: %[[V:.*]] = scf.for %[[R:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (tensor<16x3x3x16xf32>)
// CHECK: scf.for %{{.*}} -> (tensor<16x3x3x16xf32>)
// CHECK: scf.for %{{.*}} -> (tensor<16x3x3x16xf32>)
// CHECK-COUNT-16: vector.transfer_read %[[P]]
// CHECK-COUNT-16: vector.transfer_write
// CHECK: } {infc.parallel}
// CHECK: %[[VT:.*]] = tensor.collapse_shape %[[V]] {{\[}}[0], [1, 2], [3]] : tensor<16x3x3x16xf32> into tensor<16x9x16xf32>
// CHECK: %[[U:.*]] = arith.constant dense<{{\[\[\[}}1.000000e+00, 1.000000e+00, {{.*}}> : tensor<16x16x32xf32>
// CHECK: %[[M:.*]] = scf.for %[[XI:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %{{.*}}) -> (tensor<16x9x32xf32>)
// CHECK: %[[SLOT:.*]] = tensor.extract_slice %[[ACC]][%[[XI]], 0, 0] [1, 9, 32] [1, 1, 1] : tensor<16x9x32xf32> to tensor<9x32xf32>
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[SLOT]] : tensor<9x32xf32>)
// CHECK: %[[VX:.*]] = tensor.extract_slice %[[VT]][%[[XI]], 0, 0] [1, 9, 16] [1, 1, 1]
// CHECK: %[[UX:.*]] = tensor.extract_slice %[[U]][%[[XI]], 0, 0] [1, 16, 32] [1, 1, 1]
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[VX]], %[[UX]] : tensor<9x16xf32>, tensor<16x32xf32>) outs(%[[ZERO]] : tensor<9x32xf32>)
// CHECK: tensor.insert_slice %[[MM]] into %[[ACC]][%[[XI]], 0, 0] [1, 9, 32] [1, 1, 1]
// CHECK: } {infc.parallel, infc.weight_batch}
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2x3x2x32xf32>)
// CHECK-COUNT-2: linalg.index
// CHECK: tensor.collapse_shape %[[Y]] {{\[}}[0, 1], [2, 3], [4]] : tensor<3x2x3x2x32xf32> into tensor<6x6x32xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 5, 6, 32] [1, 1, 1, 1] : tensor<1x6x6x32xf32> to tensor<1x5x6x32xf32>
// DEFAULT-LABEL: func.func @winograd
// DEFAULT-NOT: infc.weight_batch
// DEFAULT: infc.implicit_conv
func.func @winograd(%x: tensor<1x5x6x16xf32>) -> tensor<1x5x6x32xf32> {
  %w = arith.constant dense<1.0> : tensor<32x16x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x5x6x16xf32>, tensor<32x16x3x3xf32>) -> tensor<1x5x6x32xf32>
  return %y : tensor<1x5x6x32xf32>
}

// -----

// A batch of 3 images: Winograd's transforms are written for one image, so the convolution
// runs image by image, in a loop marked infc.by_image (whose scratch buffers
// infc-memory-plan places once for every image).
// CHECK-LABEL: func.func @winograd_batch
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<3x5x6x32xf32>
// CHECK: scf.for %[[N:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:[a-z0-9_]+]] = %[[OUT]]) -> (tensor<3x5x6x32xf32>)
// CHECK: %[[IMG:.*]] = tensor.extract_slice %arg0[%[[N]], 0, 0, 0] [1, 5, 6, 16] [1, 1, 1, 1] : tensor<3x5x6x16xf32> to tensor<1x5x6x16xf32>
// CHECK: tensor.pad %[[IMG]] low[0, 1, 1, 0] high[0, 2, 1, 0]
// CHECK: infc.weight_batch
// CHECK: tensor.insert_slice %{{.*}} into %[[ACC]][%[[N]], 0, 0, 0] [1, 5, 6, 32] [1, 1, 1, 1] : tensor<1x5x6x32xf32> into tensor<3x5x6x32xf32>
// CHECK: } {infc.by_image}
func.func @winograd_batch(%x: tensor<3x5x6x16xf32>) -> tensor<3x5x6x32xf32> {
  %w = arith.constant dense<1.0> : tensor<32x16x3x3xf32>
  %y = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<3x5x6x16xf32>, tensor<32x16x3x3xf32>) -> tensor<3x5x6x32xf32>
  return %y : tensor<3x5x6x32xf32>
}

// -----

// Not for Winograd F(2x2, 3x3): stride 2, a 5x5 kernel, dilation 2, input channels not a
// multiple of 16, weights known only at run time.
// CHECK-LABEL: func.func @others
// CHECK-NOT: infc.weight_batch
// CHECK: return
func.func @others(%x: tensor<1x8x8x16xf32>, %x24: tensor<1x8x8x24xf32>, %wr: tensor<16x16x3x3xf32>) -> (tensor<1x4x4x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>) {
  %w = arith.constant dense<1.0> : tensor<16x16x3x3xf32>
  %w5 = arith.constant dense<1.0> : tensor<16x16x5x5xf32>
  %w24 = arith.constant dense<1.0> : tensor<16x24x3x3xf32>
  %s2 = infc.conv %x, %w {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x8x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x4x4x16xf32>
  %k5 = infc.conv %x, %w5 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<16x16x5x5xf32>) -> tensor<1x8x8x16xf32>
  %d2 = infc.conv %x, %w {channels_last, dilations = array<i64: 2, 2>, group = 1 : i64, pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x8x8x16xf32>
  %c24 = infc.conv %x24, %w24 {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x24xf32>, tensor<16x24x3x3xf32>) -> tensor<1x8x8x16xf32>
  %rt = infc.conv %x, %wr {channels_last, dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<16x16x3x3xf32>) -> tensor<1x8x8x16xf32>
  return %s2, %k5, %d2, %c24, %rt : tensor<1x4x4x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>, tensor<1x8x8x16xf32>
}
