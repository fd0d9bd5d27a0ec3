// RUN: infc-opt %s -canonicalize -split-input-file | FileCheck %s

// Constant folding through the infc folders, and the identity folds.

// The shape subgraph exporters emit for `x.reshape(x.shape[0], -1)`: folds to one constant.
// CHECK-LABEL: func @shape_gather_concat_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[SHAPE:.*]] = infc.constant dense<[2, -1]> : tensor<2xi64>
// CHECK-DAG: %[[R:.*]] = infc.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<2x12xf32>
// CHECK-NOT: infc.shape
// CHECK-NOT: infc.gather
// CHECK-NOT: infc.concat
// CHECK: return %[[R]], %[[SHAPE]]
func.func @shape_gather_concat_reshape(%x: tensor<2x3x4xf32>) -> (tensor<2x12xf32>, tensor<2xi64>) {
  %s = infc.shape %x : tensor<2x3x4xf32> -> tensor<3xi64>
  %i0 = infc.constant dense<0> : tensor<i64>
  %d0 = infc.gather %s, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u = infc.reshape %d0 : tensor<i64> -> tensor<1xi64>
  %m1 = infc.constant dense<-1> : tensor<1xi64>
  %shape = infc.concat %u, %m1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %r = infc.reshape %x : tensor<2x3x4xf32> -> tensor<2x12xf32>
  return %r, %shape : tensor<2x12xf32>, tensor<2xi64>
}

// -----

// Products of dims, as exporters compute flattened sizes: 3 * 4 = 12.
// CHECK-LABEL: func @shape_arithmetic
// CHECK-NEXT: %[[C:.*]] = infc.constant dense<12> : tensor<1xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_arithmetic(%x: tensor<2x3x4xf32>) -> tensor<1xi64> {
  %s = infc.shape %x : tensor<2x3x4xf32> -> tensor<3xi64>
  %a = infc.slice %s {offsets = array<i64: 1>, sizes = array<i64: 1>, steps = array<i64: 1>} : (tensor<3xi64>) -> tensor<1xi64>
  %b = infc.slice %s {offsets = array<i64: 2>, sizes = array<i64: 1>, steps = array<i64: 1>} : (tensor<3xi64>) -> tensor<1xi64>
  %p = infc.mul %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %p : tensor<1xi64>
}

// -----

// CHECK-LABEL: func @transpose_constant
// CHECK-NEXT: %[[C:.*]] = infc.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @transpose_constant() -> tensor<3x2xf32> {
  %c = infc.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %0 = infc.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// A rank-3 permutation of i8 data: result[i][j][k] = c[k][i][j].
// CHECK-LABEL: func @transpose_constant_rank3
// CHECK: infc.constant dense<{{\[}}{{\[}}[0, 6], [1, 7], [2, 8]], {{\[}}[3, 9], [4, 10], [5, 11]]]> : tensor<2x3x2xi8>
func.func @transpose_constant_rank3() -> tensor<2x3x2xi8> {
  %c = infc.constant dense<[[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]> : tensor<2x2x3xi8>
  %0 = infc.transpose %c {perm = array<i64: 1, 2, 0>} : (tensor<2x2x3xi8>) -> tensor<2x3x2xi8>
  return %0 : tensor<2x3x2xi8>
}

// -----

// CHECK-LABEL: func @int64_arithmetic
// CHECK-DAG: %[[ADD:.*]] = infc.constant dense<[14, 28, 30]> : tensor<3xi64>
// CHECK-DAG: %[[SUB:.*]] = infc.constant dense<[-9, 9, 5]> : tensor<3xi64>
// CHECK-DAG: %[[MUL:.*]] = infc.constant dense<[-14, -14, 36]> : tensor<3xi64>
// Integer division truncates toward zero (not floor: -7 / 2 is -3).
// CHECK-DAG: %[[DIV:.*]] = infc.constant dense<[-3, -3, 2]> : tensor<3xi64>
// CHECK-DAG: %[[POW:.*]] = infc.constant dense<[1, 49, 729]> : tensor<3xi64>
// CHECK-DAG: %[[MAX:.*]] = infc.constant dense<[0, 7, 9]> : tensor<3xi64>
// CHECK-DAG: %[[MIN:.*]] = infc.constant dense<[-7, -2, 4]> : tensor<3xi64>
// CHECK-DAG: %[[NEG:.*]] = infc.constant dense<[7, -7, -9]> : tensor<3xi64>
// CHECK-DAG: %[[ABS:.*]] = infc.constant dense<[7, 7, 9]> : tensor<3xi64>
// CHECK-NOT: infc.{{[a-z]+}} %
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[POW]], %[[MAX]], %[[MIN]], %[[NEG]], %[[ABS]] :
func.func @int64_arithmetic() -> (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) {
  %a = infc.constant dense<[-7, 7, 9]> : tensor<3xi64>
  %b = infc.constant dense<[2, -2, 4]> : tensor<3xi64>
  %c21 = infc.constant dense<21> : tensor<i64>
  %zero = infc.constant dense<0> : tensor<1xi64>
  %e = infc.constant dense<[0, 2, 3]> : tensor<3xi64>
  // A rank-0 and a one-element operand broadcast.
  %0 = infc.add %a, %c21 : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  %1 = infc.sub %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %2 = infc.mul %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %3 = infc.div %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %4 = infc.pow %a, %e : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %5 = infc.max %a, %zero : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi64>
  %6 = infc.min %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %7 = infc.neg %a : tensor<3xi64>
  %8 = infc.abs %a : tensor<3xi64>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>
}

// -----

// Division by zero is left for run time; so is a negative integer power.
// CHECK-LABEL: func @int_no_fold
// CHECK: infc.div
// CHECK: infc.pow
func.func @int_no_fold() -> (tensor<2xi64>, tensor<2xi64>) {
  %a = infc.constant dense<[4, 5]> : tensor<2xi64>
  %z = infc.constant dense<[1, 0]> : tensor<2xi64>
  %m = infc.constant dense<[1, -1]> : tensor<2xi64>
  %0 = infc.div %a, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  %1 = infc.pow %a, %m : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0, %1 : tensor<2xi64>, tensor<2xi64>
}

// -----

// Broadcasting both ways: [2, 1] op [1, 3] -> [2, 3].
// CHECK-LABEL: func @float_broadcast_arithmetic
// CHECK-DAG: %[[ADD:.*]] = infc.constant dense<{{\[}}[1.100000e+01, 2.100000e+01, 3.100000e+01], [1.200000e+01, 2.200000e+01, 3.200000e+01]]> : tensor<2x3xf32>
// CHECK-DAG: %[[DIV:.*]] = infc.constant dense<{{\[}}[1.000000e-01, 5.000000e-02, 0.0{{0*}}e+00], [2.000000e-01, 1.000000e-01, 0.0{{0*}}e+00]]> : tensor<2x3xf32>
// CHECK: return %[[ADD]], %[[DIV]]
func.func @float_broadcast_arithmetic() -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %a = infc.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %b = infc.constant dense<[[10.0, 20.0, 0x7F800000]]> : tensor<1x3xf32>
  %c = infc.constant dense<[[10.0, 20.0, 30.0]]> : tensor<1x3xf32>
  %0 = infc.add %a, %c : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %1 = infc.div %a, %b : (tensor<2x1xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unary_float
// CHECK-DAG: %[[RELU:.*]] = infc.constant dense<[0.000000e+00, 0.000000e+00, 4.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[SQRT:.*]] = infc.constant dense<[0.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<3xf32>
// CHECK-DAG: %[[CLIP:.*]] = infc.constant dense<[-5.000000e-01, 0.000000e+00, 5.000000e-01]> : tensor<3xf32>
// CHECK-DAG: %[[FLOOR:.*]] = infc.constant dense<[-2.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[CEIL:.*]] = infc.constant dense<[-1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[LEAKY:.*]] = infc.constant dense<[-1.500000e-01, 1.500000e+00]> : tensor<2xf32>
// CHECK: return %[[RELU]], %[[SQRT]], %[[CLIP]], %[[FLOOR]], %[[CEIL]], %[[LEAKY]]
func.func @unary_float() -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = infc.constant dense<[-1.0, 0.0, 4.0]> : tensor<3xf32>
  %s = infc.constant dense<[0.0, 1.0, 4.0]> : tensor<3xf32>
  %f = infc.constant dense<[-1.5, 1.5]> : tensor<2xf32>
  %0 = infc.relu %a : tensor<3xf32>
  %1 = infc.sqrt %s : tensor<3xf32>
  %2 = infc.clip %a {min = -0.5 : f64, max = 0.5 : f64} : tensor<3xf32>
  %3 = infc.floor %f : tensor<2xf32>
  %4 = infc.ceil %f : tensor<2xf32>
  %5 = infc.leaky_relu %f {alpha = 0.1 : f64} : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// round is ties-to-even; the trigonometric folds run in double.
// CHECK-LABEL: func @round_and_trig
// CHECK-DAG: %[[ROUND:.*]] = infc.constant dense<[-2.000000e+00, 0.000000e+00, 2.000000e+00, 2.000000e+00]> : tensor<4xf32>
// CHECK-DAG: %[[SIN:.*]] = infc.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK-DAG: %[[COSH:.*]] = infc.constant dense<1.000000e+00> : tensor<1xf32>
// CHECK: return %[[ROUND]], %[[SIN]], %[[COSH]]
func.func @round_and_trig() -> (tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) {
  %a = infc.constant dense<[-2.5, 0.5, 1.5, 2.4]> : tensor<4xf32>
  %z = infc.constant dense<0.0> : tensor<1xf32>
  %0 = infc.round %a : tensor<4xf32>
  %1 = infc.sin %z : tensor<1xf32>
  %2 = infc.cosh %z : tensor<1xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<1xf32>, tensor<1xf32>
}

// -----

// rem keeps the dividend's sign; shifts by an amount outside [0, 8) give the sign fill.
// CHECK-LABEL: func @rem_and_shifts
// CHECK-DAG: %[[REM:.*]] = infc.constant dense<[-1, 1, -1, 1]> : tensor<4xi8>
// CHECK-DAG: %[[FREM:.*]] = infc.constant dense<[-1.000000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SHL:.*]] = infc.constant dense<[-14, 0, 0, -128]> : tensor<4xi8>
// CHECK-DAG: %[[SHR:.*]] = infc.constant dense<[-4, -1, -1, 0]> : tensor<4xi8>
// CHECK: return %[[REM]], %[[FREM]], %[[SHL]], %[[SHR]]
func.func @rem_and_shifts() -> (tensor<4xi8>, tensor<2xf32>, tensor<4xi8>, tensor<4xi8>) {
  %a = infc.constant dense<[-7, 7, -7, 7]> : tensor<4xi8>
  %b = infc.constant dense<[3, 3, -3, -3]> : tensor<4xi8>
  %x = infc.constant dense<[-7, -7, -7, 1]> : tensor<4xi8>
  %s = infc.constant dense<[1, 8, -1, 7]> : tensor<4xi8>
  %f = infc.constant dense<[-7.0, 5.5]> : tensor<2xf32>
  %g = infc.constant dense<[3.0, -2.0]> : tensor<2xf32>
  %0 = infc.rem %a, %b : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %1 = infc.rem %f, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %2 = infc.shift_left %x, %s : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %3 = infc.shift_right %x, %s : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  return %0, %1, %2, %3 : tensor<4xi8>, tensor<2xf32>, tensor<4xi8>, tensor<4xi8>
}

// -----

// Comparisons and logic yield i1 constants.
// CHECK-LABEL: func @compare_and_logic
// CHECK-DAG: %[[LT:.*]] = infc.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[EQ:.*]] = infc.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[GT:.*]] = infc.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[NOT:.*]] = infc.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK-DAG: %[[OR:.*]] = infc.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[AND:.*]] = infc.constant dense<false> : tensor<3xi1>
// CHECK: return %[[LT]], %[[EQ]], %[[GT]], %[[NOT]], %[[OR]], %[[AND]]
func.func @compare_and_logic() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = infc.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %two = infc.constant dense<2.0> : tensor<f32>
  %0 = infc.less %a, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %1 = infc.equal %a, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %2 = infc.greater %a, %two : (tensor<3xf32>, tensor<f32>) -> tensor<3xi1>
  %3 = infc.not %0 : tensor<3xi1>
  %4 = infc.or %0, %1 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %5 = infc.and %0, %2 : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// On integers and, or, xor and not are bitwise (wrapping to the element width).
// CHECK-LABEL: func @bitwise
// CHECK-DAG: %[[AND:.*]] = infc.constant dense<[4, 0, -128]> : tensor<3xi8>
// CHECK-DAG: %[[OR:.*]] = infc.constant dense<[7, -1, -1]> : tensor<3xi8>
// CHECK-DAG: %[[XOR:.*]] = infc.constant dense<[3, -1, 127]> : tensor<3xi8>
// CHECK-DAG: %[[NOT:.*]] = infc.constant dense<[-7, 0, 127]> : tensor<3xi8>
// CHECK-DAG: %[[NOTU:.*]] = infc.constant dense<[254, 0]> : tensor<2xui8>
// CHECK: return %[[AND]], %[[OR]], %[[XOR]], %[[NOT]], %[[NOTU]]
func.func @bitwise() -> (tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<2xui8>) {
  %a = infc.constant dense<[6, -1, -128]> : tensor<3xi8>
  %b = infc.constant dense<[5, 0, -1]> : tensor<3xi8>
  %u = infc.constant dense<[1, 255]> : tensor<2xui8>
  %0 = infc.and %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %1 = infc.or %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %2 = infc.xor %a, %b : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  %3 = infc.not %a : tensor<3xi8>
  %4 = infc.not %u : tensor<2xui8>
  return %0, %1, %2, %3, %4 : tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<3xi8>, tensor<2xui8>
}

// -----

// ONNX Cast: float to int truncates toward zero, anything to bool is "!= 0".
// CHECK-LABEL: func @cast_constant
// CHECK-DAG: %[[I:.*]] = infc.constant dense<[1, -2, 0]> : tensor<3xi32>
// CHECK-DAG: %[[B:.*]] = infc.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[F:.*]] = infc.constant dense<[-3.000000e+00, 7.000000e+00]> : tensor<2xf16>
// CHECK-DAG: %[[W:.*]] = infc.constant dense<[-3, 7]> : tensor<2xi8>
// CHECK-DAG: %[[ID:.*]] = infc.constant dense<[true, false]> : tensor<2xi1>
// CHECK-DAG: %[[BI:.*]] = infc.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-NOT: infc.cast
// CHECK: return %[[I]], %[[B]], %[[F]], %[[W]], %[[ID]], %[[BI]]
func.func @cast_constant() -> (tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi8>, tensor<2xi1>, tensor<2xi64>) {
  %f = infc.constant dense<[1.9, -2.9, 0.0]> : tensor<3xf32>
  %i = infc.constant dense<[-3, 7]> : tensor<2xi64>
  %b = infc.constant dense<[true, false]> : tensor<2xi1>
  %0 = infc.cast %f : tensor<3xf32> -> tensor<3xi32>
  %1 = infc.cast %f : tensor<3xf32> -> tensor<3xi1>
  %2 = infc.cast %i : tensor<2xi64> -> tensor<2xf16>
  %3 = infc.cast %i : tensor<2xi64> -> tensor<2xi8>
  %4 = infc.cast %b : tensor<2xi1> -> tensor<2xi1>
  %5 = infc.cast %b : tensor<2xi1> -> tensor<2xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi32>, tensor<3xi1>, tensor<2xf16>, tensor<2xi8>, tensor<2xi1>, tensor<2xi64>
}

// -----

// A cast to the operand's own type is the operand.
// CHECK-LABEL: func @cast_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2xf32>)
// CHECK-NEXT: return %[[X]]
func.func @cast_identity(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = infc.cast %x : tensor<2xf32> -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func @slice_constant
// CHECK-DAG: %[[POS:.*]] = infc.constant dense<{{\[}}[1, 3], [9, 11]]> : tensor<2x2xi32>
// Negative steps read backwards.
// CHECK-DAG: %[[NEG:.*]] = infc.constant dense<{{\[}}[7, 6, 5, 4]]> : tensor<1x4xi32>
// CHECK: return %[[POS]], %[[NEG]]
func.func @slice_constant() -> (tensor<2x2xi32>, tensor<1x4xi32>) {
  %c = infc.constant dense<[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]> : tensor<3x4xi32>
  %0 = infc.slice %c {offsets = array<i64: 0, 1>, sizes = array<i64: 2, 2>, steps = array<i64: 2, 2>} : (tensor<3x4xi32>) -> tensor<2x2xi32>
  %1 = infc.slice %c {offsets = array<i64: 1, 3>, sizes = array<i64: 1, 4>, steps = array<i64: 1, -1>} : (tensor<3x4xi32>) -> tensor<1x4xi32>
  return %0, %1 : tensor<2x2xi32>, tensor<1x4xi32>
}

// -----

// Negative indices count from the end.
// CHECK-LABEL: func @gather_constant
// CHECK-DAG: %[[ROWS:.*]] = infc.constant dense<{{\[}}{{\[}}[4.000000e+00, 5.000000e+00], [0.000000e+00, 1.000000e+00]]]> : tensor<1x2x2xf32>
// CHECK-DAG: %[[COLS:.*]] = infc.constant dense<{{\[}}[1.000000e+00, 1.000000e+00, 0.000000e+00], [3.000000e+00, 3.000000e+00, 2.000000e+00], [5.000000e+00, 5.000000e+00, 4.000000e+00]]> : tensor<3x3xf32>
// CHECK: return %[[ROWS]], %[[COLS]]
func.func @gather_constant() -> (tensor<1x2x2xf32>, tensor<3x3xf32>) {
  %c = infc.constant dense<[[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]> : tensor<3x2xf32>
  %i = infc.constant dense<[[-1, 0]]> : tensor<1x2xi64>
  %j = infc.constant dense<[1, -1, 0]> : tensor<3xi32>
  %0 = infc.gather %c, %i {axis = 0 : i64} : (tensor<3x2xf32>, tensor<1x2xi64>) -> tensor<1x2x2xf32>
  %1 = infc.gather %c, %j {axis = 1 : i64} : (tensor<3x2xf32>, tensor<3xi32>) -> tensor<3x3xf32>
  return %0, %1 : tensor<1x2x2xf32>, tensor<3x3xf32>
}

// -----

// An out-of-range index is left for run time.
// CHECK-LABEL: func @gather_out_of_range
// CHECK: infc.gather
func.func @gather_out_of_range() -> tensor<1xi64> {
  %c = infc.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = infc.constant dense<[3]> : tensor<1xi64>
  %0 = infc.gather %c, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// CHECK-LABEL: func @concat_constant
// CHECK-DAG: %[[ROWS:.*]] = infc.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// CHECK-DAG: %[[COLS:.*]] = infc.constant dense<{{\[}}[1, 2, 7], [3, 4, 8]]> : tensor<2x3xi64>
// CHECK: return %[[ROWS]], %[[COLS]]
func.func @concat_constant() -> (tensor<3x2xi64>, tensor<2x3xi64>) {
  %a = infc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %b = infc.constant dense<[[5, 6]]> : tensor<1x2xi64>
  %c = infc.constant dense<[[7], [8]]> : tensor<2x1xi64>
  %0 = infc.concat %a, %b {axis = 0 : i64} : (tensor<2x2xi64>, tensor<1x2xi64>) -> tensor<3x2xi64>
  %1 = infc.concat %a, %c {axis = 1 : i64} : (tensor<2x2xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  return %0, %1 : tensor<3x2xi64>, tensor<2x3xi64>
}

// -----

// CHECK-LABEL: func @where_constant
// CHECK-NEXT: %[[C:.*]] = infc.constant dense<{{\[}}[1.000000e+00, -2.000000e+00], [-1.000000e+00, 2.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @where_constant() -> tensor<2x2xf32> {
  %cond = infc.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %a = infc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = infc.constant dense<[-1.0, -2.0]> : tensor<2xf32>
  %0 = infc.where %cond, %a, %b : (tensor<2x2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @broadcast_constant
// CHECK-DAG: %[[ROW:.*]] = infc.constant dense<{{\[}}[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-DAG: %[[COL:.*]] = infc.constant dense<{{\[}}[1, 1, 1], [2, 2, 2]]> : tensor<2x3xi32>
// CHECK-DAG: %[[SPLAT:.*]] = infc.constant dense<5.000000e-01> : tensor<4x2xf32>
// CHECK: return %[[ROW]], %[[COL]], %[[SPLAT]]
func.func @broadcast_constant() -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<4x2xf32>) {
  %r = infc.constant dense<[1, 2, 3]> : tensor<3xi32>
  %c = infc.constant dense<[[1], [2]]> : tensor<2x1xi32>
  %s = infc.constant dense<0.5> : tensor<2xf32>
  %0 = infc.broadcast %r : tensor<3xi32> -> tensor<2x3xi32>
  %1 = infc.broadcast %c : tensor<2x1xi32> -> tensor<2x3xi32>
  %2 = infc.broadcast %s : tensor<2xf32> -> tensor<4x2xf32>
  return %0, %1, %2 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<4x2xf32>
}

// -----

// CHECK-LABEL: func @reshape_constant
// CHECK-NEXT: %[[C:.*]] = infc.constant dense<{{\[}}[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @reshape_constant() -> tensor<2x3xi64> {
  %c = infc.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
  %0 = infc.reshape %c : tensor<6xi64> -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Data movement that moves nothing folds to its operand.
// CHECK-LABEL: func @identity_folds
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NOT: infc.
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identity_folds(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = infc.reshape %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = infc.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = infc.slice %x {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = infc.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = infc.broadcast %x : tensor<2x3xf32> -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// Ops on non-constant values stay.
// CHECK-LABEL: func @no_fold
// CHECK: infc.transpose
// CHECK: infc.reshape
// CHECK: infc.add
func.func @no_fold(%x: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %0 = infc.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = infc.reshape %x : tensor<2x3xf32> -> tensor<3x2xf32>
  %2 = infc.add %0, %1 : (tensor<3x2xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0, %2 : tensor<3x2xf32>, tensor<3x2xf32>
}
