// RUN: infc-opt %s -convert-infc-to-linalg | FileCheck %s

// Regression (fixed): the clip lowering builds its integer bounds with lowering::scalar(), a double -> int64
// cast. The importer's upper bound for an int64 Clip without `max` is (double)INT64_MAX = 2^63,
// out of range: the constant becomes INT64_MIN, so the clip returns INT64_MIN everywhere.

// CHECK-LABEL: func @clip_int64_unbounded_max
// CHECK: %[[HI:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: arith.minsi %{{.*}}, %[[HI]] : i64
func.func @clip_int64_unbounded_max(%a: tensor<4xi64>) -> tensor<4xi64> {
  %0 = infc.clip %a {min = 0.0 : f64, max = 9.2233720368547758E+18 : f64} : tensor<4xi64>
  return %0 : tensor<4xi64>
}
