// RUN: infc-opt %s -infc-memory-plan | FileCheck %s
// RUN: infc-opt %s -infc-memory-plan=kernel-groups=true | FileCheck %s --check-prefix=GROUPS

// A relu writing a matmul's input, the matmul, a relu of its output: the CUDA lowering may
// run all three as one kernel. Without kernel groups the matmul's output takes the bytes
// of %x (dead after the first relu) and %z those of %p; with them, what any of the three
// reads stays live until the last, so the four buffers get disjoint bytes.
// CHECK: infc.workspace_bytes = 512
// CHECK: %[[OX:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[OX]]]
// CHECK: linalg.copy
// CHECK: %[[OY:.*]] = arith.constant 0 : index
// CHECK: %[[Y:.*]] = memref.view %{{.*}}[%[[OY]]]
// CHECK: linalg.matmul {{.*}} outs(%[[Y]] :
// GROUPS: infc.workspace_bytes = 1024
// GROUPS: %[[OX:.*]] = arith.constant 0 : index
// GROUPS: memref.view %{{.*}}[%[[OX]]]
// GROUPS: %[[OP:.*]] = arith.constant 256 : index
// GROUPS: memref.view %{{.*}}[%[[OP]]]
// GROUPS: %[[OY:.*]] = arith.constant 512 : index
// GROUPS: %[[Y:.*]] = memref.view %{{.*}}[%[[OY]]]
// GROUPS: linalg.matmul {{.*}} outs(%[[Y]] :
// GROUPS: %[[OZ:.*]] = arith.constant 768 : index
// GROUPS: memref.view %{{.*}}[%[[OZ]]]
#id = affine_map<(i, j) -> (i, j)>
func.func @main(%in: memref<8x8xf32>, %w: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %x = memref.alloc() : memref<8x8xf32>
  linalg.copy ins(%in : memref<8x8xf32>) outs(%x : memref<8x8xf32>)
  %p = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%p : memref<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  %y = memref.alloc() : memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<8x8xf32>)
  linalg.matmul ins(%p, %w : memref<8x8xf32>, memref<8x8xf32>) outs(%y : memref<8x8xf32>)
  %z = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<8x8xf32>) outs(%z : memref<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.copy ins(%z : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}
