// RUN: infc-opt %s -infc-pack-matmul-panels -split-input-file | FileCheck %s

// The generic code's matmuls (convert-infc-to-linalg's rowBlockedMatmul): a static matmul in
// a loop marked infc.row_blocks over a run-time row count, whose B is a constant, is packed
// into panels at compile time like a top-level one (the loop reads the packed constant); a
// matmul in another loop is left alone, as is one whose last panel would be padded (its
// product would go through a scratch tile in every iteration).

// CHECK-LABEL: func.func @row_blocks
// CHECK: scf.for
// CHECK-NOT: tensor<8x32xf32>) outs
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x16xf32>)
// CHECK: } {infc.row_blocks}
func.func @row_blocks(%a: tensor<?x8xf32>, %c: tensor<?x32xf32>, %n: index) -> tensor<?x32xf32> {
  %w = arith.constant dense<0.5> : tensor<8x32xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %n step %c4 iter_args(%acc = %c) -> (tensor<?x32xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
    %ci = tensor.extract_slice %acc[%i, 0] [4, 32] [1, 1] : tensor<?x32xf32> to tensor<4x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%ci : tensor<4x32xf32>) -> tensor<4x32xf32>
    %p = linalg.matmul ins(%ai, %w : tensor<4x8xf32>, tensor<8x32xf32>) outs(%f : tensor<4x32xf32>) -> tensor<4x32xf32>
    %u = tensor.insert_slice %p into %acc[%i, 0] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<?x32xf32>
    scf.yield %u : tensor<?x32xf32>
  } {infc.row_blocks}
  return %r : tensor<?x32xf32>
}

// -----

// CHECK-LABEL: func.func @other_loop
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x32xf32>)
// CHECK-LABEL: func.func @padded_tail
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x10xf32>)
func.func @other_loop(%a: tensor<?x8xf32>, %c: tensor<?x32xf32>, %n: index) -> tensor<?x32xf32> {
  %w = arith.constant dense<0.5> : tensor<8x32xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %n step %c4 iter_args(%acc = %c) -> (tensor<?x32xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
    %ci = tensor.extract_slice %acc[%i, 0] [4, 32] [1, 1] : tensor<?x32xf32> to tensor<4x32xf32>
    %f = linalg.fill ins(%zero : f32) outs(%ci : tensor<4x32xf32>) -> tensor<4x32xf32>
    %p = linalg.matmul ins(%ai, %w : tensor<4x8xf32>, tensor<8x32xf32>) outs(%f : tensor<4x32xf32>) -> tensor<4x32xf32>
    %u = tensor.insert_slice %p into %acc[%i, 0] [4, 32] [1, 1] : tensor<4x32xf32> into tensor<?x32xf32>
    scf.yield %u : tensor<?x32xf32>
  }
  return %r : tensor<?x32xf32>
}

func.func @padded_tail(%a: tensor<?x8xf32>, %c: tensor<?x10xf32>, %n: index) -> tensor<?x10xf32> {
  %w = arith.constant dense<0.5> : tensor<8x10xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %n step %c4 iter_args(%acc = %c) -> (tensor<?x10xf32>) {
    %ai = tensor.extract_slice %a[%i, 0] [4, 8] [1, 1] : tensor<?x8xf32> to tensor<4x8xf32>
    %ci = tensor.extract_slice %acc[%i, 0] [4, 10] [1, 1] : tensor<?x10xf32> to tensor<4x10xf32>
    %f = linalg.fill ins(%zero : f32) outs(%ci : tensor<4x10xf32>) -> tensor<4x10xf32>
    %p = linalg.matmul ins(%ai, %w : tensor<4x8xf32>, tensor<8x10xf32>) outs(%f : tensor<4x10xf32>) -> tensor<4x10xf32>
    %u = tensor.insert_slice %p into %acc[%i, 0] [4, 10] [1, 1] : tensor<4x10xf32> into tensor<?x10xf32>
    scf.yield %u : tensor<?x10xf32>
  } {infc.row_blocks}
  return %r : tensor<?x10xf32>
}
