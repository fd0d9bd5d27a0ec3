// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// Elementwise ops become one all-parallel linalg.generic over the result shape, reading each
// operand through a numpy-broadcasting map, with the scalar op in the body.

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @add_rank_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$TRAIL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3xf32>) outs(%[[INIT]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @add_rank_broadcast(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Size-1 dims read index 0.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (0, d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @sub_int_outer_broadcast
// CHECK: linalg.generic {indexing_maps = [#[[$COL]], #[[$ROW]], #[[$ID2]]]
// CHECK-SAME: outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.subi %{{.*}}, %{{.*}} : i32
func.func @sub_int_outer_broadcast(%a: tensor<2x1xi32>, %b: tensor<1x3xi32>) -> tensor<2x3xi32> {
  %0 = infc.sub %a, %b : (tensor<2x1xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// A size-1 result dim keeps its dim expression.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @mul_size1_and_rank0
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$SCALAR]], #[[$ID2]]]
// CHECK: arith.mulf
func.func @mul_size1_and_rank0(%a: tensor<1x3xf32>, %b: tensor<f32>) -> tensor<1x3xf32> {
  %0 = infc.mul %a, %b : (tensor<1x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}

// -----

// Float and signed-integer flavours of the arithmetic ops.
// CHECK-LABEL: func @arith_float
// CHECK: arith.divf
// CHECK: math.powf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: arith.mulf
func.func @arith_float(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = infc.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = infc.pow %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = infc.max %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = infc.min %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = infc.mul %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @arith_int
// CHECK: arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: arith.divsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.minsi %{{.*}}, %{{.*}} : i64
// CHECK: arith.muli %{{.*}}, %{{.*}} : i64
func.func @arith_int(%a: tensor<4xi64>, %b: tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>) {
  %0 = infc.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = infc.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = infc.max %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = infc.min %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = infc.mul %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %0, %1, %2, %3, %4 : tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>
}

// -----

// Comparisons yield i1 (ordered predicates for floats, signed for integers).
// CHECK-LABEL: func @compare
// CHECK: outs(%{{.*}} : tensor<4xi1>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf oeq
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi eq
// CHECK: arith.cmpi sgt
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = infc.less %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = infc.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = infc.greater %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = infc.less %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = infc.equal %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %5 = infc.greater %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func @logic
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @logic(%a: tensor<4xi1>, %b: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = infc.and %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %1 = infc.or %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %2 = infc.not %a : tensor<4xi1>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// where broadcasts all three operands.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @where
// CHECK-SAME: (%[[C:.*]]: tensor<2x1xi1>, %[[A:.*]]: tensor<3xf32>, %[[B:.*]]: tensor<f32>)
// CHECK: linalg.generic {indexing_maps = [#[[$COL]], #[[$TRAIL]], #[[$SCALAR]], #[[$ID2]]]
// CHECK-SAME: ins(%[[C]], %[[A]], %[[B]] :
// CHECK-NEXT: ^bb0(%[[CC:.*]]: i1, %[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.select %[[CC]], %[[X]], %[[Y]] : f32
func.func @where(%c: tensor<2x1xi1>, %a: tensor<3xf32>, %b: tensor<f32>) -> tensor<2x3xf32> {
  %0 = infc.where %c, %a, %b : (tensor<2x1xi1>, tensor<3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func @unary_math
// CHECK: arith.negf
// CHECK: math.absf
// CHECK: math.sqrt
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: math.floor
// CHECK: math.ceil
func.func @unary_math(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = infc.neg %a : tensor<4xf32>
  %1 = infc.abs %a : tensor<4xf32>
  %2 = infc.sqrt %a : tensor<4xf32>
  %3 = infc.exp %a : tensor<4xf32>
  %4 = infc.log %a : tensor<4xf32>
  %5 = infc.erf %a : tensor<4xf32>
  %6 = infc.tanh %a : tensor<4xf32>
  %7 = infc.floor %a : tensor<4xf32>
  %8 = infc.ceil %a : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Integer neg is 0 - x; abs is max(x, 0 - x) (math.absi has no LLVM lowering); relu has an
// integer form.
// CHECK-LABEL: func @unary_int
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.subi %[[ZERO]], %[[X]] : i32
// CHECK: ^bb0(%[[A:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[ZERO2:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[NEGA:.*]] = arith.subi %[[ZERO2]], %[[A]] : i32
// CHECK-NEXT: arith.maxsi %[[A]], %[[NEGA]] : i32
// CHECK: ^bb0(%[[Y:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.maxsi %[[Y]], %[[Z]] : i32
func.func @unary_int(%a: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
  %0 = infc.neg %a : tensor<4xi32>
  %1 = infc.abs %a : tensor<4xi32>
  %2 = infc.relu %a : tensor<4xi32>
  return %0, %1, %2 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func @activations
// sigmoid: 1 / (1 + exp(-x))
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[X]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[NEG]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// relu: max(x, 0)
// CHECK: ^bb0(%[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.maximumf %[[R]], %[[ZERO]] : f32
// reciprocal: 1 / x
// CHECK: ^bb0(%[[Q:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[ONE2]], %[[Q]] : f32
// leaky_relu: x < 0 ? alpha * x : x
// CHECK: ^bb0(%[[L:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ALPHA:.*]] = arith.constant 2.000000e-01 : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[L]], %[[Z]] : f32
// CHECK: %[[M:.*]] = arith.mulf %[[L]], %[[ALPHA]] : f32
// CHECK: arith.select %[[LT]], %[[M]], %[[L]] : f32
func.func @activations(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = infc.sigmoid %a : tensor<4xf32>
  %1 = infc.relu %a : tensor<4xf32>
  %2 = infc.reciprocal %a : tensor<4xf32>
  %3 = infc.leaky_relu %a {alpha = 0.2 : f64} : tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// round is math.roundeven (ties to even); the trigonometric ops are their math ops.
// CHECK-LABEL: func @round_and_trig
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh %{{.*}} : f32
func.func @round_and_trig(%a: tensor<4xf32>) {
  %0 = infc.round %a : tensor<4xf32>
  %1 = infc.sin %a : tensor<4xf32>
  %2 = infc.cos %a : tensor<4xf32>
  %3 = infc.tan %a : tensor<4xf32>
  %4 = infc.asin %a : tensor<4xf32>
  %5 = infc.acos %a : tensor<4xf32>
  %6 = infc.atan %a : tensor<4xf32>
  %7 = infc.sinh %a : tensor<4xf32>
  %8 = infc.cosh %a : tensor<4xf32>
  %9 = infc.asinh %a : tensor<4xf32>
  %10 = infc.acosh %a : tensor<4xf32>
  %11 = infc.atanh %a : tensor<4xf32>
  return
}

// -----

// rem is remf / remsi. Shifts compare the amount unsigned with the width, so a negative
// amount is out of range too: shift_left then yields 0 (from an in-range amount, which keeps
// shli defined), shift_right shifts by width - 1, leaving the sign fill.
// CHECK-LABEL: func @rem_and_shifts
// CHECK: arith.remf %{{.*}}, %{{.*}} : f32
// CHECK: arith.remsi %{{.*}}, %{{.*}} : i8
// CHECK: ^bb0(%[[X:.*]]: i8, %[[N:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[W:.*]] = arith.constant 8 : i8
// CHECK-NEXT: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]] : i8
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0 : i8
// CHECK-NEXT: %[[AMT:.*]] = arith.select %[[OK]], %[[N]], %[[Z]] : i8
// CHECK-NEXT: %[[SHL:.*]] = arith.shli %[[X]], %[[AMT]] : i8
// CHECK-NEXT: %[[R:.*]] = arith.select %[[OK]], %[[SHL]], %[[Z]] : i8
// CHECK-NEXT: linalg.yield %[[R]]
// CHECK: ^bb0(%[[Y:.*]]: i8, %[[M:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[W2:.*]] = arith.constant 8 : i8
// CHECK-NEXT: %[[OK2:.*]] = arith.cmpi ult, %[[M]], %[[W2]] : i8
// CHECK-NEXT: %[[SEVEN:.*]] = arith.constant 7 : i8
// CHECK-NEXT: %[[AMT2:.*]] = arith.select %[[OK2]], %[[M]], %[[SEVEN]] : i8
// CHECK-NEXT: %[[SHR:.*]] = arith.shrsi %[[Y]], %[[AMT2]] : i8
// CHECK-NEXT: linalg.yield %[[SHR]]
func.func @rem_and_shifts(%f: tensor<4xf32>, %i: tensor<2x3xi8>, %j: tensor<3xi8>) {
  %0 = infc.rem %f, %f : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = infc.rem %i, %j : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
  %2 = infc.shift_left %i, %j : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
  %3 = infc.shift_right %i, %j : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2x3xi8>
  return
}

// -----

// clip is max then min; an infinite bound is no bound (NaN passes through unchanged).
// CHECK-LABEL: func @clip
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-DAG: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: %[[M:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK: %[[R:.*]] = arith.minimumf %[[M]], %[[HI]] : f32
// CHECK: linalg.yield %[[R]]
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NOT: arith.maximumf
// CHECK: %[[R2:.*]] = arith.minimumf %[[Y]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[R2]]
// CHECK: ^bb0(%[[I:.*]]: i32, %{{.*}}: i32):
// CHECK-DAG: %[[ILO:.*]] = arith.constant -3 : i32
// CHECK-DAG: %[[IHI:.*]] = arith.constant 3 : i32
// CHECK: %[[IM:.*]] = arith.maxsi %[[I]], %[[ILO]] : i32
// CHECK: arith.minsi %[[IM]], %[[IHI]] : i32
func.func @clip(%a: tensor<4xf32>, %i: tensor<4xi32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = infc.clip %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  %1 = infc.clip %a {min = 0xFFF0000000000000 : f64, max = 6.0 : f64} : tensor<4xf32>
  %2 = infc.clip %i {min = -3.0 : f64, max = 3.0 : f64} : tensor<4xi32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// ONNX Cast: float to int truncates (fptosi), to bool is "!= 0" (unordered, so NaN is true),
// bool is unsigned.
// CHECK-LABEL: func @cast
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK: %[[ZI:.*]] = arith.constant 0 : i64
// CHECK-NEXT: arith.cmpi ne, %{{.*}}, %[[ZI]] : i64
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @cast(%f: tensor<4xf32>, %i: tensor<4xi64>, %b: tensor<4xi1>, %j: tensor<4xi32>)
    -> (tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xi64>, tensor<4xf64>, tensor<4xf16>) {
  %0 = infc.cast %f : tensor<4xf32> -> tensor<4xi32>
  %1 = infc.cast %f : tensor<4xf32> -> tensor<4xi1>
  %2 = infc.cast %i : tensor<4xi64> -> tensor<4xi1>
  %3 = infc.cast %i : tensor<4xi64> -> tensor<4xf32>
  %4 = infc.cast %b : tensor<4xi1> -> tensor<4xf32>
  %5 = infc.cast %b : tensor<4xi1> -> tensor<4xi64>
  %6 = infc.cast %i : tensor<4xi64> -> tensor<4xi32>
  %7 = infc.cast %j : tensor<4xi32> -> tensor<4xi64>
  %8 = infc.cast %f : tensor<4xf32> -> tensor<4xf64>
  %9 = infc.cast %f : tensor<4xf32> -> tensor<4xf16>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : tensor<4xi32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xi64>, tensor<4xf64>, tensor<4xf16>
}

// -----

// Bitwise ops on integers; not is xor with all ones.
// CHECK-LABEL: func @bitwise
// CHECK: linalg.generic
// CHECK: arith.xori %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: %[[ONES:.*]] = arith.constant -1 : i16
// CHECK: arith.xori %{{.*}}, %[[ONES]] : i16
func.func @bitwise(%a: tensor<4xi32>, %b: tensor<4xi32>, %c: tensor<4xi16>) -> (tensor<4xi32>, tensor<4xi16>) {
  %0 = infc.xor %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = infc.not %c : tensor<4xi16>
  return %0, %1 : tensor<4xi32>, tensor<4xi16>
}

// -----

// BitCast keeps the bits; a bool becomes its stored byte first.
// CHECK-LABEL: func @bitcast
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
// CHECK: linalg.generic
// CHECK: arith.extui %{{.*}} : i1 to i8
// CHECK-NOT: arith.bitcast
// CHECK: linalg.yield
func.func @bitcast(%a: tensor<4xf32>, %p: tensor<4xi1>) -> (tensor<4xui32>, tensor<4xui8>) {
  %0 = infc.bitcast %a : tensor<4xf32> -> tensor<4xui32>
  %1 = infc.bitcast %p : tensor<4xi1> -> tensor<4xui8>
  return %0, %1 : tensor<4xui32>, tensor<4xui8>
}
