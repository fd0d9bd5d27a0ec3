// RUN: infc-opt %s -infc-channels-last -canonicalize -split-input-file | FileCheck %s

// A ResNet block: conv, BatchNorm as mul/add by per-channel constants, relu, max pool, a
// second conv and a residual add, then the global average pool and the flatten. Every conv
// and the pool become channels_last; the per-channel constants are transposed at compile
// time ([64, 1, 1] -> [1, 1, 1, 64]); the transposes between the convs cancel, and the one
// after the keepdims mean moves only unit dims, so it is a reshape. What is left is the
// transpose of the image in.
// CHECK-LABEL: func.func @resnet_block
// CHECK-DAG: %[[S:.*]] = infc.constant dense<2.000000e+00> : tensor<1x1x1x64xf32>
// CHECK-DAG: %[[T:.*]] = infc.constant dense<5.000000e-01> : tensor<1x1x1x64xf32>
// CHECK: %[[X:.*]] = infc.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x3x32x32xf32>) -> tensor<1x32x32x3xf32>
// CHECK: %[[C1:.*]] = infc.conv %[[X]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x32x32x3xf32>, tensor<64x3x3x3xf32>) -> tensor<1x32x32x64xf32>
// CHECK: %[[M:.*]] = infc.mul %[[C1]], %[[S]] : (tensor<1x32x32x64xf32>, tensor<1x1x1x64xf32>) -> tensor<1x32x32x64xf32>
// CHECK: %[[A:.*]] = infc.add %[[M]], %[[T]]
// CHECK: %[[R:.*]] = infc.relu %[[A]] : tensor<1x32x32x64xf32>
// CHECK: %[[P:.*]] = infc.max_pool %[[R]] {{{.*}}channels_last{{.*}}} : (tensor<1x32x32x64xf32>) -> tensor<1x16x16x64xf32>
// CHECK: %[[C2:.*]] = infc.conv %[[P]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x16x16x64xf32>, tensor<64x64x1x1xf32>) -> tensor<1x16x16x64xf32>
// CHECK: %[[SUM:.*]] = infc.add %[[C2]], %[[P]] : (tensor<1x16x16x64xf32>, tensor<1x16x16x64xf32>) -> tensor<1x16x16x64xf32>
// CHECK: %[[MEAN:.*]] = infc.reduce_mean %[[SUM]] {axes = array<i64: 1, 2>, keepdims = true} : (tensor<1x16x16x64xf32>) -> tensor<1x1x1x64xf32>
// CHECK: %[[FLAT:.*]] = infc.reshape %[[MEAN]] : tensor<1x1x1x64xf32> -> tensor<1x64xf32>
// CHECK-NOT: infc.transpose
// CHECK: return %[[FLAT]]
func.func @resnet_block(%x: tensor<1x3x32x32xf32>) -> tensor<1x64xf32> {
  %w1 = infc.constant dense<0.1> : tensor<64x3x3x3xf32>
  %w2 = infc.constant dense<0.2> : tensor<64x64x1x1xf32>
  %s = infc.constant dense<2.0> : tensor<64x1x1xf32>
  %t = infc.constant dense<0.5> : tensor<64x1x1xf32>
  %0 = infc.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<64x3x3x3xf32>) -> tensor<1x64x32x32xf32>
  %1 = infc.mul %0, %s : (tensor<1x64x32x32xf32>, tensor<64x1x1xf32>) -> tensor<1x64x32x32xf32>
  %2 = infc.add %1, %t : (tensor<1x64x32x32xf32>, tensor<64x1x1xf32>) -> tensor<1x64x32x32xf32>
  %3 = infc.relu %2 : tensor<1x64x32x32xf32>
  %4 = infc.max_pool %3 {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x64x32x32xf32>) -> tensor<1x64x16x16xf32>
  %5 = infc.conv %4, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x64x16x16xf32>, tensor<64x64x1x1xf32>) -> tensor<1x64x16x16xf32>
  %6 = infc.add %5, %4 : (tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32>
  %7 = infc.reduce_mean %6 {axes = array<i64: 2, 3>, keepdims = true} : (tensor<1x64x16x16xf32>) -> tensor<1x64x1x1xf32>
  %8 = infc.reshape %7 : tensor<1x64x1x1xf32> -> tensor<1x64xf32>
  return %8 : tensor<1x64xf32>
}

// -----

// A depthwise conv (group = channels) converts too; a grouped one that is not depthwise stays
// NCHW, so the transpose back is materialized in front of it (and the result stays NCHW).
// CHECK-LABEL: func.func @depthwise_then_grouped
// CHECK: %[[D:.*]] = infc.conv %{{.*}}, %{{.*}} {channels_last, {{.*}}group = 8 : i64{{.*}}} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[C:.*]] = infc.clip %[[D]]
// CHECK: %[[B:.*]] = infc.transpose %[[C]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[G:.*]] = infc.conv %[[B]], %{{.*}} {{{.*}}group = 2 : i64{{.*}}} : (tensor<1x8x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NOT: channels_last
// CHECK: return %[[G]]
func.func @depthwise_then_grouped(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = infc.constant dense<0.1> : tensor<8x1x3x3xf32>
  %g = infc.constant dense<0.1> : tensor<8x4x1x1xf32>
  %0 = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = infc.clip %0 {max = 6.0 : f64, min = 0.0 : f64} : tensor<1x8x8x8xf32>
  %2 = infc.conv %1, %g {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  return %2 : tensor<1x8x8x8xf32>
}

// -----

// An int8 model: each i32 convolution of bytes becomes channels_last, its bytes transposed
// before the widening cast; the transpose after the first one moves down through the
// zero-point subtraction (its [F, 1, 1] constant transposed), the casts, the requantizing
// mul, relu and quantize (per tensor) and the pad of the second one's bytes (its pads
// moved to H and W), where it cancels with that conv's; a per-axis dequantize takes axis
// 3. One transpose is left at each end: the first conv's padded bytes in, the result out.
// CHECK-LABEL: func.func @int8_chain
// CHECK: %[[Q:.*]] = infc.quantize %arg0, {{.*}} -> tensor<1x4x8x8xui8>
// CHECK: %[[P:.*]] = infc.pad %[[Q]], {{.*}} -> tensor<1x4x10x10xui8>
// CHECK: %[[PT:.*]] = infc.transpose %[[P]] {perm = array<i64: 0, 2, 3, 1>} : (tensor<1x4x10x10xui8>) -> tensor<1x10x10x4xui8>
// CHECK-NOT: infc.transpose
// CHECK: %[[C:.*]] = infc.cast %[[PT]] : tensor<1x10x10x4xui8> -> tensor<1x10x10x4xi32>
// CHECK-NOT: infc.transpose
// CHECK: %[[Y:.*]] = infc.conv %[[C]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x10x10x4xi32>, tensor<8x4x3x3xi32>) -> tensor<1x8x8x8xi32>
// CHECK-NOT: infc.transpose
// CHECK: %[[D:.*]] = infc.sub %[[Y]], %{{.*}} : (tensor<1x8x8x8xi32>, tensor<1x1x1x8xi32>) -> tensor<1x8x8x8xi32>
// CHECK-NOT: infc.transpose
// CHECK: %[[F:.*]] = infc.cast %[[D]] : tensor<1x8x8x8xi32> -> tensor<1x8x8x8xf32>
// CHECK-NOT: infc.transpose
// CHECK: infc.relu
// CHECK-NOT: infc.transpose
// CHECK: %[[Q2:.*]] = infc.quantize %{{.*}} : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x8x8xui8>
// CHECK-NOT: infc.transpose
// CHECK: %[[P2:.*]] = infc.pad %[[Q2]], %{{.*}} {high = array<i64: 0, 1, 1, 0>, low = array<i64: 0, 1, 1, 0>, mode = "constant"} : (tensor<1x8x8x8xui8>, tensor<ui8>) -> tensor<1x10x10x8xui8>
// CHECK-NOT: infc.transpose
// CHECK: %[[C2:.*]] = infc.cast %[[P2]] : tensor<1x10x10x8xui8> -> tensor<1x10x10x8xi32>
// CHECK-NOT: infc.transpose
// CHECK: %[[Y2:.*]] = infc.conv %[[C2]], %{{.*}} {channels_last, {{.*}}} : (tensor<1x10x10x8xi32>, tensor<8x8x3x3xi32>) -> tensor<1x8x8x8xi32>
// CHECK-NOT: infc.transpose
// CHECK: %[[DQ:.*]] = infc.dequantize %[[Y2]], %{{.*}} {axis = 3 : i64, block_size = 0 : i64} : (tensor<1x8x8x8xi32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NOT: infc.transpose
// CHECK: %[[OUT:.*]] = infc.transpose %[[DQ]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[OUT]]
// CHECK-NOT: infc.transpose
func.func @int8_chain(%x: tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %s = infc.constant dense<0.05> : tensor<f32>
  %z = infc.constant dense<3> : tensor<ui8>
  %w1 = infc.constant dense<1> : tensor<8x4x3x3xi32>
  %w2 = infc.constant dense<1> : tensor<8x8x3x3xi32>
  %zp = infc.constant dense<2> : tensor<8x1x1xi32>
  %m = infc.constant dense<0.01> : tensor<8x1x1xf32>
  %ds = infc.constant dense<0.5> : tensor<8xf32>
  %q = infc.quantize %x, %s, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x4x8x8xui8>
  %p = infc.pad %q, %z {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, mode = "constant"} : (tensor<1x4x8x8xui8>, tensor<ui8>) -> tensor<1x4x10x10xui8>
  %c = infc.cast %p : tensor<1x4x10x10xui8> -> tensor<1x4x10x10xi32>
  %y = infc.conv %c, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x10x10xi32>, tensor<8x4x3x3xi32>) -> tensor<1x8x8x8xi32>
  %d = infc.sub %y, %zp : (tensor<1x8x8x8xi32>, tensor<8x1x1xi32>) -> tensor<1x8x8x8xi32>
  %f = infc.cast %d : tensor<1x8x8x8xi32> -> tensor<1x8x8x8xf32>
  %g = infc.mul %f, %m : (tensor<1x8x8x8xf32>, tensor<8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %r = infc.relu %g : tensor<1x8x8x8xf32>
  %q2 = infc.quantize %r, %s, %z {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x8x8x8xf32>, tensor<f32>, tensor<ui8>) -> tensor<1x8x8x8xui8>
  %p2 = infc.pad %q2, %z {high = array<i64: 0, 0, 1, 1>, low = array<i64: 0, 0, 1, 1>, mode = "constant"} : (tensor<1x8x8x8xui8>, tensor<ui8>) -> tensor<1x8x10x10xui8>
  %c2 = infc.cast %p2 : tensor<1x8x10x10xui8> -> tensor<1x8x10x10xi32>
  %y2 = infc.conv %c2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x10x10xi32>, tensor<8x8x3x3xi32>) -> tensor<1x8x8x8xi32>
  %dq = infc.dequantize %y2, %ds {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x8x8x8xi32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  return %dq : tensor<1x8x8x8xf32>
}

// What stays: a grouped i32 convolution of bytes (no channels_last lowering) keeps NCHW,
// the transpose stopping before its widening cast (it moves bytes, not i32); a per-axis
// quantize moves with its axis permuted (1 -> 3); a blocked quantize (block_size 2) stays,
// behind the transpose.
// CHECK-LABEL: func.func @int8_what_stays
// CHECK: infc.conv %{{.*}} {channels_last, {{.*}}} : (tensor<1x4x4x4xi32>, tensor<4x4x1x1xi32>) -> tensor<1x4x4x4xi32>
// CHECK: %[[F:.*]] = infc.cast %{{.*}} : tensor<1x4x4x4xi32> -> tensor<1x4x4x4xf32>
// CHECK: %[[FT:.*]] = infc.transpose %[[F]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: %[[QA:.*]] = infc.quantize %[[F]], %{{.*}} {axis = 3 : i64, block_size = 0 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xui8>) -> tensor<1x4x4x4xui8>
// CHECK: %[[T:.*]] = infc.transpose %[[QA]] {perm = array<i64: 0, 3, 1, 2>} : (tensor<1x4x4x4xui8>) -> tensor<1x4x4x4xui8>
// CHECK: %[[W:.*]] = infc.cast %[[T]] : tensor<1x4x4x4xui8> -> tensor<1x4x4x4xi32>
// CHECK: infc.conv %[[W]], %{{.*}} {dilations = array<i64: 1, 1>, group = 4 : i64, {{.*}}} : (tensor<1x4x4x4xi32>, tensor<4x1x3x3xi32>)
// CHECK: infc.quantize %[[FT]], %{{.*}} {axis = 1 : i64, block_size = 2 : i64}
func.func @int8_what_stays(%x: tensor<1x4x4x4xui8>) -> (tensor<1x4x2x2xi32>, tensor<1x4x4x4xui8>) {
  %w = infc.constant dense<1> : tensor<4x4x1x1xi32>
  %dw = infc.constant dense<1> : tensor<4x1x3x3xi32>
  %sa = infc.constant dense<0.5> : tensor<4xf32>
  %za = infc.constant dense<1> : tensor<4xui8>
  %sb = infc.constant dense<0.5> : tensor<1x2x4x4xf32>
  %c = infc.cast %x : tensor<1x4x4x4xui8> -> tensor<1x4x4x4xi32>
  %y = infc.conv %c, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xi32>, tensor<4x4x1x1xi32>) -> tensor<1x4x4x4xi32>
  %f = infc.cast %y : tensor<1x4x4x4xi32> -> tensor<1x4x4x4xf32>
  %qa = infc.quantize %f, %sa, %za {axis = 1 : i64, block_size = 0 : i64} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xui8>) -> tensor<1x4x4x4xui8>
  %wa = infc.cast %qa : tensor<1x4x4x4xui8> -> tensor<1x4x4x4xi32>
  %d = infc.conv %wa, %dw {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x4x4xi32>, tensor<4x1x3x3xi32>) -> tensor<1x4x2x2xi32>
  %qb = infc.quantize %f, %sb {axis = 1 : i64, block_size = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<1x2x4x4xf32>) -> tensor<1x4x4x4xui8>
  return %d, %qb : tensor<1x4x2x2xi32>, tensor<1x4x4x4xui8>
}

// An i32 convolution of i32 values (not widened bytes) keeps NCHW: only byte inputs have
// a channels_last lowering.
// CHECK-LABEL: func.func @i32_conv
// CHECK-NOT: channels_last
// CHECK-NOT: infc.transpose
func.func @i32_conv(%q: tensor<1x4x8x8xi32>) -> tensor<1x4x8x8xi32> {
  %wi = infc.constant dense<1> : tensor<4x4x1x1xi32>
  %1 = infc.conv %q, %wi {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xi32>, tensor<4x4x1x1xi32>) -> tensor<1x4x8x8xi32>
  return %1 : tensor<1x4x8x8xi32>
}

// -----

// Transposes the pass did not write (attention's) stay where they are.
// CHECK-LABEL: func.func @foreign_transpose
// CHECK: %[[T:.*]] = infc.transpose %arg1 {perm = array<i64: 0, 2, 1, 3>}
// CHECK: infc.relu %[[T]]
func.func @foreign_transpose(%x: tensor<1x4x8x16xf32>, %y: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x8x4x16xf32>) {
  %w = infc.constant dense<0.1> : tensor<4x4x1x1xf32>
  %c = infc.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x4x8x16xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x8x16xf32>
  %0 = infc.transpose %y {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x4x8x16xf32>) -> tensor<1x8x4x16xf32>
  %1 = infc.relu %0 : tensor<1x8x4x16xf32>
  return %c, %1 : tensor<1x4x8x16xf32>, tensor<1x8x4x16xf32>
}

// -----

// An FPN: two feature maps, the coarse one upsampled by a nearest Resize (a gather of rows,
// then of columns: axes 2 and 3 of NCHW are 1 and 2 of NHWC), concatenated along the
// channels (axis 1 of NCHW, 3 of NHWC) and convolved: no transpose between the convs.
// CHECK-LABEL: func.func @fpn
// CHECK: %[[A:.*]] = infc.conv {{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NOT: infc.transpose
// CHECK: %[[B:.*]] = infc.conv {{.*}} -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = infc.gather %[[B]], %{{.*}} {axis = 1 : i64} : (tensor<1x4x4x4xf32>, tensor<8xi64>) -> tensor<1x8x4x4xf32>
// CHECK-NEXT: %[[RC:.*]] = infc.gather %[[R]], %{{.*}} {axis = 2 : i64} : (tensor<1x8x4x4xf32>, tensor<8xi64>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[CAT:.*]] = infc.concat %[[A]], %[[RC]] {axis = 3 : i64} : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[Y:.*]] = infc.conv %[[CAT]], {{.*}}channels_last{{.*}} -> tensor<1x8x8x2xf32>
// CHECK-NEXT: %[[OUT:.*]] = infc.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NEXT: return %[[OUT]]
func.func @fpn(%x: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = infc.constant dense<0.1> : tensor<4x1x3x3xf32>
  %w2 = infc.constant dense<0.2> : tensor<4x1x3x3xf32>
  %w3 = infc.constant dense<0.3> : tensor<2x8x1x1xf32>
  %up = infc.constant dense<[0, 0, 1, 1, 2, 2, 3, 3]> : tensor<8xi64>
  %0 = infc.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x8x8xf32>
  %1 = infc.conv %x, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x1x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x4x4xf32>
  %2 = infc.gather %1, %up {axis = 2 : i64} : (tensor<1x4x4x4xf32>, tensor<8xi64>) -> tensor<1x4x8x4xf32>
  %3 = infc.gather %2, %up {axis = 3 : i64} : (tensor<1x4x8x4xf32>, tensor<8xi64>) -> tensor<1x4x8x8xf32>
  %4 = infc.concat %0, %3 {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %5 = infc.conv %4, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %5 : tensor<1x2x8x8xf32>
}

// -----

// A C2f block's Split: slices along the channels (dim 1 of NCHW, 3 of NHWC, offsets, sizes
// and steps moved with it), one half convolved again, both concatenated: no transpose
// between the first conv and the last.
// CHECK-LABEL: func.func @split_channels
// CHECK: %[[A:.*]] = infc.conv {{.*}} -> tensor<1x8x8x8xf32>
// CHECK-NEXT: %[[LO:.*]] = infc.slice %[[A]] {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 8, 8, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[HI:.*]] = infc.slice %[[A]] {offsets = array<i64: 0, 0, 0, 4>, sizes = array<i64: 1, 8, 8, 4>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[B:.*]] = infc.conv %[[HI]], {{.*}}channels_last{{.*}} -> tensor<1x8x8x4xf32>
// CHECK-NEXT: %[[CAT:.*]] = infc.concat %[[LO]], %[[B]] {axis = 3 : i64}
// CHECK-NEXT: %[[Y:.*]] = infc.conv %[[CAT]], {{.*}}channels_last{{.*}} -> tensor<1x8x8x2xf32>
// CHECK-NEXT: infc.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
func.func @split_channels(%x: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %w1 = infc.constant dense<0.1> : tensor<8x1x3x3xf32>
  %w2 = infc.constant dense<0.2> : tensor<4x4x3x3xf32>
  %w3 = infc.constant dense<0.3> : tensor<2x8x1x1xf32>
  %0 = infc.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x1x8x8xf32>, tensor<8x1x3x3xf32>) -> tensor<1x8x8x8xf32>
  %1 = infc.slice %0 {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 4, 8, 8>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = infc.slice %0 {offsets = array<i64: 0, 4, 0, 0>, sizes = array<i64: 1, 4, 8, 8>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x8x8xf32>
  %3 = infc.conv %2, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x8xf32>
  %4 = infc.concat %1, %3 {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x8x8x8xf32>
  %5 = infc.conv %4, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<2x8x1x1xf32>) -> tensor<1x2x8x8xf32>
  return %5 : tensor<1x2x8x8xf32>
}
