// RUN: infc-opt %s -canonicalize | FileCheck %s

// Regression (fixed): DivOp::fold evaluates INT64_MIN / -1 with C++ `/`, which traps (SIGFPE) and kills
// infc-opt. The folder should refuse this case (like division by zero), leaving it for run
// time.

// CHECK-LABEL: func @div_int64_min_by_minus_one
// CHECK: infc.div
func.func @div_int64_min_by_minus_one() -> tensor<1xi64> {
  %a = infc.constant dense<-9223372036854775808> : tensor<1xi64>
  %b = infc.constant dense<-1> : tensor<1xi64>
  %0 = infc.div %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}
