// RUN: infc-opt %s -canonicalize -split-input-file | FileCheck %s

// The folders read unsigned constants zero-extended: 200 / 3 is 66, 200 > 100, max(200, 1)
// is 200 (all wrong if read as the signed i8 -56).

// CHECK-LABEL: func @fold_unsigned
// CHECK-DAG: infc.constant dense<66> : tensor<ui8>
// CHECK-DAG: infc.constant dense<true> : tensor<i1>
// CHECK-DAG: infc.constant dense<200> : tensor<ui8>
// CHECK-DAG: infc.constant dense<2.000000e+02> : tensor<f32>
// CHECK-NOT: infc.div
func.func @fold_unsigned() -> (tensor<ui8>, tensor<i1>, tensor<ui8>, tensor<f32>) {
  %a = infc.constant dense<200> : tensor<ui8>
  %b = infc.constant dense<3> : tensor<ui8>
  %c = infc.constant dense<100> : tensor<ui8>
  %one = infc.constant dense<1> : tensor<ui8>
  %0 = infc.div %a, %b : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %1 = infc.greater %a, %c : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
  %2 = infc.max %a, %one : (tensor<ui8>, tensor<ui8>) -> tensor<ui8>
  %3 = infc.cast %a : tensor<ui8> -> tensor<f32>
  return %0, %1, %2, %3 : tensor<ui8>, tensor<i1>, tensor<ui8>, tensor<f32>
}

// -----

// A uint64 of 2^63 or more has no int64 value: it is left for run time.
// CHECK-LABEL: func @no_fold_large_uint64
// CHECK: infc.div
func.func @no_fold_large_uint64() -> tensor<ui64> {
  %a = infc.constant dense<18446744073709551615> : tensor<ui64>
  %b = infc.constant dense<3> : tensor<ui64>
  %0 = infc.div %a, %b : (tensor<ui64>, tensor<ui64>) -> tensor<ui64>
  return %0 : tensor<ui64>
}
