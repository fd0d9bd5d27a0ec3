// RUN: infc-opt %s -canonicalize -split-input-file | infc-opt -split-input-file | FileCheck %s

// Regression (fixed): a slice of a constant to the symbolic dim's size (`?`, the generic code
// of lib/Import/Onnx/Generalize.cpp: position ids, a causal mask) folded into
// `infc.constant dense<> : tensor<1x?xi64>`, an empty constant of a dynamic type that the
// parser rejects and the lowering reads past. Only the run knows the size: no fold. The
// same for a broadcast of a splat to a `?`.

// CHECK-LABEL: func @slice_of_a_constant_to_the_symbolic_dim
// CHECK: %[[C:.*]] = infc.constant dense<{{.*}}> : tensor<1x4xi64>
// CHECK: infc.slice %[[C]] {{.*}} : (tensor<1x4xi64>) -> tensor<1x?xi64>
func.func @slice_of_a_constant_to_the_symbolic_dim() -> tensor<1x?xi64> {
  %c = infc.constant dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
  %0 = infc.slice %c {offsets = array<i64: 0, 0>, sizes = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<1x4xi64>) -> tensor<1x?xi64>
  return %0 : tensor<1x?xi64>
}

// -----

// CHECK-LABEL: func @broadcast_of_a_splat_to_the_symbolic_dim
// CHECK: infc.broadcast %{{.*}} : tensor<1x1xf32> -> tensor<?x?xf32>
func.func @broadcast_of_a_splat_to_the_symbolic_dim() -> tensor<?x?xf32> {
  %c = infc.constant dense<1.0> : tensor<1x1xf32>
  %0 = infc.broadcast %c : tensor<1x1xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
