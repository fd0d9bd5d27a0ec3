// RUN: infc-opt %s -canonicalize | FileCheck %s

// Regression (fixed): for an int64 Clip without `max` the importer clamps the bound to
// (double)INT64_MAX = 2^63, and ClipOp::fold converts it back with an out-of-range
// double -> int64 conversion (UB; INT64_MIN on x86): every element folds to INT64_MIN.

// CHECK-LABEL: func @clip_int64_unbounded_max
// CHECK: infc.constant dense<[0, 7]> : tensor<2xi64>
func.func @clip_int64_unbounded_max() -> tensor<2xi64> {
  %c = infc.constant dense<[-5, 7]> : tensor<2xi64>
  %0 = infc.clip %c {min = 0.0 : f64, max = 9.2233720368547758E+18 : f64} : tensor<2xi64>
  return %0 : tensor<2xi64>
}
