// RUN: infc-opt %s -infc-memory-plan -split-input-file -verify-diagnostics | FileCheck %s

// Static allocations of the entry function become views into one workspace argument (64-byte
// aligned offsets); live ranges that overlap get disjoint bytes, the others share.

// %a lives while %b is written (copy a -> b), so they are disjoint. %c (64 B) starts after
// %a's last use and takes %a's place; %b (128 B, placed first as the largest) is at 0.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 192 : i64}
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[WS:.*]]: memref<192xi8> {infc.workspace}, %[[IN:.*]]: memref<16xf32>, %[[OUT:.*]]: memref<4xf32>)
// CHECK-NOT: memref.alloc
// CHECK: %[[OA:.*]] = arith.constant 128 : index
// CHECK: %[[A:.*]] = memref.view %[[WS]][%[[OA]]][] : memref<192xi8> to memref<16xf32>
// CHECK: linalg.copy ins(%[[IN]] : memref<16xf32>) outs(%[[A]] : memref<16xf32>)
// CHECK: %[[OB:.*]] = arith.constant 0 : index
// CHECK: %[[B:.*]] = memref.view %[[WS]][%[[OB]]][] : memref<192xi8> to memref<20xf32>
// CHECK: %[[SV:.*]] = memref.subview %[[B]][0] [16] [1]
// CHECK: linalg.copy ins(%[[A]] : memref<16xf32>) outs(%[[SV]] :
// CHECK-NOT: memref.dealloc
// CHECK: %[[OC:.*]] = arith.constant 128 : index
// CHECK: %[[C:.*]] = memref.view %[[WS]][%[[OC]]][] : memref<192xi8> to memref<4xf32>
// CHECK: %[[S2:.*]] = memref.subview %[[B]][2] [4] [1]
// CHECK: linalg.copy ins(%[[S2]] : {{.*}}) outs(%[[C]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[C]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @main(%in: memref<16xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%in : memref<16xf32>) outs(%a : memref<16xf32>)
  %b = memref.alloc() : memref<20xf32>
  %sv = memref.subview %b[0] [16] [1] : memref<20xf32> to memref<16xf32, strided<[1]>>
  linalg.copy ins(%a : memref<16xf32>) outs(%sv : memref<16xf32, strided<[1]>>)
  memref.dealloc %a : memref<16xf32>
  %c = memref.alloc() : memref<4xf32>
  %s2 = memref.subview %b[2] [4] [1] : memref<20xf32> to memref<4xf32, strided<[1], offset: 2>>
  linalg.copy ins(%s2 : memref<4xf32, strided<[1], offset: 2>>) outs(%c : memref<4xf32>)
  linalg.copy ins(%c : memref<4xf32>) outs(%out : memref<4xf32>)
  memref.dealloc %b : memref<20xf32>
  return
}

// -----

// A chain where each buffer dies as the next one is written: two slots ping-pong.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 128 : i64}
// CHECK: func.func @main(%[[WS:.*]]: memref<128xi8> {infc.workspace}
// CHECK: %[[O1:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%[[O1]]][] : memref<128xi8> to memref<4x4xf32>
// CHECK: %[[O2:.*]] = arith.constant 64 : index
// CHECK: memref.view %[[WS]][%[[O2]]][] : memref<128xi8> to memref<4x4xf32>
// CHECK: %[[O3:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[WS]][%[[O3]]][] : memref<128xi8> to memref<4x4xf32>
func.func @main(%in: memref<4x4xf32>, %out: memref<4x4xf32>) {
  %0 = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%0 : memref<4x4xf32>)
  %1 = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%0 : memref<4x4xf32>) outs(%1 : memref<4x4xf32>)
  %2 = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%1 : memref<4x4xf32>) outs(%2 : memref<4x4xf32>)
  linalg.copy ins(%2 : memref<4x4xf32>) outs(%out : memref<4x4xf32>)
  return
}

// -----

// Uses through views (expand_shape, cast) and inside nested regions keep a buffer alive: %a
// is read last inside the loop, after %b and %c were written, so all three are disjoint.
// Sizes round up to 64 bytes (i1 takes a byte per element); larger buffers are placed first.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 320 : i64}
// CHECK: func.func @main(%[[WS:.*]]: memref<320xi8> {infc.workspace}
// CHECK: %[[OA:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[A:.*]] = memref.view %[[WS]][%[[OA]]][] : memref<320xi8> to memref<32xf32>
// CHECK: memref.expand_shape %[[A]]
// CHECK: memref.cast
// CHECK-DAG: %[[OB:.*]] = arith.constant 256 : index
// CHECK-DAG: memref.view %[[WS]][%[[OB]]][] : memref<320xi8> to memref<8xf32>
// CHECK-DAG: %[[OC:.*]] = arith.constant 128 : index
// CHECK-DAG: memref.view %[[WS]][%[[OC]]][] : memref<320xi8> to memref<100xi1>
// CHECK: scf.for
func.func @main(%in: memref<32xf32>, %out: memref<8xf32>) {
  %a = memref.alloc() : memref<32xf32>
  linalg.copy ins(%in : memref<32xf32>) outs(%a : memref<32xf32>)
  %e = memref.expand_shape %a [[0, 1]] output_shape [4, 8] : memref<32xf32> into memref<4x8xf32>
  %cast = memref.cast %e : memref<4x8xf32> to memref<?x8xf32>
  %b = memref.alloc() : memref<8xf32>
  %c = memref.alloc() : memref<100xi1>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %row = memref.subview %cast[%i, 0] [1, 8] [1, 1] : memref<?x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    linalg.copy ins(%row : memref<8xf32, strided<[1], offset: ?>>) outs(%b : memref<8xf32>)
  }
  linalg.copy ins(%b : memref<8xf32>) outs(%out : memref<8xf32>)
  return
}

// -----

// Only the entry function is planned; other functions keep their allocations.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 64 : i64}
// CHECK: func.func @helper(%{{.*}}: memref<4xf32>)
// CHECK-NEXT: memref.alloc() : memref<4xf32>
// CHECK: func.func @main(%[[WS:.*]]: memref<64xi8> {infc.workspace})
// CHECK: memref.view %[[WS]]
func.func @helper(%x: memref<4xf32>) {
  %0 = memref.alloc() : memref<4xf32>
  linalg.copy ins(%x : memref<4xf32>) outs(%0 : memref<4xf32>)
  return
}
func.func @main() {
  %0 = memref.alloc() : memref<2xf64>
  return
}

// -----

// A buffer the plan cannot place (dynamic, or inside a loop) would be malloc'ed on every run
// and never freed: an error, not a leak.
func.func @main(%n: index) {
  // expected-error @+1 {{infc-memory-plan: buffer 'memref<?xf32>' is not in the workspace}}
  %1 = memref.alloc(%n) : memref<?xf32>
  return
}

// -----

// Inside a loop whose iterations may run side by side (infc.parallel), each needs its own.
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    // expected-error @+1 {{infc-memory-plan: buffer 'memref<8xf32>' is not in the workspace}}
    %0 = memref.alloc() : memref<8xf32>
  } {infc.parallel}
  return
}

// -----

// A serial loop's scratch buffer (bufferization's copy of a loop-carried tile, a 24-channel
// pool's 16 lanes of 16 + 8 on AVX-512) serves every iteration in turn: placed once before
// the loop.
// CHECK: %[[TILE:.*]] = memref.view %{{.*}} : memref<{{[0-9]+}}xi8> to memref<1x16xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.subview
// CHECK-NEXT: memref.copy %{{.*}}, %[[TILE]]
// CHECK: memref.copy %[[TILE]], %{{.*}}
// CHECK-NEXT: }
func.func @main(%acc: memref<1x24xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %s = memref.subview %acc[0, 0] [1, 16] [1, 1] : memref<1x24xf32> to memref<1x16xf32, strided<[24, 1]>>
    %0 = memref.alloc() : memref<1x16xf32>
    memref.copy %s, %0 : memref<1x16xf32, strided<[24, 1]>> to memref<1x16xf32>
    linalg.fill ins(%f : f32) outs(%0 : memref<1x16xf32>)
    memref.copy %0, %s : memref<1x16xf32> to memref<1x16xf32, strided<[24, 1]>>
  }
  return
}

// -----

// A loop over images (infc.by_image, a batch's convolution one image at a time): its body's
// buffer serves every image in turn, placed once before the loop.
// CHECK: %[[BUF:.*]] = memref.view %{{.*}} : memref<64xi8> to memref<8xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[BUF]] : memref<8xf32>)
// CHECK-NEXT: } {infc.by_image}
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    %0 = memref.alloc() : memref<8xf32>
    linalg.fill ins(%f : f32) outs(%0 : memref<8xf32>)
  } {infc.by_image}
  return
}

// -----

// A loop over images that yields a buffer of its body (out of place) carries it to the next
// image: nothing of it is hoisted, and the buffer is refused.
func.func @main(%out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %f = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %out) -> (memref<8xf32>) {
    // expected-error @+1 {{infc-memory-plan: buffer 'memref<8xf32>' is not in the workspace}}
    %0 = memref.alloc() : memref<8xf32>
    linalg.fill ins(%f : f32) outs(%0 : memref<8xf32>)
    scf.yield %0 : memref<8xf32>
  } {infc.by_image}
  return
}

// -----

// A function without allocations still gets an (empty) workspace.
// CHECK-LABEL: module attributes {infc.workspace_bytes = 0 : i64}
// CHECK: func.func @main(%{{.*}}: memref<0xi8> {infc.workspace}, %{{.*}}: memref<2xf32>)
func.func @main(%x: memref<2xf32>) {
  return
}

// -----

// expected-error @+1 {{infc-memory-plan: no entry function 'main'}}
module {
  func.func @not_main() {
    return
  }
}

// -----

// expected-error @+1 {{infc-memory-plan: no entry function 'main'}}
module {
  func.func private @main(memref<4xf32>)
}
