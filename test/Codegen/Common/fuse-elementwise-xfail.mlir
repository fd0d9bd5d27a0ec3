// XFAIL: *
// RUN: infc-opt %s -infc-fuse-elementwise | FileCheck %s

// BUG: the pass adds the reshape-by-expansion patterns to let a reshape move out from between
// two elementwise ops, but it gives them the same control function as the fusion patterns,
// which asks that producer and consumer both be all-parallel linalg ops. For these patterns
// one side is always the tensor.expand_shape / collapse_shape, so they never apply, and a
// reshape between two elementwise generics keeps them apart. The control of the reshape
// patterns should look through the reshape to the linalg op on its other side (and still
// refuse contractions, so a matmul stays a named linalg.matmul).

// CHECK-LABEL: func.func @reshape_between
// CHECK: linalg.generic
// CHECK: arith.negf
// CHECK-NEXT: math.exp
// CHECK-NOT: linalg.generic
// CHECK: return
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @reshape_between(%x: tensor<2x16xf32>) -> tensor<1x2x4x4xf32> {
  %e = tensor.empty() : tensor<2x16xf32>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x16xf32>) outs(%e : tensor<2x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<2x16xf32>
  %r = tensor.expand_shape %0 [[0, 1], [2, 3]] output_shape [1, 2, 4, 4] : tensor<2x16xf32> into tensor<1x2x4x4xf32>
  %e1 = tensor.empty() : tensor<1x2x4x4xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x2x4x4xf32>) outs(%e1 : tensor<1x2x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %y = math.exp %a : f32
    linalg.yield %y : f32
  } -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}
