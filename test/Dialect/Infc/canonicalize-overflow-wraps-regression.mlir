// RUN: infc-opt %s -canonicalize | FileCheck %s

// Regression (found by fuzz_compile): the integer folders computed in int64, so a product
// past 2^63 was undefined behaviour in the compiler. They wrap now, as the generated code
// does; a float outside int64 cast to an integer is left to run time.

// CHECK-LABEL: func @mul_wraps
// CHECK: infc.constant dense<-2199023255551> : tensor<1xi64>
func.func @mul_wraps() -> tensor<1xi64> {
  %a = infc.constant dense<1099511627775> : tensor<1xi64>
  %0 = infc.mul %a, %a : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// CHECK-LABEL: func @add_neg_wrap
// CHECK: %[[MIN:.*]] = infc.constant dense<-9223372036854775808> : tensor<1xi64>
// CHECK-NEXT: return %[[MIN]], %[[MIN]]
func.func @add_neg_wrap() -> (tensor<1xi64>, tensor<1xi64>) {
  %max = infc.constant dense<9223372036854775807> : tensor<1xi64>
  %one = infc.constant dense<1> : tensor<1xi64>
  %min = infc.constant dense<-9223372036854775808> : tensor<1xi64>
  %0 = infc.add %max, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %1 = infc.neg %min : tensor<1xi64>
  return %0, %1 : tensor<1xi64>, tensor<1xi64>
}

// CHECK-LABEL: func @cast_out_of_range
// CHECK: infc.cast
func.func @cast_out_of_range() -> tensor<1xi32> {
  %a = infc.constant dense<1.0e30> : tensor<1xf32>
  %0 = infc.cast %a : tensor<1xf32> -> tensor<1xi32>
  return %0 : tensor<1xi32>
}
