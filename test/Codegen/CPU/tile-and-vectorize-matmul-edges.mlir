// RUN: infc-opt %s -infc-tile-and-vectorize-matmul | FileCheck %s

// Regression (fixed): the pass peels the N loop and then the M loop it tiled, but peeling N clones the M
// loop into the N edge, and that clone is never peeled. When both M and N leave a remainder
// (here M = 64 = 10 x 6 + 4 and N = 49 = 3 x 16 + 1), every tile of the N edge strip is
// `affine.min`-sized, stays a dynamic linalg.matmul, and is neither vectorized nor marked
// infc.parallel; it becomes scalar loops. The same happens to a whole matmul whose N is
// narrower than nr (30x8 at vector-bits=512). The pass description promises static edge
// tiles. A likely fix (untested): peel the M loop before the N loop, so that the N edge
// clones an already peeled M loop.

// CHECK-LABEL: func.func @mm_64x49x96
// CHECK-NOT: affine.min
// CHECK-NOT: linalg.matmul
// CHECK: vector.contract {{.*}} into vector<4x1xf32>
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @mm_64x49x96(%a: tensor<64x96xf32>, %b: tensor<96x49xf32>, %c: tensor<64x49xf32>) -> tensor<64x49xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x49xf32>) outs(%c : tensor<64x49xf32>) -> tensor<64x49xf32>
  return %0 : tensor<64x49xf32>
}
