// RUN: infc-opt %s -infc-memory-plan | FileCheck %s
// RUN: infc-opt %s -infc-memory-plan=kernel-groups=true | FileCheck %s --check-prefix=GROUPS

// A matmul, a relu of its product, a transpose of that: the CUDA lowering may run all
// three as one kernel (two epilogues in a chain). Without kernel groups the relu's output
// takes the bytes of %x (dead after the matmul) and the transpose's those of %y; with
// them, everything the three read stays live until the transpose: four disjoint buffers.
// CHECK: infc.workspace_bytes = 512
// GROUPS: infc.workspace_bytes = 1024
// GROUPS: %[[OX:.*]] = arith.constant 0 : index
// GROUPS: memref.view %{{.*}}[%[[OX]]]
// GROUPS: %[[OY:.*]] = arith.constant 256 : index
// GROUPS: %[[Y:.*]] = memref.view %{{.*}}[%[[OY]]]
// GROUPS: linalg.matmul {{.*}} outs(%[[Y]] :
// GROUPS: %[[OT:.*]] = arith.constant 512 : index
// GROUPS: memref.view %{{.*}}[%[[OT]]]
// GROUPS: %[[OU:.*]] = arith.constant 768 : index
// GROUPS: %[[U:.*]] = memref.view %{{.*}}[%[[OU]]]
// GROUPS: linalg.transpose {{.*}} outs(%[[U]] :
#id = affine_map<(i, j) -> (i, j)>
func.func @main(%in: memref<8x8xf32>, %w: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  %y = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<8x8xf32>)
  linalg.matmul ins(%x, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%y : memref<8x8xf32>)
  %t = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x8xf32>) outs(%t : memref<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  %u = memref.alloc() : memref<8x8xf32>
  linalg.transpose ins(%t : memref<8x8xf32>) outs(%u : memref<8x8xf32>) permutation = [1, 0]
  linalg.copy ins(%u : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}
