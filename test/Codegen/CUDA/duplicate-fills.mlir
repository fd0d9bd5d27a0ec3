// RUN: infc-opt %s -infc-duplicate-fills -split-input-file | FileCheck %s

// Two matmuls start from one (CSE-merged) fill: each gets its own empty tensor and fill
// right before it, so bufferization needs no copy and each fill can fold into its
// reduction.
// CHECK-LABEL: func.func @shared_fill
// CHECK-NOT: linalg.fill
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK: %[[M1:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F1]] : tensor<4x4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<4x4xf32>)
// CHECK: linalg.matmul ins(%[[M1]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[F2]] : tensor<4x4xf32>)
func.func @shared_fill(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%m1, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m2 : tensor<4x4xf32>
}

// -----

// A fill of an existing tensor (not tensor.empty) is left alone: repeating it would copy
// that tensor.
// CHECK-LABEL: func.func @fill_of_argument
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @fill_of_argument(%a: tensor<4x4xf32>, %init: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m1 = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m2 = linalg.matmul ins(%m1, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%f : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m1, %m2 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// One (CSE-merged) empty tensor is the init of a relu and of the bias add after the
// matmul that reads the relu: bufferized, the bias add would write the buffer the matmul
// reads, so the two could not share a kernel. The bias add gets its own empty tensor; the
// relu keeps the shared one.
// CHECK-LABEL: func.func @epilogue_own_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<4x4xf32>)
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[R]]
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: linalg.generic {{.*}} ins(%[[M]], %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>) outs(%[[E2]] : tensor<4x4xf32>)
#id = affine_map<(i, j) -> (i, j)>
func.func @epilogue_own_empty(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %c: tensor<4x4xf32>,
                              %bias: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %p = linalg.matmul ins(%r, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):
    %s = arith.addf %v, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// An epilogue whose shared empty tensor holds nothing the reduction reads keeps it (a
// buffer more would only pack less tightly).
// CHECK-LABEL: func.func @epilogue_keeps_empty
// CHECK-COUNT-1: tensor.empty
// CHECK-NOT: tensor.empty
#id2 = affine_map<(i, j) -> (i, j)>
func.func @epilogue_keeps_empty(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %c: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %p = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4x4xf32>
  %z = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %n = arith.negf %v : f32
    linalg.yield %n : f32
  } -> tensor<4x4xf32>
  return %y, %z : tensor<4x4xf32>, tensor<4x4xf32>
}
