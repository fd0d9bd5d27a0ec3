// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Symbolic (`?`) dims through the lowering (docs/dynamic-shapes.md step d): every tensor.empty
// takes the `?` sizes from an operand (tensor.dim), a rank-2 matmul collapses a dynamic batch
// into its rows, reductions keep the `?` dims they do not reduce. What the lowering cannot do
// on `?` yet fails to legalize, never half-lowers.

// CHECK-LABEL: func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>) -> tensor<?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[ACC:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} outs(%[[ACC]] : tensor<?x8xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[X]], %{{.*}} : tensor<?x16xf32>, tensor<16x8xf32>) outs(%[[Z]] : tensor<?x8xf32>)
// CHECK: %[[N2:.*]] = tensor.dim %[[MM]], %c0
// CHECK: tensor.empty(%[[N2]]) : tensor<?x8xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]], %{{.*}} : tensor<?x8xf32>, tensor<8xf32>)
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
// CHECK: linalg.matmul
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

func.func @mean_over_a_dynamic_dim(%x: tensor<?x10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{failed to legalize operation 'infc.reduce_mean'}}
  %0 = infc.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : (tensor<?x10xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
