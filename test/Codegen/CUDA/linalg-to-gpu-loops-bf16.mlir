// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false" -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false tensor-cores=false" -cse -split-input-file | FileCheck %s --check-prefix=SIMT

// bf16 operands summed in f32 (--precision bf16) run on tensor cores as nvvm.mma.sync
// m16n8k16 (nvgpu's mma.sync has no bf16): 64 x 64 tiles of 4 warps (a 2 x 2 grid of
// blocks for 70 x 80), A and B both staged [64][40] in bf16, the reduction along the rows.
// Per 16-deep step a warp loads its fragment registers as pairs of neighbours along the
// reduction (one aligned 32-bit load each: 4 for each of 2 A fragments, 2 for each of 4 B
// fragments), then runs its 2 x 4 mma.syncs in a row on the 8 accumulators (loop values,
// vector<2x2xf32>); the sums leave through a [64][68] buffer to the store, where the fill's
// value is added.
// CHECK-LABEL: func.func @bf16
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c2, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c128
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[CS:.*]] : memref<64x68xf32, #gpu.address_space<workgroup>>)
// CHECK: %[[ACC:.*]]:8 = scf.for %{{.*}} iter_args(
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[AS]]
// CHECK: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK: %[[PAIR:.*]] = vector.load %[[AS]][%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<64x40xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[A0:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK: vector.load %[[BS]][%{{.*}}, %{{.*}}] {alignment = 4 : i64}
// CHECK: %[[C00:.*]] = vector.extract %{{.*}}[0, 0] : f32 from vector<2x2xf32>
// CHECK: %[[MMA:.*]] = nvvm.mma.sync A[%[[A0]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[C00]], %{{.*}}, %{{.*}}, %{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-7: nvvm.mma.sync
// CHECK-NOT: nvvm.mma.sync
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[MMA]][0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: vector.from_elements %[[D0]], %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-COUNT-8: nvvm.mma.sync
// CHECK: scf.yield
// CHECK: vector.extract %[[ACC]]#0[0, 0] : f32 from vector<2x2xf32>
// CHECK: memref.store %{{.*}}, %[[CS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[CS]]
// CHECK: arith.addf %[[ZERO]]
// CHECK-NOT: linalg.
// Without tensor cores: the SIMT kernel, bf16 staged and widened in the payload.
// SIMT-LABEL: func.func @bf16
// SIMT-NOT: nvvm.mma.sync
// SIMT: arith.extf %{{.*}} : bf16 to f32
// SIMT: arith.mulf
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @bf16(%x: memref<70x48xbf16>, %y: memref<48x80xbf16>, %z: memref<70x80xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%z : memref<70x80xf32>)
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<70x48xbf16>, memref<48x80xbf16>) outs(%z : memref<70x80xf32>) {
  ^bb0(%u: bf16, %v: bf16, %acc: f32):
    %u32 = arith.extf %u : bf16 to f32
    %v32 = arith.extf %v : bf16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// bf16 summed in bf16 has no tensor-core kernel here (the sums must be f32).
// CHECK-LABEL: func.func @bf16_sums
// CHECK-NOT: nvvm.mma.sync
// CHECK: arith.mulf
func.func @bf16_sums(%x: memref<70x48xbf16>, %y: memref<48x80xbf16>, %z: memref<70x80xbf16>) {
  linalg.matmul ins(%x, %y : memref<70x48xbf16>, memref<48x80xbf16>) outs(%z : memref<70x80xbf16>)
  return
}
