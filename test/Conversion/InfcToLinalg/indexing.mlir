// RUN: infc-opt %s -convert-infc-to-linalg -split-input-file | FileCheck %s

// pad, cumsum, scatter and topk.

// constant mode is a tensor.pad yielding the run-time value (zero without one).
// CHECK-LABEL: func @pad_constant
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>, %[[V:[a-z0-9_]+]]: tensor<f32>, %[[I:[a-z0-9_]+]]: tensor<2x3xi32>)
// CHECK: %[[E:[a-z0-9_]+]] = tensor.extract %[[V]][] : tensor<f32>
// CHECK: tensor.pad %[[X]] low[1, 0] high[0, 2]
// CHECK: tensor.yield %[[E]] : f32
// CHECK: %[[Z:[a-z0-9_]+]] = arith.constant 0 : i32
// CHECK: tensor.pad %[[I]] low[1, 0] high[0, 0]
// CHECK: tensor.yield %[[Z]] : i32
func.func @pad_constant(%x: tensor<2x3xf32>, %v: tensor<f32>, %i: tensor<2x3xi32>) -> (tensor<3x5xf32>, tensor<3x3xi32>) {
  %0 = infc.pad %x, %v {high = array<i64: 0, 2>, low = array<i64: 1, 0>, mode = "constant"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  %1 = infc.pad %i {high = array<i64: 0, 0>, low = array<i64: 1, 0>, mode = "constant"} : (tensor<2x3xi32>) -> tensor<3x3xi32>
  return %0, %1 : tensor<3x5xf32>, tensor<3x3xi32>
}

// -----

// The other modes read the input through an index computed per padded dim; unpadded dims
// read straight through.
// CHECK-LABEL: func @pad_modes
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3xf32>)
// reflect: j = i - low, r = j mod 2(n-1), r >= n ? 2(n-1) - r : r
// CHECK: linalg.generic
// CHECK: %[[R0:[a-z0-9_]+]] = linalg.index 0 : index
// CHECK: %[[R1:[a-z0-9_]+]] = linalg.index 1 : index
// CHECK: %[[J:[a-z0-9_]+]] = arith.subi %[[R1]], %{{.*}} : index
// CHECK: arith.remsi %[[J]], %{{.*}} : index
// CHECK: %[[UP:[a-z0-9_]+]] = arith.cmpi sge
// CHECK: %[[M:[a-z0-9_]+]] = arith.subi
// CHECK: %[[S:[a-z0-9_]+]] = arith.select %[[UP]], %[[M]]
// CHECK: tensor.extract %[[X]][%[[R0]], %[[S]]] : tensor<2x3xf32>
// edge: clamp(i - low, 0, n - 1)
// CHECK: linalg.generic
// CHECK: arith.minsi
// CHECK: %[[C:[a-z0-9_]+]] = arith.maxsi
// CHECK: %[[E1:[a-z0-9_]+]] = linalg.index 1 : index
// CHECK: tensor.extract %[[X]][%[[C]], %[[E1]]] : tensor<2x3xf32>
// wrap: (i - low) mod n, made non-negative
// CHECK: linalg.generic
// CHECK: arith.remsi
// CHECK: %[[W:[a-z0-9_]+]] = arith.select
// CHECK: tensor.extract %[[X]][%{{.*}}, %[[W]]] : tensor<2x3xf32>
func.func @pad_modes(%x: tensor<2x3xf32>) -> (tensor<2x7xf32>, tensor<4x3xf32>, tensor<2x6xf32>) {
  %0 = infc.pad %x {high = array<i64: 0, 2>, low = array<i64: 0, 2>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<2x7xf32>
  %1 = infc.pad %x {high = array<i64: 1, 0>, low = array<i64: 1, 0>, mode = "edge"} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %2 = infc.pad %x {high = array<i64: 0, 3>, low = array<i64: 0, 0>, mode = "wrap"} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %0, %1, %2 : tensor<2x7xf32>, tensor<4x3xf32>, tensor<2x6xf32>
}

// -----

// cumsum runs on [outer, n, inner] (here the input itself): row i = row prev (already written) + input row; the first
// row is the input row (or zero when exclusive).
// CHECK-LABEL: func @cumsum
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<2x3x4xf32>)
// CHECK: scf.for %[[O:[a-z0-9_]+]] = {{.*}} iter_args(%[[A0:[a-z0-9_]+]] = %{{.*}}) -> (tensor<2x3x4xf32>)
// CHECK: scf.for %[[S:[a-z0-9_]+]] = {{.*}} iter_args(%[[A1:[a-z0-9_]+]] = %[[A0]])
// CHECK: scf.for %[[Q:[a-z0-9_]+]] = {{.*}} iter_args(%[[A2:[a-z0-9_]+]] = %[[A1]])
// CHECK: %[[XI:[a-z0-9_]+]] = tensor.extract %[[X]][%[[O]], %{{.*}}, %[[Q]]]
// CHECK: %[[XP:[a-z0-9_]+]] = tensor.extract %[[X]][%[[O]], %{{.*}}, %[[Q]]]
// CHECK: %[[SP:[a-z0-9_]+]] = tensor.extract %[[A2]][%[[O]], %{{.*}}, %[[Q]]]
// CHECK: %[[SUM:[a-z0-9_]+]] = arith.addf %[[SP]], %[[XP]] : f32
// CHECK: %[[V:[a-z0-9_]+]] = arith.select %{{.*}}, %{{.*}}, %[[SUM]] : f32
// CHECK: tensor.insert %[[V]] into %[[A2]]
func.func @cumsum(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
  %0 = infc.cumsum %x {axis = 1 : i64, exclusive = true, reverse = true} : tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// scatter: a loop nest over the indices carrying the result (initially the data); negative
// indices wrap, then clamp into the dim, so no write leaves the tensor.
// CHECK-LABEL: func @scatter
// CHECK-SAME: (%[[D:[a-z0-9_]+]]: tensor<4x5xf32>, %[[I:[a-z0-9_]+]]: tensor<2x5xi32>, %[[U:[a-z0-9_]+]]: tensor<2x5xf32>)
// CHECK: scf.for %[[P0:[a-z0-9_]+]] = {{.*}} iter_args(%[[A0:[a-z0-9_]+]] = %[[D]]) -> (tensor<4x5xf32>)
// CHECK: scf.for %[[P1:[a-z0-9_]+]] = {{.*}} iter_args(%[[A1:[a-z0-9_]+]] = %[[A0]]) -> (tensor<4x5xf32>)
// CHECK: %[[RAW:[a-z0-9_]+]] = tensor.extract %[[I]][%[[P0]], %[[P1]]] : tensor<2x5xi32>
// CHECK: %[[IDX:[a-z0-9_]+]] = arith.index_cast %[[RAW]] : i32 to index
// CHECK: %[[NEG:[a-z0-9_]+]] = arith.cmpi slt, %[[IDX]]
// CHECK: %[[WRAPPED:[a-z0-9_]+]] = arith.select %[[NEG]]
// CHECK: %[[HI:[a-z0-9_]+]] = arith.minsi %[[WRAPPED]]
// CHECK: %[[ROW:[a-z0-9_]+]] = arith.maxsi %[[HI]]
// CHECK: %[[UPD:[a-z0-9_]+]] = tensor.extract %[[U]][%[[P0]], %[[P1]]] : tensor<2x5xf32>
// CHECK: %[[OLD:[a-z0-9_]+]] = tensor.extract %[[A1]][%[[ROW]], %[[P1]]] : tensor<4x5xf32>
// CHECK: %[[NEW:[a-z0-9_]+]] = arith.maximumf %[[OLD]], %[[UPD]] : f32
// CHECK: tensor.insert %[[NEW]] into %[[A1]][%[[ROW]], %[[P1]]] : tensor<4x5xf32>
func.func @scatter(%d: tensor<4x5xf32>, %i: tensor<2x5xi32>, %u: tensor<2x5xf32>) -> tensor<4x5xf32> {
  %0 = infc.scatter %d, %i, %u {axis = 0 : i64, reduction = "max"} : (tensor<4x5xf32>, tensor<2x5xi32>, tensor<2x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Without a reduction the update is stored as is; on i1, add is `or`.
// CHECK-LABEL: func @scatter_kinds
// CHECK: scf.for
// CHECK-NOT: arith.addf
// CHECK: tensor.insert
// CHECK: scf.for
// CHECK: arith.ori %{{.*}}, %{{.*}} : i1
// CHECK: tensor.insert
func.func @scatter_kinds(%d: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>, %b: tensor<4xi1>, %c: tensor<2xi1>) -> (tensor<4xf32>, tensor<4xi1>) {
  %0 = infc.scatter %d, %i, %u {axis = 0 : i64, reduction = "none"} : (tensor<4xf32>, tensor<2xi64>, tensor<2xf32>) -> tensor<4xf32>
  %1 = infc.scatter %b, %i, %c {axis = 0 : i64, reduction = "add"} : (tensor<4xi1>, tensor<2xi64>, tensor<2xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<4xf32>, tensor<4xi1>
}

// -----

// topk: each element, in index order, bubbles through the k slots. It takes slot p when the
// slot is still empty (p >= j), or it is ahead (smaller here), or equal with a lower index.
// CHECK-LABEL: func @topk
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: tensor<3x5xi32>)
// CHECK: %[[IN:[a-z0-9_]+]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [3, 5, 1]
// CHECK: %[[V0:[a-z0-9_]+]] = linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<3x2x1xi32>)
// CHECK: %[[I0:[a-z0-9_]+]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<3x2x1xi64>)
// CHECK: scf.for %[[O:[a-z0-9_]+]] = {{.*}} iter_args(%{{.*}} = %[[V0]], %{{.*}} = %[[I0]])
// CHECK: scf.for %[[Q:[a-z0-9_]+]] =
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK: %[[CV:[a-z0-9_]+]] = tensor.extract %[[IN]][%[[O]], %[[J]], %[[Q]]]
// CHECK: scf.for %[[P:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[VS:[a-z0-9_]+]] = %{{.*}}, %[[IS:[a-z0-9_]+]] = %{{.*}}, %[[C:[a-z0-9_]+]] = %[[CV]], %[[CI:[a-z0-9_]+]] = %{{.*}})
// CHECK: %[[BV:[a-z0-9_]+]] = tensor.extract %[[VS]][%[[O]], %[[P]], %[[Q]]]
// CHECK: %[[BI:[a-z0-9_]+]] = tensor.extract %[[IS]][%[[O]], %[[P]], %[[Q]]]
// CHECK: %[[AHEAD:[a-z0-9_]+]] = arith.cmpi slt, %[[C]], %[[BV]] : i32
// CHECK: %[[EQ:[a-z0-9_]+]] = arith.cmpi eq, %[[C]], %[[BV]] : i32
// CHECK: %[[LOWER:[a-z0-9_]+]] = arith.cmpi slt, %[[CI]], %[[BI]] : i64
// CHECK: %[[TIE:[a-z0-9_]+]] = arith.andi %[[EQ]], %[[LOWER]] : i1
// CHECK: %[[BETTER:[a-z0-9_]+]] = arith.ori %[[AHEAD]], %[[TIE]] : i1
// CHECK: %[[EMPTY:[a-z0-9_]+]] = arith.cmpi sge, %[[P]], %[[J]] : index
// CHECK: %[[SWAP:[a-z0-9_]+]] = arith.ori %[[EMPTY]], %[[BETTER]] : i1
// CHECK: %[[NV:[a-z0-9_]+]] = arith.select %[[SWAP]], %[[C]], %[[BV]] : i32
// CHECK: %[[NI:[a-z0-9_]+]] = arith.select %[[SWAP]], %[[CI]], %[[BI]] : i64
// CHECK: tensor.insert %[[NV]] into %[[VS]][%[[O]], %[[P]], %[[Q]]]
// CHECK: tensor.insert %[[NI]] into %[[IS]][%[[O]], %[[P]], %[[Q]]]
// CHECK: %[[NC:[a-z0-9_]+]] = arith.select %[[SWAP]], %[[BV]], %[[C]] : i32
// CHECK: %[[NCI:[a-z0-9_]+]] = arith.select %[[SWAP]], %[[BI]], %[[CI]] : i64
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[NC]], %[[NCI]]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<3x2x1xi32> into tensor<3x2xi32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<3x2x1xi64> into tensor<3x2xi64>
func.func @topk(%x: tensor<3x5xi32>) -> (tensor<3x2xi32>, tensor<3x2xi64>) {
  %0:2 = infc.topk %x {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<3x5xi32> -> tensor<3x2xi32>, tensor<3x2xi64>
  return %0#0, %0#1 : tensor<3x2xi32>, tensor<3x2xi64>
}
