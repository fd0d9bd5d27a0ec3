// RUN: infc-opt %s -infc-kernels-to-nvvm | FileCheck %s

// A dynamic buffer: descriptors for every kernel of the model (the launches must match),
// no mark. 32-bit indices would need bare pointers: an error (kernels-to-nvvm-invalid.mlir).
// CHECK: module attributes {gpu.container_module} {
// CHECK-NOT: infc.bare_pointer_kernels
// CHECK: llvm.func @static(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64) attributes
// CHECK: llvm.func @dynamic(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64) attributes
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @static(%a: memref<4xf32>) kernel {
      gpu.return
    }
    gpu.func @dynamic(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}
