// RUN: infc-opt %s -split-input-file -infc-profile-entry | FileCheck %s

// The entry is left as it is; its copy @main_profiled brackets each kernel (a run of ops
// that loop or write memory and name the same ONNX nodes) with the profiler's calls. Views
// between two ops of one kernel stay inside it; a constant's fused location (a constant
// deduplicated across nodes) does not name the kernel that uses it; an op of no node (the
// store) joins the kernel before it; kernels of the same nodes share an id.

// CHECK: module attributes {infc.profile_kernels = ["a(Conv)", "b(Relu) + c(Add)", "b(Relu)"]}
// CHECK-LABEL: func.func @main(
// CHECK-NOT: infc__prof
// CHECK: return
// CHECK-LABEL: func.func @main_profiled(
// CHECK-SAME: %[[A:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<4x8xf32>
// CHECK: %[[K0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @infc__prof_begin(%[[K0]]) : (i32) -> ()
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.subview
// CHECK-NEXT: scf.for
// CHECK: }
// CHECK-NEXT: call @infc__prof_end(%[[K0]]) : (i32) -> ()
// CHECK-NEXT: %[[K1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @infc__prof_begin(%[[K1]])
// CHECK-NEXT: scf.parallel
// CHECK: scf.reduce
// CHECK-NEXT: }
// CHECK-NEXT: memref.store
// CHECK-NEXT: call @infc__prof_end(%[[K1]])
// CHECK-NEXT: %[[K2:.*]] = arith.constant 2 : i32
// CHECK-NEXT: call @infc__prof_begin(%[[K2]])
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: call @infc__prof_end(%[[K2]])
// CHECK-NEXT: %[[K0B:.*]] = arith.constant 0 : i32
// CHECK-NEXT: call @infc__prof_begin(%[[K0B]])
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: call @infc__prof_end(%[[K0B]])
// CHECK-NEXT: return
// CHECK: func.func private @infc__prof_begin(i32)
// CHECK: func.func private @infc__prof_end(i32)
func.func @main(%a: memref<4x8xf32>, %b: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32 loc(fused["a(Conv)", "b(Relu)", "z(Sub)"])
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  linalg.fill ins(%zero : f32) outs(%b : memref<4x8xf32>) loc("a(Conv)")
  %row = memref.subview %a[0, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1]>>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %row[%i] : memref<8xf32, strided<[1]>>
    %w = arith.addf %v, %zero : f32 loc("a(Conv)")
    memref.store %w, %b[%i, %c0] : memref<4x8xf32>
  } loc("a(Conv)")
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %b[%i, %c0] : memref<4x8xf32> loc("b(Relu)")
    %w = arith.maximumf %v, %zero : f32 loc("b(Relu)")
    %one = arith.constant 1.0 : f32 loc("z(Sub)")
    %x = arith.addf %w, %one : f32 loc("c(Add)")
    memref.store %x, %b[%i, %c1] : memref<4x8xf32>
    scf.reduce
  } loc("b(Relu)")
  memref.store %zero, %b[%c0, %c0] : memref<4x8xf32>
  linalg.copy ins(%b : memref<4x8xf32>) outs(%a : memref<4x8xf32>) loc("b(Relu)")
  linalg.copy ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) loc("a(Conv)")
  return
}

// -----

// Branches instead of loops: nothing to group kernels by, so no copy (the runtime then
// times whole runs).

// CHECK-NOT: infc.profile_kernels
// CHECK: func.func @main(
// CHECK-NOT: main_profiled
// CHECK-NOT: infc__prof
func.func @main(%a: memref<4xf32>, %flag: i1) {
  cf.cond_br %flag, ^bb1, ^bb2
^bb1:
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  cf.br ^bb2
^bb2:
  return
}

// -----

// No op names a node: the code is one kernel, "(model)", nameless ops before it included.

// CHECK: module attributes {infc.profile_kernels = ["(model)"]}
// CHECK-LABEL: func.func @main_profiled(
// CHECK: call @infc__prof_begin
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: linalg.copy
// CHECK-NEXT: call @infc__prof_end
// CHECK-NEXT: return
func.func @main(%a: memref<4xf32>, %b: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<4xf32>)
  linalg.copy ins(%a : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}
