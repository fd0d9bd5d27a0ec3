// RUN: infc-opt %s -split-input-file -infc-kernels-to-nvvm -infc-launches-to-llvm \
// RUN:   | FileCheck %s

// The two passes agree: static buffers give a kernel of two pointer parameters and a
// launch that passes two pointers (the views' aligned pointers)...
// CHECK-LABEL: llvm.func @scale(%arg0: !llvm.ptr, %arg1: !llvm.ptr)
// CHECK-LABEL: llvm.func @host
// CHECK: %[[IN:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: gpu.launch_func @kernels::@scale
// CHECK-SAME: args(%[[IN]] : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr){{$}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%in: memref<64xf32>, %out: memref<32xf32, strided<[1], offset: 8>>) kernel {
      %t = gpu.thread_id x
      %x = memref.load %in[%t] : memref<64xf32>
      memref.store %x, %out[%t] : memref<32xf32, strided<[1], offset: 8>>
      gpu.return
    }
  }
  func.func @host(%in: memref<64xf32>, %out: memref<32xf32, strided<[1], offset: 8>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%in : memref<64xf32>, %out : memref<32xf32, strided<[1], offset: 8>>)
    return
  }
}

// -----

// ...and a dynamic buffer anywhere gives every kernel descriptors and every launch whole
// descriptors: five values for a 1-D buffer on both sides (the static one's too).
// CHECK-LABEL: llvm.func @static(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64)
// CHECK-LABEL: llvm.func @dynamic(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64)
// CHECK-LABEL: llvm.func @host
// CHECK: gpu.launch_func @kernels::@static
// CHECK-SAME: args(%{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64){{$}}
// CHECK: gpu.launch_func @kernels::@dynamic
// CHECK-SAME: args(%{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : !llvm.ptr, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64, %{{[0-9]+}} : i64){{$}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @static(%a: memref<4xf32>) kernel {
      gpu.return
    }
    gpu.func @dynamic(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @host(%a: memref<4xf32>, %b: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@static blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%a : memref<4xf32>)
    gpu.launch_func @kernels::@dynamic blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%b : memref<?xf32>)
    return
  }
}
