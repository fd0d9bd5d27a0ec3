// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// Constants, shapes, reshapes, broadcasts, transposes, concats, slices and gathers.

// A surviving infc.shape is still a constant: shapes are static.
// CHECK-LABEL: func @constant_and_shape
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[S:.*]] = arith.constant dense<[2, 3]> : tensor<2xi64>
// CHECK-NOT: infc.
// CHECK: return %[[C]], %[[S]]
func.func @constant_and_shape(%x: tensor<2x3xf32>) -> (tensor<2xf32>, tensor<2xi64>) {
  %c = infc.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = infc.shape %x : tensor<2x3xf32> -> tensor<2xi64>
  return %c, %s : tensor<2xf32>, tensor<2xi64>
}

// -----

// Reshapes that merge or split adjacent dims are one collapse/expand_shape; others go through
// a 1-D tensor; rank 0 has an empty reassociation. A reshape of a reshape reads the first
// one's input (here back to the same type: the input itself).
// CHECK-LABEL: func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>, %[[S:.*]]: tensor<f32>, %[[Y:.*]]: tensor<6x4xf32>)
// CHECK: %[[R0:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK: %[[R1:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[Y]] {{\[}}[0, 1]] : tensor<6x4xf32> into tensor<24xf32>
// CHECK: %[[R2:.*]] = tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
// CHECK: %[[R3:.*]] = tensor.expand_shape %[[S]] [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK: %[[R5:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2, 3]] output_shape [2, 3, 2, 2] : tensor<2x3x4xf32> into tensor<2x3x2x2xf32>
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[S]], %[[R5]]
func.func @reshape(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %y: tensor<6x4xf32>)
    -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<f32>, tensor<2x3x2x2xf32>) {
  %0 = infc.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = infc.reshape %x : tensor<2x3x4xf32> -> tensor<2x12xf32>
  %2 = infc.reshape %y : tensor<6x4xf32> -> tensor<4x6xf32>
  %3 = infc.reshape %s : tensor<f32> -> tensor<1x1xf32>
  %4 = infc.reshape %3 : tensor<1x1xf32> -> tensor<f32>
  %5 = infc.reshape %x : tensor<2x3x4xf32> -> tensor<2x3x2x2xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<6x4xf32>, tensor<2x12xf32>, tensor<4x6xf32>, tensor<1x1xf32>, tensor<f32>, tensor<2x3x2x2xf32>
}

// -----

// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$IN]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]] : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @broadcast(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = infc.broadcast %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = infc.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// Each input is inserted at the running offset along the axis.
// CHECK-LABEL: func @concat
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[Y:.*]]: tensor<2x5xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x11xf32>
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[X]] into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x11xf32>
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[Y]] into %[[I0]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x11xf32>
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[X]] into %[[I1]][0, 8] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x11xf32>
// CHECK: return %[[I2]]
func.func @concat(%x: tensor<2x3xf32>, %y: tensor<2x5xf32>) -> tensor<2x11xf32> {
  %0 = infc.concat %x, %y, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>, tensor<2x3xf32>) -> tensor<2x11xf32>
  return %0 : tensor<2x11xf32>
}

// -----

// CHECK-LABEL: func @concat_axis0
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0] [1, 3] [1, 1] : tensor<1x3xi64> into tensor<3x3xi64>
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[1, 0] [2, 3] [1, 1] : tensor<2x3xi64> into tensor<3x3xi64>
func.func @concat_axis0(%x: tensor<1x3xi64>, %y: tensor<2x3xi64>) -> tensor<3x3xi64> {
  %0 = infc.concat %x, %y {axis = 0 : i64} : (tensor<1x3xi64>, tensor<2x3xi64>) -> tensor<3x3xi64>
  return %0 : tensor<3x3xi64>
}

// -----

// Positive steps: one strided extract_slice.
// CHECK-LABEL: func @slice_positive_steps
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 3] [1, 2] : tensor<4x6xf32> to tensor<2x3xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[S]]
func.func @slice_positive_steps(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %0 = infc.slice %x {offsets = array<i64: 1, 0>, sizes = array<i64: 2, 3>, steps = array<i64: 1, 2>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A negative step reads input[offset + i * step] through linalg.index.
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func @slice_negative_steps
// CHECK-SAME: (%[[X:.*]]: tensor<4x6xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]]], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[I0:.*]] = linalg.index 0 : index
// CHECK-DAG: %[[STEP0:.*]] = arith.constant -2 : index
// CHECK-DAG: %[[OFF0:.*]] = arith.constant 3 : index
// CHECK: %[[M0:.*]] = arith.muli %[[I0]], %[[STEP0]] : index
// CHECK: %[[A0:.*]] = arith.addi %[[OFF0]], %[[M0]] : index
// CHECK: %[[I1:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[STEP1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[OFF1:.*]] = arith.constant 2 : index
// CHECK: %[[M1:.*]] = arith.muli %[[I1]], %[[STEP1]] : index
// CHECK: %[[A1:.*]] = arith.addi %[[OFF1]], %[[M1]] : index
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[A0]], %[[A1]]] : tensor<4x6xf32>
// CHECK: linalg.yield %[[E]] : f32
func.func @slice_negative_steps(%x: tensor<4x6xf32>) -> tensor<2x3xf32> {
  %0 = infc.slice %x {offsets = array<i64: 3, 2>, sizes = array<i64: 2, 3>, steps = array<i64: -2, 1>} : (tensor<4x6xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// gather along axis 1 with 2-D indices: result[i, j, k] = data[i, clamp(wrap(idx[j, k]))].
// Negative indices wrap once, then the index is clamped into [0, 3].
// CHECK-DAG: #[[$IDX:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @gather
// CHECK-SAME: (%[[DATA:.*]]: tensor<5x4xf32>, %[[IND:.*]]: tensor<2x3xi64>)
// CHECK: linalg.generic {indexing_maps = [#[[$IDX]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[IND]] : tensor<2x3xi64>) outs(%{{.*}} : tensor<5x2x3xf32>)
// CHECK-NEXT: ^bb0(%[[RAW:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[RAW]] : i64 to index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[SIZE:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[MAX:.*]] = arith.constant 3 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[ZERO]] : index
// CHECK: %[[WRAPPED:.*]] = arith.addi %[[I]], %[[SIZE]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAPPED]], %[[I]] : index
// CHECK: %[[LO:.*]] = arith.minsi %[[SEL]], %[[MAX]] : index
// CHECK: %[[CL:.*]] = arith.maxsi %[[LO]], %[[ZERO]] : index
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[V:.*]] = tensor.extract %[[DATA]][%[[D0]], %[[CL]]] : tensor<5x4xf32>
// CHECK: linalg.yield %[[V]] : f32
func.func @gather(%x: tensor<5x4xf32>, %i: tensor<2x3xi64>) -> tensor<5x2x3xf32> {
  %0 = infc.gather %x, %i {axis = 1 : i64} : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<5x2x3xf32>
  return %0 : tensor<5x2x3xf32>
}

// -----

// A rank-0 i32 index along axis 0 of a rank-3 tensor: the later dims shift down by one.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func @gather_scalar_index
// CHECK-SAME: (%[[DATA:.*]]: tensor<5x4x3xf32>, %[[IND:.*]]: tensor<i32>)
// CHECK: linalg.generic {indexing_maps = [#[[$SCALAR]], #{{.*}}]
// CHECK-SAME: ins(%[[IND]] : tensor<i32>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK-DAG: arith.constant 5 : index
// CHECK-DAG: arith.constant 4 : index
// CHECK: %[[CL:.*]] = arith.maxsi
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: tensor.extract %[[DATA]][%[[CL]], %[[D0]], %[[D1]]] : tensor<5x4x3xf32>
func.func @gather_scalar_index(%x: tensor<5x4x3xf32>, %i: tensor<i32>) -> tensor<4x3xf32> {
  %0 = infc.gather %x, %i {axis = 0 : i64} : (tensor<5x4x3xf32>, tensor<i32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// A middle axis with 2-D indices: the dims after the axis shift up by one.
// CHECK-DAG: #[[$IDX:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2)>
// CHECK-LABEL: func @gather_middle_axis
// CHECK-SAME: (%[[DATA:.*]]: tensor<5x4x3xf16>, %[[IND:.*]]: tensor<2x6xi32>)
// CHECK: linalg.generic {indexing_maps = [#[[$IDX]], #{{.*}}]
// CHECK-SAME: outs(%{{.*}} : tensor<5x2x6x3xf16>)
// CHECK: %[[CL:.*]] = arith.maxsi
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D3:.*]] = linalg.index 3 : index
// CHECK: tensor.extract %[[DATA]][%[[D0]], %[[CL]], %[[D3]]] : tensor<5x4x3xf16>
func.func @gather_middle_axis(%x: tensor<5x4x3xf16>, %i: tensor<2x6xi32>) -> tensor<5x2x6x3xf16> {
  %0 = infc.gather %x, %i {axis = 1 : i64} : (tensor<5x4x3xf16>, tensor<2x6xi32>) -> tensor<5x2x6x3xf16>
  return %0 : tensor<5x2x6x3xf16>
}
