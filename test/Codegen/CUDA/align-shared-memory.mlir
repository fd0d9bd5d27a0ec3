// RUN: infc-opt %s -pass-pipeline='builtin.module(gpu.module(infc-align-shared-memory))' | FileCheck %s

// Every workgroup buffer 32-byte aligned (ldmatrix's 16-byte rows); one that asks
// for more keeps it; private buffers are left alone.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME: workgroup(%{{.*}} : memref<64x40xf16, #gpu.address_space<workgroup>> {llvm.align = 32 : i64}, %{{.*}} : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64})
// CHECK-SAME: private(%{{.*}} : memref<4xf32, #gpu.address_space<private>>)
// CHECK-NOT: llvm.align
gpu.module @kernels {
  gpu.func @kernel() workgroup(%a : memref<64x40xf16, #gpu.address_space<workgroup>>,
                               %b : memref<16xf32, #gpu.address_space<workgroup>> {llvm.align = 64 : i64})
                     private(%p : memref<4xf32, #gpu.address_space<private>>) kernel {
    gpu.return
  }
}
