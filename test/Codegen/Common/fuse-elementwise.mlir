// RUN: infc-opt %s -infc-fuse-elementwise | FileCheck %s

// Elementwise fusion only between ops whose loops are all parallel (plus the reshape
// propagation that enables it). Contractions and reductions are never fused with, in either
// direction, so a linalg.matmul stays a named linalg.matmul for the matmul code generation.

// A bias add and a relu become one generic.
// CHECK-LABEL: func.func @bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: %[[S:.*]] = arith.addf
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[S]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @bias_relu(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// The convolution shape: matmul [F, OH*OW], expand_shape to NCHW, bias + relu. Upstream's
// linalg-fuse-elementwise-ops propagates the expand_shape into the matmul and turns it into
// a 5-d generic contraction; here the matmul and the reshape stay, and only the two
// elementwise generics fuse.
// CHECK-LABEL: func.func @matmul_reshape_bias_relu
// CHECK: %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x9xf32>, tensor<9x16xf32>) outs(%{{.*}} : tensor<2x16xf32>) -> tensor<2x16xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2, 3]] output_shape [1, 2, 4, 4]
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[E]], %{{.*}} : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[R]]
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias4 = affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>
func.func @matmul_reshape_bias_relu(%w: tensor<2x9xf32>, %col: tensor<9x16xf32>, %acc: tensor<2x16xf32>,
                                    %b: tensor<2x1x1xf32>) -> tensor<1x2x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %m = linalg.matmul ins(%w, %col : tensor<2x9xf32>, tensor<9x16xf32>) outs(%acc : tensor<2x16xf32>) -> tensor<2x16xf32>
  %r = tensor.expand_shape %m [[0, 1], [2, 3]] output_shape [1, 2, 4, 4] : tensor<2x16xf32> into tensor<1x2x4x4xf32>
  %e0 = tensor.empty() : tensor<1x2x4x4xf32>
  %0 = linalg.generic {indexing_maps = [#id4, #bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r, %b : tensor<1x2x4x4xf32>, tensor<2x1x1xf32>) outs(%e0 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x2x4x4xf32>
  %e1 = tensor.empty() : tensor<1x2x4x4xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<1x2x4x4xf32>) outs(%e1 : tensor<1x2x4x4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.maximumf %x, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// A generic consumer of a matmul (bias add) is not fused into it, and an elementwise
// producer of a matmul operand is not fused into the matmul.
// CHECK-LABEL: func.func @matmul_neighbours
// CHECK: %[[NEG:.*]] = linalg.generic
// CHECK: arith.negf
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[NEG]], %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<4x8xf32>, tensor<8xf32>)
// CHECK: arith.addf
// CHECK: return %[[R]]
func.func @matmul_neighbours(%a: tensor<4x16xf32>, %w: tensor<16x8xf32>, %acc: tensor<4x8xf32>,
                             %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = arith.negf %x : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %m = linalg.matmul ins(%n, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e1 : tensor<4x8xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A reduction consumer is not all-parallel either: exp and the row sum stay two generics
// (upstream fuses them).
// CHECK-LABEL: func.func @into_reduction
// CHECK: %[[EXP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[EXP]] : tensor<4x16xf32>)
// CHECK-NOT: math.exp
// CHECK: return %[[SUM]]
#red = affine_map<(d0, d1) -> (d0)>
func.func @into_reduction(%a: tensor<4x16xf32>, %acc: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4x16xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<4x16xf32>
  %1 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%0 : tensor<4x16xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// A value with two users stays materialized: fusing its producer into each consumer would
// recompute the producer (here an exp) once per consumer.
// CHECK-LABEL: func.func @multi_use_producer
// CHECK: %[[E:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.negf
// CHECK: linalg.generic {{.*}} ins(%[[E]] : tensor<4x8xf32>)
// CHECK-NOT: math.exp
// CHECK: arith.mulf
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @multi_use_producer(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = math.exp %a : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x8xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  return %1, %2 : tensor<4x8xf32>, tensor<4x8xf32>
}
