// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file -verify-diagnostics | FileCheck %s

// Symbolic (`?`) dims through the lowering (docs/dynamic-shapes.md step d): every tensor.empty
// takes the `?` sizes from an operand (tensor.dim), a rank-2 matmul collapses a dynamic batch
// into its rows and runs them as static matmuls of 24, 16, 8, 4, 2 rows and of one (the
// codegen's register-tiled kernels), reductions keep the `?` dims they do not reduce. What the
// lowering cannot do on `?` yet fails to legalize, never half-lowers.

// CHECK-LABEL: func @mlp
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>) -> tensor<?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[ACC:.*]] = tensor.empty(%[[N]]) : tensor<?x8xf32>
// The rows in whole blocks of the largest size H <= rows (24 once there are 24), up to R; the
// rest in one block of the smallest size >= rows - R, over the last rows (min(i, rows - size)).
// CHECK: %[[ROWS:.*]] = tensor.dim %[[X]]
// CHECK: %[[HEAD:.*]] = arith.select %{{.*}}, %c24{{.*}}, %{{.*}} : index
// CHECK: %[[R:.*]] = arith.muli %{{.*}}, %[[HEAD]]
// CHECK: %[[REST:.*]] = arith.subi %[[ROWS]], %[[R]]
// CHECK: %[[TAIL:.*]] = arith.select %{{.*}}, %c0{{.*}}, %{{.*}} : index
// CHECK: %[[IS_HEAD:.*]] = arith.cmpi eq, %[[HEAD]], %[[C24:.*]] : index
// CHECK: %[[IS_TAIL:.*]] = arith.cmpi eq, %[[TAIL]], %[[C24]] : index
// CHECK: %[[LO:.*]] = arith.select %[[IS_HEAD]], %c0{{.*}}, %[[R]]
// CHECK: %[[NOT_TAIL:.*]] = arith.select %[[IS_HEAD]], %[[R]], %[[LO]]
// CHECK: %[[HI:.*]] = arith.select %[[IS_TAIL]], %[[ROWS]], %[[NOT_TAIL]]
// CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %[[C24]]
// CHECK: %[[BLOCKS:.*]] = scf.for %[[I:.*]] = %[[LO]] to %[[HI]] step %[[C24]] iter_args(%[[C:.*]] = %[[ACC]])
// CHECK: %[[AT:.*]] = arith.minsi %[[I]], %[[LAST]]
// CHECK: %[[A:.*]] = tensor.extract_slice %[[X]][%[[AT]], 0] [24, 16] [1, 1] : tensor<?x16xf32> to tensor<24x16xf32>
// CHECK: %[[CS:.*]] = tensor.extract_slice %[[C]][%[[AT]], 0] [24, 8] [1, 1]
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} outs(%[[CS]] : tensor<24x8xf32>)
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %{{.*}} : tensor<24x16xf32>, tensor<16x8xf32>) outs(%[[Z]] : tensor<24x8xf32>)
// CHECK: tensor.insert_slice %[[MM]] into %[[C]][%[[AT]], 0] [24, 8] [1, 1]
// CHECK: } {infc.row_blocks}
// CHECK: %[[SIXTEENS:.*]] = scf.for %{{.*}} step %c16{{(_[0-9]+)?}} iter_args(%{{.*}} = %[[BLOCKS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x16xf32>, tensor<16x8xf32>)
// CHECK: %[[EIGHTS:.*]] = scf.for %{{.*}} step %c8{{(_[0-9]+)?}} iter_args(%{{.*}} = %[[SIXTEENS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xf32>, tensor<16x8xf32>)
// CHECK: %[[FOURS:.*]] = scf.for %{{.*}} step %c4{{(_[0-9]+)?}} iter_args(%{{.*}} = %[[EIGHTS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16x8xf32>)
// CHECK: %[[TWOS:.*]] = scf.for %{{.*}} step %c2{{(_[0-9]+)?}} iter_args(%{{.*}} = %[[FOURS]])
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<16x8xf32>)
// CHECK: %[[ALL:.*]] = scf.for %{{.*}} step %c1{{(_[0-9]+)?}} iter_args(%{{.*}} = %[[TWOS]])
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

// -----

// Generic code from imports at several sizes (lib/Import/Onnx/Generalize.cpp): a slice of a
// constant's first entries along the symbolic dim (position ids) reads its size from the
// entry's argument with a `?`, the only symbolic dim there is.
// CHECK-LABEL: func @slice_to_the_symbolic_dim
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x?xi64>)
// CHECK: %[[C:.*]] = arith.constant dense<{{.*}}> : tensor<1x8xi64>
// CHECK: %[[S:.*]] = tensor.dim %[[IDS]], %c1
// CHECK: tensor.extract_slice %[[C]][0, 0] [1, %[[S]]] [1, 1] : tensor<1x8xi64> to tensor<1x?xi64>
func.func @slice_to_the_symbolic_dim(%ids: tensor<1x?xi64>) -> tensor<1x?xi64> {
  %c = infc.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7]]> : tensor<1x8xi64>
  %0 = infc.slice %c {offsets = array<i64: 0, 0>, sizes = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<1x8xi64>) -> tensor<1x?xi64>
  %1 = infc.add %0, %ids : (tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<1x?xi64>
  return %1 : tensor<1x?xi64>
}

// -----

// A broadcast to the symbolic dim where the input has 1 (a mask [1, 1, 1, seq] to
// [1, 1, seq, seq]) sizes both `?`s from it.
// CHECK-LABEL: func @broadcast_to_the_symbolic_dim
// CHECK-SAME: (%[[M:.*]]: tensor<1x1x1x?xf32>)
// CHECK: %[[S:.*]] = tensor.dim %[[M]], %c3
// CHECK: %[[S2:.*]] = tensor.dim %[[M]], %c3
// CHECK: tensor.empty(%[[S]], %[[S2]]) : tensor<1x1x?x?xf32>
func.func @broadcast_to_the_symbolic_dim(%m: tensor<1x1x1x?xf32>) -> tensor<1x1x?x?xf32> {
  %0 = infc.broadcast %m : tensor<1x1x1x?xf32> -> tensor<1x1x?x?xf32>
  return %0 : tensor<1x1x?x?xf32>
}

// -----

// Embeddings: a gather at `?` indices, and one along a `?` axis (a pooler's first token),
// whose index is clamped to the run's size.
// CHECK-LABEL: func @gathers
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32>, %[[IDS:.*]]: tensor<1x?xi64>, %[[H:.*]]: tensor<1x?x4xf32>, %[[I:.*]]: tensor<i64>)
// CHECK: %[[S:.*]] = tensor.dim %[[IDS]], %c1
// CHECK: tensor.empty(%[[S]]) : tensor<1x?x4xf32>
// CHECK: tensor.empty() : tensor<1x4xf32>
// CHECK: linalg.generic
// CHECK: %[[N:.*]] = tensor.dim %[[H]], %c1
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK: arith.minsi %{{.*}}, %[[LAST]]
func.func @gathers(%t: tensor<10x4xf32>, %ids: tensor<1x?xi64>, %h: tensor<1x?x4xf32>, %i: tensor<i64>) -> (tensor<1x?x4xf32>, tensor<1x4xf32>) {
  %0 = infc.gather %t, %ids {axis = 0 : i64} : (tensor<10x4xf32>, tensor<1x?xi64>) -> tensor<1x?x4xf32>
  %1 = infc.gather %h, %i {axis = 1 : i64} : (tensor<1x?x4xf32>, tensor<i64>) -> tensor<1x4xf32>
  return %0, %1 : tensor<1x?x4xf32>, tensor<1x4xf32>
}

// -----

// Attention over a symbolic sequence: heads split by an expand and merged by a collapse;
// scores [heads, seq, seq] as static matmuls on blocks of each head's matrices (rows by 24,
// 4, 1; columns by 64, 8, 1; the static depth whole), which the codegen register-tiles;
// the heads' loop is the threads'.
// CHECK-LABEL: func @attention_scores
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x?x8xf32>, %[[K:.*]]: tensor<1x2x8x?xf32>, %[[H:.*]]: tensor<1x?x16xf32>)
// CHECK: %[[QB:.*]] = tensor.collapse_shape %[[Q]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x?x8xf32> into tensor<2x?x8xf32>
// CHECK: %[[KB:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1], [2], [3]] : tensor<1x2x8x?xf32> into tensor<2x8x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<2x?x?xf32>
// CHECK: %[[ALL:.*]] = scf.for %[[HEAD:.*]] = %{{.*}} to %c2{{.*}} step %c1{{.*}} iter_args(%{{.*}} = %[[E]])
// CHECK: scf.for %[[I:.*]] = %{{.*}} step %c24
// CHECK: scf.for %[[J:.*]] = %{{.*}} step %c64
// CHECK: %[[T:.*]] = tensor.extract_slice %{{.*}}[%[[HEAD]], %[[I]], %[[J]]] [1, 24, 64] [1, 1, 1] : tensor<2x?x?xf32> to tensor<24x64xf32>
// CHECK: %[[Z:.*]] = linalg.fill {{.*}} outs(%[[T]] : tensor<24x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<24x8xf32>, tensor<8x64xf32>) outs(%{{.*}} : tensor<24x64xf32>)
// CHECK: tensor.insert_slice %{{.*}}[%[[HEAD]], %[[I]], %[[J]]] [1, 24, 64] [1, 1, 1] : tensor<24x64xf32> into tensor<2x?x?xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<24x8xf32>, tensor<8x8xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<24x8xf32>, tensor<8x1xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x1xf32>)
// CHECK-NOT: linalg.batch_matmul
// CHECK: } {infc.parallel}
// CHECK: tensor.expand_shape %[[ALL]] {{\[\[}}0, 1], [2], [3]] {{.*}} : tensor<2x?x?xf32> into tensor<1x2x?x?xf32>
// CHECK: tensor.expand_shape %[[H]] {{\[\[}}0], [1], [2, 3]] {{.*}} : tensor<1x?x16xf32> into tensor<1x?x2x8xf32>
func.func @attention_scores(%q: tensor<1x2x?x8xf32>, %k: tensor<1x2x8x?xf32>, %h: tensor<1x?x16xf32>) -> (tensor<1x2x?x?xf32>, tensor<1x?x2x8xf32>) {
  %0 = infc.matmul %q, %k : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
  %1 = infc.reshape %h : tensor<1x?x16xf32> -> tensor<1x?x2x8xf32>
  return %0, %1 : tensor<1x2x?x?xf32>, tensor<1x?x2x8xf32>
}

// -----

func.func @reshape_moving_the_symbolic_dim(%x: tensor<1x?xf32>) -> tensor<?x1xf32> {
  // expected-error @+1 {{failed to legalize operation 'infc.reshape'}}
  %0 = infc.reshape %x : tensor<1x?xf32> -> tensor<?x1xf32>
  return %0 : tensor<?x1xf32>
}

// -----

// Along a static axis, the `?` outside it sized from the first input.
// CHECK-LABEL: func @concat_beside_the_symbolic_dim
// CHECK-SAME: (%[[A:.*]]: tensor<1x?x4xf32>, %[[B:.*]]: tensor<1x?x2xf32>)
// CHECK: %[[N:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<1x?x6xf32>
// CHECK: %[[NA:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[I:.*]] = tensor.insert_slice %[[A]] into %[[E]][0, 0, 0] [1, %[[NA]], 4] [1, 1, 1]
// CHECK: %[[NB:.*]] = tensor.dim %[[B]], %c1
// CHECK: tensor.insert_slice %[[B]] into %[[I]][0, 0, 4] [1, %[[NB]], 2] [1, 1, 1]
func.func @concat_beside_the_symbolic_dim(%a: tensor<1x?x4xf32>, %b: tensor<1x?x2xf32>) -> tensor<1x?x6xf32> {
  %0 = infc.concat %a, %b {axis = 2 : i64} : (tensor<1x?x4xf32>, tensor<1x?x2xf32>) -> tensor<1x?x6xf32>
  return %0 : tensor<1x?x6xf32>
}

// -----

func.func @concat_along_the_symbolic_dim(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // expected-error @+1 {{failed to legalize operation 'infc.concat'}}
  %0 = infc.concat %a, %a {axis = 0 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
