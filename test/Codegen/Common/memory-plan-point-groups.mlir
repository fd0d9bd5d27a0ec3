// RUN: infc-opt %s -infc-memory-plan | FileCheck %s
// RUN: infc-opt %s -infc-memory-plan=kernel-groups=true | FileCheck %s --check-prefix=GROUPS

// Three all-parallel ops over the same 4x4 points (a point group: one CUDA kernel, a thread
// a point, the ops in turn) and a 4x1 op between them that the group moves to its start.
// Without kernel groups the 4x1 mask takes the bytes of %a (dead after the first op); with
// them, what the members touch stays live until the last member: four disjoint buffers.
// CHECK: infc.workspace_bytes = 192
// CHECK: %[[OA:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OA]]]
// CHECK: %[[OM:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OM]]]{{.*}} to memref<4x1xi1>
// GROUPS: infc.workspace_bytes = 256
// GROUPS: %[[OA:.*]] = arith.constant 0 : index
// GROUPS: memref.view %{{.*}}[%[[OA]]]
// GROUPS: %[[OT:.*]] = arith.constant 64 : index
// GROUPS: memref.view %{{.*}}[%[[OT]]]
// GROUPS: %[[OM:.*]] = arith.constant 128 : index
// GROUPS: memref.view %{{.*}}[%[[OM]]]{{.*}} to memref<4x1xi1>
// GROUPS: %[[OB:.*]] = arith.constant 192 : index
// GROUPS: memref.view %{{.*}}[%[[OB]]]
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i, 0)>
func.func @main(%in: memref<4x4xf32>, %len: memref<4x1xi32>, %out: memref<4x4xf32>) {
  %one = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<4x4xf32>
  linalg.copy ins(%in : memref<4x4xf32>) outs(%a : memref<4x4xf32>)
  %t = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%t : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.tanh %v : f32
    linalg.yield %r : f32
  }
  %m = memref.alloc() : memref<4x1xi1>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%len : memref<4x1xi32>) outs(%m : memref<4x1xi1>) {
  ^bb0(%v: i32, %o: i1):
    %r = arith.cmpi sgt, %v, %one : i32
    linalg.yield %r : i1
  }
  %b = memref.alloc() : memref<4x4xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#row, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m, %b : memref<4x1xi1>, memref<4x4xf32>) outs(%out : memref<4x4xf32>) {
  ^bb0(%k: i1, %v: f32, %o: f32):
    %r = arith.select %k, %v, %zero : f32
    linalg.yield %r : f32
  }
  return
}
