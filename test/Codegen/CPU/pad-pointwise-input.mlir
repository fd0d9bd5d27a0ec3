// RUN: infc-opt %s -infc-pad-pointwise-input -split-input-file | FileCheck %s

// A 1x1 conv widening 4 to 24 channels over a 6x6 image (matmul [36, 4] x [4, 24]), a bias
// and relu6, then a zero pad of one pixel (for a depthwise conv): the input is padded
// instead ([1, 8, 8, 4]), the matmul and the epilogue run over its 64 pixels, and the
// border of their [1, 8, 8, 24] result is filled with the pad value: the rows above and
// below (whole width), then the columns left and right of the 6 interior rows.
// CHECK-LABEL: func.func @widening
// CHECK: %[[X:.*]] = tensor.pad %arg0 low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1, 2], [3]] : tensor<1x8x8x4xf32> into tensor<64x4xf32>
// CHECK: %[[C:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x24xf32>)
// CHECK: %[[P:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<64x4xf32>, tensor<4x24xf32>) outs(%[[C]] : tensor<64x24xf32>)
// CHECK: %[[E:.*]] = tensor.expand_shape %[[P]] {{\[}}[0, 1, 2], [3]] output_shape [1, 8, 8, 24]
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[E]], %arg1 : tensor<1x8x8x24xf32>, tensor<24xf32>)
// CHECK: arith.minimumf
// CHECK: -> tensor<1x8x8x24xf32>
// CHECK: %[[T:.*]] = linalg.fill ins(%[[ZERO:.*]] : f32) outs(%{{.*}} : tensor<1x1x8x24xf32>)
// CHECK: %[[Y1:.*]] = tensor.insert_slice %[[T]] into %[[Y]][0, 0, 0, 0] [1, 1, 8, 24] [1, 1, 1, 1]
// CHECK: %[[B:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x1x8x24xf32>)
// CHECK: %[[Y2:.*]] = tensor.insert_slice %[[B]] into %[[Y1]][0, 7, 0, 0] [1, 1, 8, 24] [1, 1, 1, 1]
// CHECK: %[[L:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x6x1x24xf32>)
// CHECK: %[[Y3:.*]] = tensor.insert_slice %[[L]] into %[[Y2]][0, 1, 0, 0] [1, 6, 1, 24] [1, 1, 1, 1]
// CHECK: %[[R:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x6x1x24xf32>)
// CHECK: %[[Y4:.*]] = tensor.insert_slice %[[R]] into %[[Y3]][0, 1, 7, 0] [1, 6, 1, 24] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[Y4]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @widening(%x: tensor<1x6x6x4xf32>, %bias: tensor<24xf32>) -> tensor<1x8x8x24xf32> {
  %w = arith.constant dense<0.5> : tensor<4x24xf32>
  %z = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %a = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x6x6x4xf32> into tensor<36x4xf32>
  %e = tensor.empty() : tensor<36x24xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<36x24xf32>) -> tensor<36x24xf32>
  %m = linalg.matmul ins(%a, %w : tensor<36x4xf32>, tensor<4x24xf32>) outs(%c : tensor<36x24xf32>) -> tensor<36x24xf32>
  %m4 = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 6, 6, 24] : tensor<36x24xf32> into tensor<1x6x6x24xf32>
  %o = tensor.empty() : tensor<1x6x6x24xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m4, %bias : tensor<1x6x6x24xf32>, tensor<24xf32>) outs(%o : tensor<1x6x6x24xf32>) {
  ^bb0(%v: f32, %b: f32, %out: f32):
    %0 = arith.addf %v, %b : f32
    %1 = arith.maximumf %0, %z : f32
    %2 = arith.minimumf %1, %six : f32
    linalg.yield %2 : f32
  } -> tensor<1x6x6x24xf32>
  %p = tensor.pad %y low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x6x6x24xf32> to tensor<1x8x8x24xf32>
  return %p : tensor<1x8x8x24xf32>
}

// -----

// Left alone: a 1x1 conv that narrows (24 to 4 channels: padding its input would copy
// more than padding its output), and an epilogue that also reads another image (a
// residual, which would need padding too).
// CHECK-LABEL: func.func @narrowing
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<36x24xf32>, tensor<24x4xf32>)
// CHECK: tensor.pad
// CHECK-LABEL: func.func @residual
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<36x4xf32>, tensor<4x24xf32>)
// CHECK: tensor.pad
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @narrowing(%x: tensor<1x6x6x24xf32>) -> tensor<1x8x8x4xf32> {
  %w = arith.constant dense<0.5> : tensor<24x4xf32>
  %z = arith.constant 0.0 : f32
  %a = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x6x6x24xf32> into tensor<36x24xf32>
  %e = tensor.empty() : tensor<36x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<36x4xf32>) -> tensor<36x4xf32>
  %m = linalg.matmul ins(%a, %w : tensor<36x24xf32>, tensor<24x4xf32>) outs(%c : tensor<36x4xf32>) -> tensor<36x4xf32>
  %m4 = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 6, 6, 4] : tensor<36x4xf32> into tensor<1x6x6x4xf32>
  %o = tensor.empty() : tensor<1x6x6x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m4 : tensor<1x6x6x4xf32>) outs(%o : tensor<1x6x6x4xf32>) {
  ^bb0(%v: f32, %out: f32):
    %0 = arith.maximumf %v, %z : f32
    linalg.yield %0 : f32
  } -> tensor<1x6x6x4xf32>
  %p = tensor.pad %y low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x6x6x4xf32> to tensor<1x8x8x4xf32>
  return %p : tensor<1x8x8x4xf32>
}
func.func @residual(%x: tensor<1x6x6x4xf32>, %r: tensor<1x6x6x24xf32>) -> tensor<1x8x8x24xf32> {
  %w = arith.constant dense<0.5> : tensor<4x24xf32>
  %z = arith.constant 0.0 : f32
  %a = tensor.collapse_shape %x [[0, 1, 2], [3]] : tensor<1x6x6x4xf32> into tensor<36x4xf32>
  %e = tensor.empty() : tensor<36x24xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<36x24xf32>) -> tensor<36x24xf32>
  %m = linalg.matmul ins(%a, %w : tensor<36x4xf32>, tensor<4x24xf32>) outs(%c : tensor<36x24xf32>) -> tensor<36x24xf32>
  %m4 = tensor.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 6, 6, 24] : tensor<36x24xf32> into tensor<1x6x6x24xf32>
  %o = tensor.empty() : tensor<1x6x6x24xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m4, %r : tensor<1x6x6x24xf32>, tensor<1x6x6x24xf32>) outs(%o : tensor<1x6x6x24xf32>) {
  ^bb0(%v: f32, %s: f32, %out: f32):
    %0 = arith.addf %v, %s : f32
    linalg.yield %0 : f32
  } -> tensor<1x6x6x24xf32>
  %p = tensor.pad %y low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x6x6x24xf32> to tensor<1x8x8x24xf32>
  return %p : tensor<1x8x8x24xf32>
}
