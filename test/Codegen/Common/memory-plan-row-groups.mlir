// RUN: infc-opt %s -infc-memory-plan | FileCheck %s
// RUN: infc-opt %s -infc-memory-plan=kernel-groups=true | FileCheck %s --check-prefix=GROUPS

// A row group (infc/Codegen/Common/KernelGroups.h: the copy, the row sums, the two elementwise ops
// over the same 4 rows and the copy out) that the CUDA lowering runs as one kernel of a
// block per row. Without kernel groups %d takes the bytes of %x, dead after %c is computed;
// with them every buffer the group touches stays live to its last op: another block may
// still be reading %x while this one writes %d.
// CHECK: infc.workspace_bytes = 2112
// CHECK: %[[OX:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OX]]]{{.*}} to memref<4x64xf32>
// CHECK: %[[OD:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OD]]]{{.*}} to memref<4x64xf32>
// GROUPS: infc.workspace_bytes = 3136
// GROUPS: %[[OX:.*]] = arith.constant 0 : index
// GROUPS: memref.view %{{.*}}[%[[OX]]]{{.*}} to memref<4x64xf32>
// GROUPS: %[[OC:.*]] = arith.constant 1024 : index
// GROUPS: memref.view %{{.*}}[%[[OC]]]{{.*}} to memref<4x64xf32>
// GROUPS: %[[OD:.*]] = arith.constant 2048 : index
// GROUPS: memref.view %{{.*}}[%[[OD]]]{{.*}} to memref<4x64xf32>
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @main(%in: memref<4x64xf32>, %out: memref<4x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %x = memref.alloc() : memref<4x64xf32>
  linalg.copy ins(%in : memref<4x64xf32>) outs(%x : memref<4x64xf32>)
  %m = memref.alloc() : memref<4xf32>
  linalg.fill ins(%zero : f32) outs(%m : memref<4xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x64xf32>) outs(%m : memref<4xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %v, %acc : f32
    linalg.yield %s : f32
  }
  %c = memref.alloc() : memref<4x64xf32>
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : memref<4x64xf32>, memref<4xf32>) outs(%c : memref<4x64xf32>) {
  ^bb0(%v: f32, %s: f32, %o: f32):
    %d = arith.subf %v, %s : f32
    linalg.yield %d : f32
  }
  %d = memref.alloc() : memref<4x64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<4x64xf32>) outs(%d : memref<4x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.mulf %v, %two : f32
    linalg.yield %t : f32
  }
  linalg.copy ins(%d : memref<4x64xf32>) outs(%out : memref<4x64xf32>)
  return
}
