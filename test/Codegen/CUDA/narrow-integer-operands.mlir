// RUN: infc-opt %s -infc-narrow-integer-operands -canonicalize -split-input-file | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>

// Signed bytes times a constant in the s8 range: both read as i8 and sign-extended in the
// payload; the widening op and the i32 constant are gone.
// CHECK-LABEL: func.func @signed_bytes
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xi8>)
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{\[}}[1, -2], [127, -128], [0, 5]]> : tensor<3x2xi8>
// CHECK-NOT: tensor<4x3xi32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[W]] : tensor<4x3xi8>, tensor<3x2xi8>) outs(%{{.*}} : tensor<4x2xi32>)
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[ACC:.*]]: i32):
// CHECK-DAG: %[[AW:.*]] = arith.extsi %[[A]] : i8 to i32
// CHECK-DAG: %[[BW:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK: %[[P:.*]] = arith.muli %[[AW]], %[[BW]] : i32
// CHECK: arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NOT: linalg.generic
func.func @signed_bytes(%x: tensor<4x3xi8>) -> tensor<4x2xi32> {
  %e = tensor.empty() : tensor<4x3xi32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x3xi8>) outs(%e : tensor<4x3xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extsi %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<4x3xi32>
  %w = arith.constant dense<[[1, -2], [127, -128], [0, 5]]> : tensor<3x2xi32>
  %zero = arith.constant 0 : i32
  %o = tensor.empty() : tensor<4x2xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%o : tensor<4x2xi32>) -> tensor<4x2xi32>
  %y = linalg.matmul ins(%wide, %w : tensor<4x3xi32>, tensor<3x2xi32>) outs(%acc : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %y : tensor<4x2xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Unsigned bytes (reshaped from [2, 2, 3] first) times signed constant weights: the bytes
// zero-extended, the weights sign-extended in the payload (mma.sync multiplies u8 x s8 as
// it is), nothing added after the product.
// CHECK-LABEL: func.func @unsigned_bytes
// CHECK-SAME: (%[[X:.*]]: tensor<2x2x3xi8>)
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x2x3xi8> into tensor<4x3xi8>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}} : tensor<4x3xi8>, tensor<3x2xi8>)
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %{{.*}}: i32):
// CHECK-DAG: arith.extui %[[A]] : i8 to i32
// CHECK-DAG: arith.extsi %[[B]] : i8 to i32
// CHECK-NOT: arith.xori
// CHECK: return %[[Y]]
func.func @unsigned_bytes(%x: tensor<2x2x3xi8>) -> tensor<4x2xi32> {
  %e = tensor.empty() : tensor<2x2x3xi32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<2x2x3xi8>) outs(%e : tensor<2x2x3xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extui %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<2x2x3xi32>
  %rows = tensor.collapse_shape %wide [[0, 1], [2]] : tensor<2x2x3xi32> into tensor<4x3xi32>
  %w = arith.constant dense<[[1, -2], [127, -128], [0, 5]]> : tensor<3x2xi32>
  %zero = arith.constant 0 : i32
  %o = tensor.empty() : tensor<4x2xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%o : tensor<4x2xi32>) -> tensor<4x2xi32>
  %y = linalg.matmul ins(%rows, %w : tensor<4x3xi32>, tensor<3x2xi32>) outs(%acc : tensor<4x2xi32>) -> tensor<4x2xi32>
  return %y : tensor<4x2xi32>
}

// -----

// A convolution of unsigned bytes: the generalized conv reads the bytes and the i8 filters.
// CHECK-LABEL: func.func @conv
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>)
// CHECK: ^bb0(%[[X:.*]]: i8, %[[W:.*]]: i8, %{{.*}}: i32):
// CHECK-DAG: arith.extui %[[X]] : i8 to i32
// CHECK-DAG: arith.extsi %[[W]] : i8 to i32
// CHECK-NOT: linalg.generic
// CHECK: return %[[P]]
func.func @conv(%x: tensor<1x1x3x3xi8>) -> tensor<1x2x2x2xi32> {
  %e = tensor.empty() : tensor<1x1x3x3xi32>
  %wide = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x1x3x3xi8>) outs(%e : tensor<1x1x3x3xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extui %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<1x1x3x3xi32>
  %w = arith.constant dense<[[[[1, 1], [1, 1]]], [[[-1, -1], [-1, -1]]]]> : tensor<2x1x2x2xi32>
  %zero = arith.constant 0 : i32
  %o = tensor.empty() : tensor<1x2x2x2xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%o : tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%wide, %w : tensor<1x1x3x3xi32>, tensor<2x1x2x2xi32>) outs(%acc : tensor<1x2x2x2xi32>) -> tensor<1x2x2x2xi32>
  return %y : tensor<1x2x2x2xi32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// A constant outside the s8 range stays i32 (the bytes still narrow); two i32 activations
// stay a matmul.
// CHECK-LABEL: func.func @wide_constant
// CHECK: %[[W:.*]] = arith.constant dense<{{\[}}[200], [1]]> : tensor<2x1xi32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<3x2xi8>, tensor<2x1xi32>)
// CHECK: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.extui %[[A]] : i8 to i32
// CHECK-NOT: arith.xori
// CHECK-LABEL: func.func @no_bytes
// CHECK: linalg.matmul
func.func @wide_constant(%x: tensor<3x2xi8>) -> tensor<3x1xi32> {
  %e = tensor.empty() : tensor<3x2xi32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x2xi8>) outs(%e : tensor<3x2xi32>) {
  ^bb0(%in: i8, %out: i32):
    %v = arith.extui %in : i8 to i32
    linalg.yield %v : i32
  } -> tensor<3x2xi32>
  %w = arith.constant dense<[[200], [1]]> : tensor<2x1xi32>
  %zero = arith.constant 0 : i32
  %o = tensor.empty() : tensor<3x1xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%o : tensor<3x1xi32>) -> tensor<3x1xi32>
  %y = linalg.matmul ins(%wide, %w : tensor<3x2xi32>, tensor<2x1xi32>) outs(%acc : tensor<3x1xi32>) -> tensor<3x1xi32>
  return %y : tensor<3x1xi32>
}

func.func @no_bytes(%a: tensor<3x2xi32>, %b: tensor<2x1xi32>) -> tensor<3x1xi32> {
  %zero = arith.constant 0 : i32
  %o = tensor.empty() : tensor<3x1xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%o : tensor<3x1xi32>) -> tensor<3x1xi32>
  %y = linalg.matmul ins(%a, %b : tensor<3x2xi32>, tensor<2x1xi32>) outs(%acc : tensor<3x1xi32>) -> tensor<3x1xi32>
  return %y : tensor<3x1xi32>
}
