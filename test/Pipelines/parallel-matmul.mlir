// RUN: infc-opt %s --infc-pipeline="serial-small-loops=false" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: infc-opt %s --infc-pipeline="vector-bits=512 serial-small-loops=false" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: infc-opt %s --infc-pipeline | FileCheck %s --check-prefix=NONLLVM
// RUN: infc-opt %s --infc-pipeline | FileCheck %s --check-prefix=SERIAL

// A matmul through the whole pipeline: B packed into 16-wide column panels (64 at 512 bits)
// by a copy loop, register tiles of broadcast-FMAs, and the loop over panels as an OpenMP
// worksharing loop. The omp ops stay in the LLVM-dialect module; the
// translation to LLVM IR turns them into __kmpc_* calls that the runtime's pool implements.

// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%{{.*}}: !llvm.ptr {infc.workspace}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// AVX2-DAG: %[[PANELS:.*]] = llvm.mlir.constant(8 : index) : i64
// AVX512-DAG: %[[PANELS:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK-DAG: %[[STEP:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-DAG: %[[ZERO:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK: omp.parallel {
// CHECK-NEXT: omp.wsloop {
// CHECK-NEXT: omp.loop_nest (%{{.*}}) : i64 = (%[[ZERO]]) to (%[[PANELS]]) step (%[[STEP]]) {
// 256 bits: 6 FMAs per K step for the 6x16 tiles, 4 for the peeled 4x16 edge (M = 64),
// four K steps an iteration (infc-unroll-k-loops; K = 96, no remainder).
// AVX2-COUNT-40: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// AVX2-NOT: llvm.intr.fmuladd
// 512 bits: 6 FMAs for the 6x64 tiles, 4 for the 4x64 edge, four K steps an iteration.
// AVX512-COUNT-40: llvm.intr.fmuladd({{.*}}) : (vector<64xf32>, vector<64xf32>, vector<64xf32>) -> vector<64xf32>
// AVX512-NOT: llvm.intr.fmuladd
// CHECK: omp.yield
// CHECK: omp.terminator
// CHECK: llvm.return

// NONLLVM-NOT: builtin.unrealized_conversion_cast

// NONLLVM-NOT: {{ (memref|linalg|tensor|func|scf|cf|math|vector|arith|bufferization)\.}}
// NONLLVM-NOT: malloc

// With the cost model (the default), this matmul, some 8 us of work, is too small to pay
// for waking a worker: its panel loop runs on the calling thread.
// SERIAL-LABEL: llvm.func @main
// SERIAL-NOT: omp.parallel
// SERIAL: llvm.return
func.func @main(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>) -> tensor<64x128xf32> {
  %0 = infc.matmul %a, %b : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}
