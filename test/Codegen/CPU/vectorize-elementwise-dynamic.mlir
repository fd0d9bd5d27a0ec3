// RUN: infc-opt %s -infc-vectorize-elementwise -split-input-file | FileCheck %s

// The generic code of `infc compile --dim`: an op whose symbolic dim is an outer parallel
// loop is tiled by one along it (a loop to the run-time size, marked for the threads) and
// vectorized on its static inner tiles; a symbolic innermost dim (attention's scores over
// the sequence) is vectorized in whole vectors up to the last multiple of the lanes, the
// edge left scalar; a reduction over it (a softmax's max and sum) accumulates whole vectors
// in registers up to that multiple, merges them into the row's result, and the edge's
// scalar reduction continues from there.

// CHECK-LABEL: func.func @bias_relu
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: scf.for %{{.*}} = %c0 to %[[N]] step %c1 iter_args
// CHECK: vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
// CHECK: arith.maximumf {{.*}} : vector<1x8xf32>
// CHECK: } {infc.parallel}
// CHECK-NOT: linalg.generic
func.func @bias_relu(%x: tensor<?x32xf32>, %b: tensor<32xf32>, %out: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x32xf32>, tensor<32xf32>) outs(%out : tensor<?x32xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: func.func @dynamic_inner
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1
// CHECK: scf.for
// CHECK: %[[WHOLE:.*]] = affine.apply #{{.*}}()[%[[N]]]
// CHECK: scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
// CHECK: arith.negf {{.*}} : vector<1x8xf32>
// CHECK: scf.for %{{.*}} = %[[WHOLE]] to %[[N]] step %c8
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x?xf32>)
func.func @dynamic_inner(%x: tensor<4x?xf32>, %out: tensor<4x?xf32>) -> tensor<4x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x?xf32>) outs(%out : tensor<4x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4x?xf32>
  return %r : tensor<4x?xf32>
}

// -----

// CHECK-DAG: #[[$ROUND:.*]] = affine_map<()[s0] -> ((s0 floordiv 8) * 8)>
// CHECK-LABEL: func.func @reduction_over_dynamic_inner
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1
// CHECK: scf.for %{{.*}} = %c0 to %c4
// CHECK: %[[WHOLE:.*]] = affine.apply #[[$ROUND]]()[%[[N]]]
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c8 iter_args(%[[A:.*]] = %{{.*}}) -> (vector<1x8xf32>)
// CHECK: vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
// CHECK: arith.maximumf %{{.*}}, %[[A]] : vector<1x8xf32>
// CHECK: %[[MERGED:.*]] = vector.multi_reduction <maximumf>, %[[ACC]]
// CHECK: %[[ROW:.*]] = vector.transfer_write %[[MERGED]]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<1x?xf32>) outs(%[[ROW]] : tensor<1xf32>)
// CHECK: } {infc.parallel}
func.func @reduction_over_dynamic_inner(%x: tensor<4x?xf32>, %out: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x?xf32>) outs(%out : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.maximumf %a, %o : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
