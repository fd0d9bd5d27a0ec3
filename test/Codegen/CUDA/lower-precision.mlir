// RUN: infc-opt %s -infc-lower-precision -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-lower-precision=precision=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: not infc-opt %s -infc-lower-precision=precision=fp8 2>&1 | FileCheck %s --check-prefix=BAD

// fp16: the constant weight is converted at compile time, the activation by an elementwise
// truncation before the op; the matmul takes halves and widens them in its payload, so the
// products and the sum stay f32 (the result type is unchanged).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[XH:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x3xf32>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<3x4xf16>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XH]], %[[W]] : tensor<2x3xf16>, tensor<3x4xf16>) outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-DAG: %[[AW:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-DAG: %[[BW:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[P:.*]] = arith.mulf %[[AW]], %[[BW]] : f32
// CHECK: arith.addf %[[ACC]], %[[P]] : f32
// CHECK: -> tensor<2x4xf32>
// BF16-LABEL: func.func @matmul
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: arith.constant dense<{{.*}}> : tensor<3x4xbf16>
// BAD: for the --precision option: Cannot find option named 'fp8'
func.func @matmul(%x: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = arith.constant dense<0.5> : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%acc : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// -----

// Elementwise ops and non-f32 contractions are left alone.
// CHECK-LABEL: func.func @others
// CHECK-NOT: f16
func.func @others(%x: tensor<4xf32>, %a: tensor<2x3xi32>, %b: tensor<3x2xi32>, %c: tensor<2x2xi32>) -> (tensor<4xf32>, tensor<2x2xi32>) {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %z = linalg.matmul ins(%a, %b : tensor<2x3xi32>, tensor<3x2xi32>) outs(%c : tensor<2x2xi32>) -> tensor<2x2xi32>
  return %y, %z : tensor<4xf32>, tensor<2x2xi32>
}
