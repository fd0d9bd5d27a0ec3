// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Symbolic (`?`) dims through the lowering (docs/dynamic-shapes.md step d): every tensor.empty
// takes the `?` sizes from an operand (tensor.dim), a rank-2 matmul collapses a dynamic batch
// into its rows and runs them as static matmuls of 16 rows and of one (the codegen's
// register-tiled kernels), reductions keep the `?` dims they do not reduce. What the lowering cannot do
// on `?` yet fails to legalize, never half-lowers.

// CHECK-LABEL: func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>) -> tensor<?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[ACC:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// The rows in static blocks of 16, then of 4, then one by one: static matmuls into slices of
// the result.
// CHECK: %[[ROWS:.*]] = tensor.dim %[[X]]
// CHECK: %[[FULL:.*]] = arith.addi
// CHECK: %[[BLOCKS:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[FULL]] step %{{.*}} iter_args(%[[C:.*]] = %[[ACC]])
// CHECK: %[[A:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [16, 16] [1, 1] : tensor<?x16xf32> to tensor<16x16xf32>
// CHECK: %[[CS:.*]] = tensor.extract_slice %[[C]][%[[I]], 0] [16, 8] [1, 1]
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} outs(%[[CS]] : tensor<16x8xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<16x16xf32>, tensor<16x8xf32>) outs(%[[Z]] : tensor<16x8xf32>)
// CHECK: tensor.insert_slice %[[MM]] into %[[C]][%[[I]], 0] [16, 8] [1, 1]
// CHECK: %[[FULL4:.*]] = arith.addi %[[FULL]]
// CHECK: %[[FOURS:.*]] = scf.for %{{.*}} = %[[FULL]] to %[[FULL4]] step %{{.*}} iter_args(%{{.*}} = %[[BLOCKS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>)
// CHECK: %[[ALL:.*]] = scf.for %{{.*}} = %[[FULL4]] to %[[ROWS]] step %{{.*}} iter_args(%{{.*}} = %[[FOURS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x16xf32>, tensor<16x8xf32>)
// CHECK: %[[N2:.*]] = tensor.dim %[[ALL]], %c0
// CHECK: tensor.empty(%[[N2]]) : tensor<?x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[ALL]], %{{.*}} : tensor<?x8xf32>, tensor<8xf32>)
func.func @mlp(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {
  %w = infc.constant dense<0.5> : tensor<16x8xf32>
  %b = infc.constant dense<0.25> : tensor<8xf32>
  %0 = infc.matmul %x, %w : (tensor<?x16xf32>, tensor<16x8xf32>) -> tensor<?x8xf32>
  %1 = infc.add %0, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %2 = infc.relu %1 : tensor<?x8xf32>
  return %2 : tensor<?x8xf32>
}

// -----

// A batch of rows of any rank collapses into the matmul's M and expands back.
// CHECK-LABEL: func @matmul_rank3
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<?x4x16xf32> into tensor<?x16xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x8xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%{{.*}}, 4, 8] : tensor<?x8xf32> into tensor<?x4x8xf32>
func.func @matmul_rank3(%x: tensor<?x4x16xf32>) -> tensor<?x4x8xf32> {
  %w = infc.constant dense<0.5> : tensor<16x8xf32>
  %0 = infc.matmul %x, %w : (tensor<?x4x16xf32>, tensor<16x8xf32>) -> tensor<?x4x8xf32>
  return %0 : tensor<?x4x8xf32>
}

// -----

// Softmax over a static axis of a `?`-row tensor: the row max and sum keep the `?` dim.
// CHECK-LABEL: func @softmax
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [%{{.*}}, 1] : tensor<?xf32> into tensor<?x1xf32>
// CHECK: math.exp
// CHECK: arith.divf
// CHECK-NOT: infc.softmax
func.func @softmax(%x: tensor<?x10xf32>) -> tensor<?x10xf32> {
  %0 = infc.softmax %x {axis = 1 : i64} : tensor<?x10xf32>
  return %0 : tensor<?x10xf32>
}

// -----

// A transpose's `?` takes the size of the input dim it comes from.
// CHECK-LABEL: func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<?x3xf32>) outs(%[[E]] : tensor<3x?xf32>) permutation = [1, 0]
func.func @transpose(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %0 = infc.transpose %x {perm = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

func.func @mean_over_a_dynamic_dim(%x: tensor<?x10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{failed to legalize operation 'infc.reduce_mean'}}
  %0 = infc.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : (tensor<?x10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
