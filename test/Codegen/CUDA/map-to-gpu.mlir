// RUN: infc-opt %s -infc-map-to-gpu -cse -split-input-file -verify-diagnostics | FileCheck %s
// RUN: not infc-opt %s -split-input-file -infc-map-to-gpu="threads=0" 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: infc-map-to-gpu: threads must be 1..1024

// A 2-D parallel loop of 4x100 = 400 points: one thread per point in 256-wide blocks (2
// blocks, the last 112 threads guarded off), the innermost dimension fastest between
// neighbouring threads, lower bounds and steps applied. The kernel is named after its node.
// CHECK-LABEL: func.func @main
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C2]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]]) module(@infc_kernels) function(@k0_relu1)
// CHECK: %[[B:.*]] = arith.muli %[[BX]], %{{.*}} : index
// CHECK: %[[P:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[P]], %{{.*}} : index
// CHECK: scf.if %[[IN]] {
// CHECK: %[[J0:.*]] = arith.remui %[[P]], %{{.*}} : index
// CHECK: %[[I0:.*]] = arith.divui %[[P]], %{{.*}} : index
// CHECK: %[[J1:.*]] = arith.muli %[[J0]], %{{.*}} : index
// CHECK: %[[J:.*]] = arith.addi %[[J1]], %{{.*}} : index
// CHECK-NOT: arith.remui
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[I0]], %[[J]]]
// CHECK: %[[R:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK: memref.store %[[R]], %{{.*}}[%[[I0]], %[[J]]]
// CHECK: }
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @main(%a: memref<4x300xf32>, %b: memref<4x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c300 = arith.constant 300 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c1) to (%c4, %c300) step (%c1, %c3) {
    %v = memref.load %a[%i, %j] : memref<4x300xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %b[%i, %j] : memref<4x300xf32>
    scf.reduce
  } loc("relu1"("Relu"))
  return
}

// -----

// An exact fit needs no guard; a loop with no parallel dimension (a full reduction) runs on
// one thread; views stay on the host.
// CHECK-LABEL: func.func @main
// CHECK: memref.subview
// CHECK: gpu.launch {{.*}} threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256{{.*}}) module(@infc_kernels) function(@k0)
// CHECK-NOT: scf.if
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) threads({{.*}}) in (%{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}, %{{.*}} = %c1{{.*}}) module(@infc_kernels) function(@k1)
// CHECK-NEXT: scf.for
// CHECK: gpu.terminator
func.func @main(%a: memref<512xf32>, %sum: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %c512 = arith.constant 512 : index
  %half = memref.subview %a[0] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1]>>
  scf.parallel (%i) = (%c0) to (%c256) step (%c1) {
    %v = memref.load %half[%i] : memref<256xf32, strided<[1]>>
    %d = arith.addf %v, %v : f32
    memref.store %d, %half[%i] : memref<256xf32, strided<[1]>>
    scf.reduce
  }
  scf.for %i = %c0 to %c512 step %c1 {
    %v = memref.load %a[%i] : memref<512xf32>
    %s = memref.load %sum[] : memref<f32>
    %t = arith.addf %s, %v : f32
    memref.store %t, %sum[] : memref<f32>
  }
  return
}

// -----

func.func @main(%a: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{infc-map-to-gpu: loop bounds must be constants}}
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %a[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A scalar read from a buffer nothing writes (a run-time padding value) moves into the
// kernel that uses it.
// CHECK-LABEL: func.func @main
// CHECK-NOT: memref.load
// CHECK: gpu.launch
// CHECK: %[[V:.*]] = memref.load %{{.*}}[] : memref<f32>
// CHECK: memref.store %[[V]]
func.func @main(%pad: memref<f32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %v = memref.load %pad[] : memref<f32>
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    memref.store %v, %out[%i] : memref<8xf32>
    scf.reduce
  }
  return
}

// -----

func.func @main(%a: memref<4xindex>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{infc-map-to-gpu: the host would need the result of 'memref.load', which runs on the GPU}}
  %n = memref.load %a[%c0] : memref<4xindex>
  %s = memref.subview %b[%n] [2] [1] : memref<8xf32> to memref<2xf32, strided<[1], offset: ?>>
  return
}
