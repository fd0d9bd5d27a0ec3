// RUN: infc-opt %s -pass-pipeline='builtin.module(gpu.module(infc-kernel-launch-bounds))' | FileCheck %s

// A kernel with shared memory may have the registers of one resident block
// (nvvm.minctasm = 1); one that says otherwise keeps its bound; a kernel without shared
// memory and a device function are left alone.
// CHECK-LABEL: gpu.func @tiled
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-LABEL: gpu.func @bounded
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK-LABEL: gpu.func @pointwise
// CHECK-NOT: nvvm.minctasm
// CHECK-LABEL: gpu.func @helper
// CHECK-NOT: nvvm.minctasm
gpu.module @kernels {
  gpu.func @tiled() workgroup(%a : memref<64x40xf16, #gpu.address_space<workgroup>>) kernel {
    gpu.return
  }
  gpu.func @bounded() workgroup(%a : memref<16xf32, #gpu.address_space<workgroup>>) kernel
      attributes {nvvm.minctasm = 2 : i32} {
    gpu.return
  }
  gpu.func @pointwise(%x : memref<16xf32>) kernel {
    gpu.return
  }
  gpu.func @helper() workgroup(%a : memref<16xf32, #gpu.address_space<workgroup>>) {
    gpu.return
  }
}
