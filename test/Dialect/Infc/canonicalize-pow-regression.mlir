// RUN: infc-opt %s -canonicalize | FileCheck %s

// Regression (fixed): PowOp::fold on integers stops multiplying after 64 factors (`k < y && k < 64`), so an
// exponent above 64 folds to x^64: (-1)^65 becomes 1 instead of -1.

// CHECK-LABEL: func @pow_large_exponent
// CHECK: infc.constant dense<[-1, 1]> : tensor<2xi64>
func.func @pow_large_exponent() -> tensor<2xi64> {
  %a = infc.constant dense<-1> : tensor<2xi64>
  %e = infc.constant dense<[65, 100]> : tensor<2xi64>
  %0 = infc.pow %a, %e : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}
