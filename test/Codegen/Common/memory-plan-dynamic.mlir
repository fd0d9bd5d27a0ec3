// RUN: infc-opt %s -infc-memory-plan -split-input-file -verify-diagnostics | FileCheck %s

// A buffer of a symbolic size (the generic code of `infc compile --dim`) takes its bytes at
// the constant upper bound of its sizes (here an affine.min clamp, and a multiple of it), and
// becomes a view of the workspace at the run's sizes. A size with no bound stays an error.

// %a: at most 16 x 2 f32 = 128 B; %b: at most 16 * 3 x 8 f32 = 1536 B; both live at once.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 1664 : i64}
// CHECK: func.func @main(%[[WS:.*]]: memref<1664xi8> {infc.workspace}, %[[D:.*]]: index
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[M:.*]] = arith.muli %[[N]], %{{.*}} : index
// CHECK: %[[B:.*]] = memref.view %[[WS]][%{{.*}}][%[[M]]] : memref<1664xi8> to memref<?x8xf32>
// CHECK: %[[A:.*]] = memref.view %[[WS]][%{{.*}}][%[[N]]] : memref<1664xi8> to memref<?x2xf32>
// CHECK-NOT: memref.alloc
func.func @main(%d: index, %out: memref<2xf32>) {
  %n = affine.min affine_map<(d0) -> (d0, 16)>(%d)
  %c3 = arith.constant 3 : index
  %m = arith.muli %n, %c3 : index
  %b = memref.alloc(%m) : memref<?x8xf32>
  %a = memref.alloc(%n) : memref<?x2xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %b[%c0, %c0] : memref<?x8xf32>
  memref.store %v, %a[%c0, %c0] : memref<?x2xf32>
  return
}

// -----

// Sizes of no largest size (the generic code of a dim no flag bounds, read from the dims
// argument without a clamp): each buffer's bytes a polynomial in the run's size, 63 bytes
// added for its offset's alignment, which is rounded up at run time; placed after the
// sized buffers (64 B here) at offsets that are polynomials too, the larger first, each at
// the coefficient-wise maximum of the ends of those live with it. %b: 3d x 8 f32 = 96d B
// (+63), at 64; %a: d x 2 f32 = 8d B (+63), at 127 + 96d rounded up to 64 (or + 63, and
// down). The workspace is 190 + 104d B at a run's d (entry 0 of the dims argument), and
// its type only carries the pointer.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 64 : i64, infc.workspace_dim = 0 : i64, infc.workspace_polynomial = array<i64: 190, 104>}
// CHECK: func.func @main(%[[WS:.*]]: memref<281474976710656xi8> {infc.workspace}, %[[DIMS:.*]]: memref<1xi64> {infc.dims_arg}
// CHECK: %[[V:.*]] = memref.load %[[DIMS]]
// CHECK: %[[D:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[M:.*]] = arith.muli %[[D]], %{{.*}} : index
// CHECK: %[[C:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<281474976710656xi8> to memref<4xf32>
// CHECK: %[[AT_B:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %[[WS]][%[[AT_B]]][%[[M]]] : memref<281474976710656xi8> to memref<?x8xf32>
// CHECK: %[[SIZE:.*]] = arith.index_cast %[[V]] : i64 to index
// CHECK: %[[BASE:.*]] = arith.constant 190 : index
// CHECK: %[[STEP:.*]] = arith.constant 96 : index
// CHECK: %[[SCALED:.*]] = arith.muli %[[SIZE]], %[[STEP]] : index
// CHECK: %[[SUM:.*]] = arith.addi %[[BASE]], %[[SCALED]] : index
// CHECK: %[[MASK:.*]] = arith.constant -64 : index
// CHECK: %[[AT_A:.*]] = arith.andi %[[SUM]], %[[MASK]] : index
// CHECK: %[[A:.*]] = memref.view %[[WS]][%[[AT_A]]][%[[D]]] : memref<281474976710656xi8> to memref<?x2xf32>
// CHECK-NOT: memref.alloc
func.func @main(%dims: memref<1xi64> {infc.dims_arg}, %out: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %v = memref.load %dims[%c0] : memref<1xi64>
  %d = arith.index_cast %v : i64 to index
  %c3 = arith.constant 3 : index
  %m = arith.muli %d, %c3 : index
  %c = memref.alloc() : memref<4xf32>
  %b = memref.alloc(%m) : memref<?x8xf32>
  %a = memref.alloc(%d) : memref<?x2xf32>
  %x = memref.load %b[%c0, %c0] : memref<?x8xf32>
  memref.store %x, %a[%c0, %c0] : memref<?x2xf32>
  %w = memref.load %a[%c0, %c0] : memref<?x2xf32>
  memref.store %w, %c[%c0] : memref<4xf32>
  return
}

// -----

// Neither a bound nor a polynomial (a division by a constant), and a size that is a plain
// argument rather than an entry of the dims argument (the runtime could not size it): errors.
func.func @main(%dims: memref<1xi64> {infc.dims_arg}) {
  %c0 = arith.constant 0 : index
  %v = memref.load %dims[%c0] : memref<1xi64>
  %d = arith.index_cast %v : i64 to index
  %c3 = arith.constant 3 : index
  %n = arith.divui %d, %c3 : index
  // expected-error @+1 {{infc-memory-plan: buffer 'memref<?xf32>' is not in the workspace}}
  %a = memref.alloc(%n) : memref<?xf32>
  %x = memref.load %a[%c0] : memref<?xf32>
  return
}

// -----

func.func @main(%d: index) {
  // expected-error @+1 {{infc-memory-plan: buffer 'memref<?xf32>' is not in the workspace}}
  %a = memref.alloc(%d) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<?xf32>
  return
}

// -----

// A size read from the dims argument at an index the runtime cannot know: an error.
func.func @main(%dims: memref<2xi64> {infc.dims_arg}, %i: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{infc-memory-plan: the workspace is sized by an entry of the dims argument at no constant index}}
  %v = memref.load %dims[%i] : memref<2xi64>
  %d = arith.index_cast %v : i64 to index
  %a = memref.alloc(%d) : memref<?xf32>
  %x = memref.load %a[%c0] : memref<?xf32>
  return
}

// -----

// Buffers of no largest size whose stacked offsets overflow 64 bits: an error, not a wrap.
func.func @main(%dims: memref<1xi64> {infc.dims_arg}) {
  %c0 = arith.constant 0 : index
  %v = memref.load %dims[%c0] : memref<1xi64>
  %d = arith.index_cast %v : i64 to index
  %a = memref.alloc(%d) : memref<?x4611686018427387904xi8>
  // expected-error @+1 {{infc-memory-plan: the workspace's size overflows}}
  %b = memref.alloc(%d) : memref<?x4611686018427387904xi8>
  %x = memref.load %a[%c0, %c0] : memref<?x4611686018427387904xi8>
  memref.store %x, %b[%c0, %c0] : memref<?x4611686018427387904xi8>
  return
}

// -----

// A size that a collapse and the expand after it made, (n * 2) / 2 (a Relu that is also an
// output, between two matmuls of generic code), is n: bounded by n's clamp, 16 x 64 f32 =
// 4096 B; and so is 2 * ((n * 2) / 2) in the next buffer, 32 x 48 f32 = 6144 B.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 10240 : i64}
// CHECK: %[[N:.*]] = affine.min
// CHECK: memref.view %{{.*}}[%{{.*}}][%[[N]]] : memref<10240xi8> to memref<?x64xf32>
// CHECK: memref.view %{{.*}} : memref<10240xi8> to memref<?x48xf32>
// CHECK-NOT: memref.alloc
func.func @main(%d: index, %out: memref<2xf32>) {
  %n = affine.min affine_map<(d0) -> (d0, 16)>(%d)
  %c2 = arith.constant 2 : index
  %rows = arith.muli %n, %c2 : index
  %half = arith.divsi %rows, %c2 : index
  %a = memref.alloc(%half) : memref<?x64xf32>
  %again = arith.muli %half, %c2 : index
  %b = memref.alloc(%again) : memref<?x48xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<?x64xf32>
  memref.store %v, %b[%c0, %c0] : memref<?x48xf32>
  return
}
