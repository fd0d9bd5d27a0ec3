// RUN: infc-opt %s -split-input-file -infc-launches-to-llvm | FileCheck %s

// Marked by infc-kernels-to-nvvm: a launch passes each buffer's aligned pointer and nothing
// else (the kernel rebuilds the descriptor from the static type: offset 1 here), and the
// mark is gone.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: infc.bare_pointer_kernels
// CHECK-LABEL: llvm.func @host
// CHECK: %[[IN:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[OUT:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: gpu.launch_func @kernels::@scale
// CHECK-SAME: args(%[[IN]] : !llvm.ptr, %[[OUT]] : !llvm.ptr){{$}}
module attributes {gpu.container_module, infc.bare_pointer_kernels} {
  gpu.module @kernels {
    llvm.func @scale(%a: !llvm.ptr, %b: !llvm.ptr) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @host(%in: memref<64x4xf32>, %out: memref<64x2xf32, strided<[4, 1], offset: 1>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%in : memref<64x4xf32>, %out : memref<64x2xf32, strided<[4, 1], offset: 1>>)
    return
  }
}

// -----

// Unmarked: a launch passes whole descriptors (allocated and aligned pointers, offset,
// sizes, strides), as the kernels take them. (With gpu-to-llvm's host bare pointers on,
// as the pipeline had it before, this launch passed one pointer to a kernel of five
// parameters.)
// CHECK-LABEL: llvm.func @host
// CHECK: gpu.launch_func @kernels::@scale
// CHECK-SAME: args(%{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64){{$}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.func @scale(%a: !llvm.ptr, %b: !llvm.ptr, %c: i64, %d: i64, %e: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  func.func @host(%in: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%in : memref<?xf32>)
    return
  }
}
