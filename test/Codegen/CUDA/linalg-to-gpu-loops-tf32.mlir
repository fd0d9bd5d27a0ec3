// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false tf32=true tile-min-blocks=4" -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false" -cse -split-input-file | FileCheck %s --check-prefix=NOTF32

// With tf32, an f32 matmul runs on tensor cores as TF32: 64 x 64 tiles of 4 warps (a 2 x 2
// grid of blocks for 70 x 80), A staged [64][36] and B [32][72] in f32, each element rounded
// to TF32 as it is staged (+0x1000, the low 13 bits cleared; infinities and NaNs kept).
// Per 8-deep step a warp loads 2 A fragments (vector<4x1xf32>) and 4 B fragments
// (vector<2x1xf32>) from shared memory and runs 2 x 4 nvgpu.mma.sync m16n8k8 on its 8
// accumulators (loop values); the sums leave through a [64][68] buffer to the store, where
// the fill's value is added. Two stages of A and B (36 KB) would not fit the 48 KB of
// static shared memory beside the sums (17 KB): one stage, so a step's stores wait at a
// barrier until the step before is read, and a second barrier before they are read.
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<64x36xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<32x72xf32, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<64x68xf32, #gpu.address_space<workgroup>>)
// The loop values: the 8 accumulators, then the step's 16 + 16 staged elements (the next
// step's loaded while this one is computed).
// CHECK: %[[ACC:.*]]:40 = scf.for %{{.*}} iter_args(
// CHECK-NEXT: gpu.barrier
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK: %[[UP:.*]] = arith.addi %[[BITS]], %c4096_i32
// CHECK: %[[CUT:.*]] = arith.andi %[[UP]], %c-8192_i32
// CHECK: %[[EXP:.*]] = arith.andi %[[BITS]], %c2139095040_i32
// CHECK: %[[FINITE:.*]] = arith.cmpi ne, %[[EXP]], %c2139095040_i32
// CHECK: %[[PICK:.*]] = arith.select %[[FINITE]], %[[CUT]], %[[BITS]]
// CHECK: %[[TF32:.*]] = arith.bitcast %[[PICK]] : i32 to f32
// CHECK: memref.store %[[TF32]], %[[AS]]
// CHECK: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: memref.load %[[AS]]
// CHECK: vector.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : vector<4x1xf32>
// CHECK: memref.load %[[BS]]
// CHECK: vector.from_elements %{{.*}}, %{{.*}} : vector<2x1xf32>
// CHECK-COUNT-8: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: scf.yield
// CHECK: vector.extract %[[ACC]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: memref.store %{{.*}}, %[[CS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[CS]]
// CHECK: arith.addf %[[ZERO]]
// CHECK-NOT: linalg.
// NOTF32-LABEL: func.func @matmul
// NOTF32-NOT: nvgpu.mma.sync
// NOTF32: arith.mulf
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @matmul(%x: memref<70x48xf32>, %y: memref<48x80xf32>, %z: memref<70x80xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<70x80xf32>)
  linalg.matmul ins(%x, %y : memref<70x48xf32>, memref<48x80xf32>) outs(%z : memref<70x80xf32>)
  return
}

// -----

// f16 operands keep their own m16n8k16 mma.sync with tf32 on; a product of i32s has no
// TF32 kernel.
// CHECK-LABEL: func.func @halves
// CHECK-NOT: nvgpu.mma.sync
// CHECK: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32)
// CHECK-LABEL: func.func @integers
// CHECK-NOT: nvgpu.mma.sync
// CHECK: arith.muli
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @halves(%x: memref<70x48xf16>, %y: memref<48x80xf16>, %z: memref<70x80xf32>) {
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xf16>, memref<48x80xf16>) outs(%z : memref<70x80xf32>) {
  ^bb0(%u: f16, %v: f16, %acc: f32):
    %u32 = arith.extf %u : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}
func.func @integers(%x: memref<70x48xi32>, %y: memref<48x80xi32>, %z: memref<70x80xi32>) {
  linalg.matmul ins(%x, %y : memref<70x48xi32>, memref<48x80xi32>) outs(%z : memref<70x80xi32>)
  return
}
