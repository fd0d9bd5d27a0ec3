// RUN: infc-opt %s -infc-bound-dynamic-entry -split-input-file -verify-diagnostics | FileCheck %s

// An entry with symbolic dims (`infc compile --dim`) takes their sizes as a leading
// memref<K x i64> (the dims in the order the inputs' infc.dims first name them); each
// dynamic argument becomes a flat static buffer at its bound, reinterpreted densely at the
// run's sizes (a size clamped to its bound by affine.min); an output takes the sizes of the
// buffer copied into it. Dims of the arguments become the sizes.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[DIMS:.*]]: memref<1xi64> {infc.dims_arg}, %[[X:.*]]: memref<128xf32> {infc.dims = ["batch", ""], infc.name = "x"}, %[[Y:.*]]: memref<64xf32>)
// CHECK: %[[V:.*]] = memref.load %[[DIMS]][%{{.*}}] : memref<1xi64>
// CHECK: %[[I:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[N:.*]] = affine.min #{{.*}}(%[[I]])
// CHECK: %[[XV:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[N]], 4], strides: [4, 1] : memref<128xf32> to memref<?x4xf32>
// CHECK: %[[A:.*]] = memref.alloc(%[[N]]) : memref<?x2xf32>
// CHECK: linalg.generic {{.*}} ins(%[[XV]] : memref<?x4xf32>) outs(%[[A]] : memref<?x2xf32>)
// CHECK: %[[YV:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [%{{.*}}, 2], strides: [2, 1] : memref<64xf32> to memref<?x2xf32>
// CHECK: memref.copy %[[A]], %[[YV]]
module attributes {infc.dim_ranges = {batch = array<i64: 1, 32>}} {
  func.func @main(%x: memref<?x4xf32> {infc.name = "x", infc.dims = ["batch", ""]}, %y: memref<?x2xf32>) {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?x4xf32>
    %a = memref.alloc(%n) : memref<?x2xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : memref<?x4xf32>) outs(%a : memref<?x2xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
    memref.copy %a, %y : memref<?x2xf32> to memref<?x2xf32>
    return
  }
}

// -----

// A dim of no largest size (`infc compile` with no flag for it: the range's maximum is
// INT64_MAX): no clamp, and the arguments' flat types are nominal, 2^47 bytes of elements
// (2^43 rows of 4 f32 for x, of 2 for y), carrying the bare pointer only.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[DIMS:.*]]: memref<1xi64> {infc.dims_arg}, %[[X:.*]]: memref<8796093022208xf32> {infc.dims = ["batch", ""], infc.name = "x"}, %[[Y:.*]]: memref<17592186044416xf32>)
// CHECK: %[[V:.*]] = memref.load %[[DIMS]][%{{.*}}] : memref<1xi64>
// CHECK: %[[I:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK-NOT: affine.min
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[I]], 4], strides: [4, 1] : memref<8796093022208xf32> to memref<?x4xf32>
module attributes {infc.dim_ranges = {batch = array<i64: 1, 9223372036854775807>}} {
  func.func @main(%x: memref<?x4xf32> {infc.name = "x", infc.dims = ["batch", ""]}, %y: memref<?x2xf32>) {
    %c0 = arith.constant 0 : index
    %n = memref.dim %x, %c0 : memref<?x4xf32>
    %a = memref.alloc(%n) : memref<?x2xf32>
    memref.copy %a, %y : memref<?x2xf32> to memref<?x2xf32>
    return
  }
}

// -----

// A symbolic dim after a static one: the strides of the dense view are run-time values.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[DIMS:.*]]: memref<1xi64> {infc.dims_arg}, %[[X:.*]]: memref<24xf32>
// CHECK: %[[N:.*]] = affine.min
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [2, %[[N]], 3], strides: [%{{.*}}, 3, 1] : memref<24xf32> to memref<2x?x3xf32>
module attributes {infc.dim_ranges = {seq = array<i64: 1, 4>}} {
  func.func @main(%x: memref<2x?x3xf32> {infc.name = "x", infc.dims = ["", "seq", ""]}) {
    return
  }
}

// -----

// A static entry is left alone.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: memref<4xf32>)
// CHECK-NOT: infc.dims_arg
module {
  func.func @main(%x: memref<4xf32>) {
    return
  }
}

// -----

module {
  // expected-error @+1 {{infc-bound-dynamic-entry: argument 0 has a dynamic dim 0 with no named range}}
  func.func @main(%x: memref<?xf32> {infc.name = "x", infc.dims = ["batch"]}) {
    return
  }
}
