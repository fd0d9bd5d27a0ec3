// RUN: infc-opt %s -infc-unique-results -split-input-file -verify-diagnostics | FileCheck %s

// A buffer returned twice: the second result is a copy of its own, so each returned buffer
// appears once (buffer-results-to-out-params can then hoist each alloc into its output).
// CHECK-LABEL: func.func @twice
// CHECK: %[[A:.*]] = memref.alloc() : memref<4x4xf32>
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x4xf32>
// CHECK: memref.copy %[[A]], %[[C]] : memref<4x4xf32> to memref<4x4xf32>
// CHECK: return %[[A]], %[[C]], %[[A2:.*]] :
func.func @twice(%x: memref<4x4xf32>) -> (memref<4x4xf32>, memref<4x4xf32>, memref<2xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  memref.copy %x, %a : memref<4x4xf32> to memref<4x4xf32>
  %b = memref.alloc() : memref<2xf32>
  return %a, %a, %b : memref<4x4xf32>, memref<4x4xf32>, memref<2xf32>
}

// -----

// A strided view returned twice has no identity layout to copy into: an error, not a guess.
func.func @strided_twice(%x: memref<4x4xf32>) -> (memref<2x4xf32, strided<[4, 1], offset: 4>>, memref<2x4xf32, strided<[4, 1], offset: 4>>) {
  %v = memref.subview %x[1, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1], offset: 4>>
  // expected-error @+1 {{returns one non-static or strided buffer twice}}
  return %v, %v : memref<2x4xf32, strided<[4, 1], offset: 4>>, memref<2x4xf32, strided<[4, 1], offset: 4>>
}
