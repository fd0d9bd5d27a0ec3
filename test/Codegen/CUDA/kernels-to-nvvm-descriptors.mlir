// RUN: infc-opt %s -infc-kernels-to-nvvm | FileCheck %s

// A dynamic buffer: descriptors for every kernel of the model (the launches must match),
// no mark. 32-bit indices would need bare pointers: an error (kernels-to-nvvm-invalid.mlir).
// CHECK: module attributes {gpu.container_module} {
// CHECK-NOT: infc.bare_pointer_kernels
// CHECK: llvm.func @static(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64
// CHECK: llvm.func @dynamic(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64)
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
