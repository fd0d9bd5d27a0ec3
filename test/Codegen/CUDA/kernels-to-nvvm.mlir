// RUN: infc-opt %s -infc-kernels-to-nvvm | FileCheck %s
// RUN: infc-opt %s -infc-kernels-to-nvvm=index-bitwidth=32 \
// RUN:   | FileCheck %s --check-prefix=I32

// Static buffers (a strided view with a static offset too): bare pointers, one parameter a
// buffer, and the module marked for the launches' lowering. 64-bit indices by default; with
// index-bitwidth=32 the index arithmetic and the addresses' offsets are i32 (widened once
// for the getelementptr).
// CHECK: module attributes {gpu.container_module, infc.bare_pointer_kernels}
// CHECK: llvm.func @scale(%arg0: !llvm.ptr, %arg1: !llvm.ptr) attributes
// CHECK-SAME: nvvm.kernel
// CHECK: llvm.mul {{.*}} : i64
// CHECK: llvm.getelementptr {{.*}}%arg0[{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK: llvm.getelementptr %arg1[1] : (!llvm.ptr) -> !llvm.ptr, f32
// I32: module attributes {gpu.container_module, infc.bare_pointer_kernels}
// I32: llvm.func @scale(%arg0: !llvm.ptr, %arg1: !llvm.ptr) attributes
// I32-NOT: i64
// I32: llvm.mul {{.*}} : i32
// I32-NOT: i64
// I32: llvm.getelementptr {{.*}}%arg0[{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, f32
// I32-NOT: i64
// I32: llvm.getelementptr %arg1[1] : (!llvm.ptr) -> !llvm.ptr, f32
// I32-NOT: i64
// I32: llvm.return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%in: memref<64x4xf32>,
                    %out: memref<64x2xf32, strided<[4, 1], offset: 1>>) kernel {
      %t = gpu.thread_id x
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %row = arith.divui %t, %c2 : index
      %col = arith.remui %t, %c2 : index
      %x = memref.load %in[%row, %col] : memref<64x4xf32>
      memref.store %x, %out[%row, %col] : memref<64x2xf32, strided<[4, 1], offset: 1>>
      gpu.return
    }
  }
}
