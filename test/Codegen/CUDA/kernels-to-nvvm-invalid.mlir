// RUN: infc-opt %s -split-input-file -infc-kernels-to-nvvm=index-bitwidth=32 -verify-diagnostics

// 32-bit indices need bare pointers: a dynamic buffer has none.
// expected-error @below {{32-bit kernel indices (--gpu-index-bits 32) need every kernel's buffers static and within 2^30 elements, and no index argument}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @dynamic(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// 2^30 + 1 elements: past the headroom.
// expected-error @below {{32-bit kernel indices}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @large(%a: memref<1073741825xi8>) kernel {
      gpu.return
    }
  }
}

// -----

// An index argument would be i32 in the kernel and i64 at the launch.
// expected-error @below {{32-bit kernel indices}}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @count(%a: memref<4xf32>, %n: index) kernel {
      gpu.return
    }
  }
}

// -----

// Exactly 2^30 elements fit.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fits(%a: memref<1073741824xi8>) kernel {
      gpu.return
    }
  }
}
