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

func.func @main(%d: index) {
  // expected-error @+1 {{infc-memory-plan: buffer 'memref<?xf32>' is not in the workspace}}
  %a = memref.alloc(%d) : memref<?xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf32>
  return
}
