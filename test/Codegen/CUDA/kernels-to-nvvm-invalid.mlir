// RUN: infc-opt %s -split-input-file -infc-kernels-to-nvvm=index-bitwidth=32 -verify-diagnostics

// 32-bit indices need bare pointers: a dynamic buffer has none.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{infc-kernels-to-nvvm: 32-bit kernel indices (--gpu-index-bits 32) need every kernel's buffers static and within 2^30 elements, and no index argument: dynamic's argument 0 is not a static buffer}}
    gpu.func @dynamic(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// Nor an unranked one.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{unranked's argument 0 is not a static buffer}}
    gpu.func @unranked(%a: memref<*xf32>) kernel {
      gpu.return
    }
  }
}

// -----

// 2^30 + 1 elements: past the headroom.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{large's argument 0 spans 1073741825 elements, more than 2^30}}
    gpu.func @large(%a: memref<1073741825xi8>) kernel {
      gpu.return
    }
  }
}

// -----

// 2^30 elements from an offset of 1: the last one at 2^30, past the headroom too.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{shifted's argument 0 spans 1073741825 elements}}
    gpu.func @shifted(%a: memref<1073741824xi8, strided<[1], offset: 1>>) kernel {
      gpu.return
    }
  }
}

// -----

// Rows of 2^16 elements with a stride of 2^16 + 1: (2^14 - 1) x (2^16 + 1) + 2^16 elements
// (a row-major 2^14 x 2^16 would just fit).
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{strided's argument 0 spans 1073758207 elements}}
    gpu.func @strided(%a: memref<16384x65536xi8, strided<[65537, 1]>>) kernel {
      gpu.return
    }
  }
}

// -----

// An index argument would be i32 in the kernel and i64 at the launch...
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{count's argument 1 holds indices, 64-bit on the host}}
    gpu.func @count(%a: memref<4xf32>, %n: index) kernel {
      gpu.return
    }
  }
}

// -----

// ...and a buffer of indices would be read as i32s the host wrote as i64s.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    // expected-error @below {{offsets's argument 0 holds indices, 64-bit on the host}}
    gpu.func @offsets(%a: memref<4xindex>) kernel {
      gpu.return
    }
  }
}

// -----

// Exactly 2^30 elements fit, and so does an empty buffer at any offset below it.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @fits(%a: memref<1073741824xi8>, %e: memref<0x4xf32, strided<[4, 1], offset: 1000>>) kernel {
      gpu.return
    }
  }
}
