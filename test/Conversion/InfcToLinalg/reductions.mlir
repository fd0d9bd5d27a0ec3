// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// Reductions are a linalg.generic with reduction iterators on the reduced dims into an
// accumulator filled with the identity (0, 1, -inf / +inf or the integer extremes); keepdims
// re-expands; mean divides by the reduced element count. softmax and layer_norm are chains of
// reductions and broadcasting generics.

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$KEEP02:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func @reduce_sum_keepdims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<2x4xf32>)
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$KEEP02]]], iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[ACC]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK: return %[[K]]
func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = infc.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// Mean over dims 0 and 2 of 2x3x4 divides by 8; the integer mean divides (signed) by 3.
// CHECK-DAG: #[[$KEEP1:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func @reduce_mean
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[$KEEP1]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SUM]] : tensor<3xf32>) outs(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[V]], %[[N]] : f32
// CHECK: arith.addi
// CHECK: ^bb0(%[[W:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[M:.*]] = arith.constant 3 : i32
// CHECK-NEXT: arith.divsi %[[W]], %[[M]] : i32
func.func @reduce_mean(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>) -> (tensor<3xf32>, tensor<2xi32>) {
  %0 = infc.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = infc.reduce_mean %i {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  return %0, %1 : tensor<3xf32>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func @reduce_max_min_prod
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: arith.maximumf
// CHECK: %[[IMAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[IMAX]] : i32)
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.minsi
// CHECK: %[[IMIN:.*]] = arith.constant -128 : i8
// CHECK: linalg.fill ins(%[[IMIN]] : i8)
// CHECK: arith.maxsi
// CHECK: %[[POSINF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[POSINF]] : f32)
// CHECK: arith.minimumf
// CHECK: %[[IONE:.*]] = arith.constant 1 : i32
// CHECK: linalg.fill ins(%[[IONE]] : i32)
// CHECK: arith.muli
// A full reduction yields a rank-0 tensor.
// CHECK: %[[FONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[FONE]] : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: iterator_types = ["reduction", "reduction"]
// CHECK: arith.mulf
func.func @reduce_max_min_prod(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %b: tensor<2x3xi8>)
    -> (tensor<2xf32>, tensor<3xi32>, tensor<2xi8>, tensor<2xf32>, tensor<2xi32>, tensor<f32>) {
  %0 = infc.reduce_max %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = infc.reduce_min %i {axes = array<i64: 0>, keepdims = false} : (tensor<2x3xi32>) -> tensor<3xi32>
  %2 = infc.reduce_max %b {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi8>) -> tensor<2xi8>
  %3 = infc.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %4 = infc.reduce_prod %i {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  %5 = infc.reduce_prod %x {axes = array<i64: 0, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<f32>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<3xi32>, tensor<2xi8>, tensor<2xf32>, tensor<2xi32>, tensor<f32>
}

// -----

// softmax: exp(x - max) / sum(exp(x - max)), the max and sum broadcast back along the axis.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[MAXACC:.*]] = linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x3xf32>) outs(%[[MAXACC]] : tensor<2xf32>)
// CHECK: arith.maximumf
// CHECK: %[[MAXK:.*]] = tensor.expand_shape %[[MAX]] {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xf32> into tensor<2x1xf32>
// CHECK: %[[E:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$BCAST]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAXK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: linalg.yield %[[EXP]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUMACC:.*]] = linalg.fill ins(%[[ZERO]] : f32)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]} ins(%[[E]] : tensor<2x3xf32>) outs(%[[SUMACC]] : tensor<2xf32>)
// CHECK: arith.addf
// CHECK: %[[SUMK:.*]] = tensor.expand_shape %[[SUM]]
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$BCAST]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[E]], %[[SUMK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK: arith.divf
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = infc.softmax %x {axis = 1 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Softmax along a leading axis reduces dim 0.
// CHECK-LABEL: func @softmax_axis0
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
func.func @softmax_axis0(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = infc.softmax %x {axis = 0 : i64} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// arg_max: one generic reducing `axis` into two accumulators, the best value (from -inf) and
// its index (from 0). A strict compare keeps the first maximum; a NaN wins over numbers, and
// the first NaN stays. keepdims re-expands the index.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @arg_max
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[BEST:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: %[[IDX:.*]] = linalg.fill ins(%[[ZERO]] : i64) outs(%{{.*}} : tensor<2xi64>)
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%[[X]] : tensor<2x3xf32>) outs(%[[BEST]], %[[IDX]] : tensor<2xf32>, tensor<2xi64>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[B:.*]]: f32, %[[I:.*]]: i64):
// CHECK-NEXT: %[[POS:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[POS64:.*]] = arith.index_cast %[[POS]] : index to i64
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ogt, %[[V]], %[[B]] : f32
// CHECK-NEXT: %[[VNAN:.*]] = arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK-NEXT: %[[BORD:.*]] = arith.cmpf ord, %[[B]], %[[B]] : f32
// CHECK-NEXT: %[[NEWNAN:.*]] = arith.andi %[[VNAN]], %[[BORD]] : i1
// CHECK-NEXT: %[[TAKE:.*]] = arith.ori %[[GT]], %[[NEWNAN]] : i1
// CHECK-NEXT: %[[NB:.*]] = arith.select %[[TAKE]], %[[V]], %[[B]] : f32
// CHECK-NEXT: %[[NI:.*]] = arith.select %[[TAKE]], %[[POS64]], %[[I]] : i64
// CHECK-NEXT: linalg.yield %[[NB]], %[[NI]] : f32, i64
// CHECK: %[[K:.*]] = tensor.expand_shape %[[R]]#1 {{\[}}[0, 1]] output_shape [2, 1] : tensor<2xi64> into tensor<2x1xi64>
// CHECK: return %[[K]]
func.func @arg_max(%x: tensor<2x3xf32>) -> tensor<2x1xi64> {
  %0 = infc.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return %0 : tensor<2x1xi64>
}

// -----

// arg_min on integers from the type's maximum; select_last_index makes the compare
// non-strict, so a later equal minimum replaces the earlier one.
// CHECK-LABEL: func @arg_min_last
// CHECK: %[[MAX:.*]] = arith.constant 127 : i8
// CHECK: linalg.fill ins(%[[MAX]] : i8)
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK: linalg.index 0 : index
// CHECK: %[[LE:.*]] = arith.cmpi sle, %{{.*}}, %{{.*}} : i8
// CHECK: arith.select %[[LE]]
// CHECK: return %[[R]]#1 : tensor<3xi64>
func.func @arg_min_last(%x: tensor<2x3xi8>) -> tensor<3xi64> {
  %0 = infc.arg_min %x {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xi8>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// layer_norm: mean and biased variance over [axis, rank) as sums times 1/4, then
// (x - mean) / sqrt(var + eps) * scale + bias.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$BCAST:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$TRAIL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>, %[[SCALE:.*]]: tensor<4xf32>, %[[BIAS:.*]]: tensor<4xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<2x4xf32>)
// CHECK: %[[INV:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-NEXT: %[[MEAN:.*]] = arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK: %[[C:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$BCAST]], #[[$ID2]]], {{.*}} ins(%[[X]], %{{.*}} : tensor<2x4xf32>, tensor<2x1xf32>)
// CHECK: arith.subf
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[C]] : tensor<2x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.mulf %[[V]], %[[V]] : f32
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[SQ]] : tensor<2x4xf32>)
// CHECK: %[[VAR:.*]] = linalg.generic
// CHECK: arith.constant 2.500000e-01 : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$BCAST]], #[[$TRAIL]], #[[$TRAIL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME: ins(%[[C]], %[[VAR]], %[[SCALE]], %[[BIAS]] : tensor<2x4xf32>, tensor<2x1xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[XC:.*]]: f32, %[[XV:.*]]: f32, %[[XS:.*]]: f32, %[[XB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[XV]], %[[EPS]] : f32
// CHECK-NEXT: %[[SD:.*]] = math.sqrt %[[VE]] : f32
// CHECK-NEXT: %[[N:.*]] = arith.divf %[[XC]], %[[SD]] : f32
// CHECK-NEXT: %[[NS:.*]] = arith.mulf %[[N]], %[[XS]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[NS]], %[[XB]] : f32
// CHECK-NEXT: linalg.yield %[[Y]]
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<2x4xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %0 = infc.layer_norm %x, %s, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Without a bias the last step has no add; normalizing two dims counts 3 * 4 = 12 elements.
// CHECK-LABEL: func @layer_norm_no_bias
// CHECK: iterator_types = ["parallel", "reduction", "reduction"]
// CHECK: arith.constant 0.0833333358 : f32
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %[[XS:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[NS:.*]] = arith.mulf %{{.*}}, %[[XS]] : f32
// CHECK-NEXT: linalg.yield %[[NS]]
func.func @layer_norm_no_bias(%x: tensor<2x3x4xf32>, %s: tensor<3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = infc.layer_norm %x, %s {axis = 1 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
