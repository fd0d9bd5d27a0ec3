// RUN: infc-opt %s -split-input-file -verify-diagnostics -infc-cuda-fatbin="archs=sm_80,sm_90" | FileCheck %s
// RUN: not infc-opt %s -split-input-file -infc-cuda-fatbin="archs=compute_80" 2>&1 | FileCheck %s --check-prefix=ARCH

// The PTX that gpu-module-to-binary wrote becomes a fatbin (magic 0xBA55ED50, here
// "P\ED U \BA"): the CUDA driver loads it whatever the GPU.
// CHECK: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80">, "P\EDU\BA
gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = ".version 8.0\0A.target sm_80\0A.address_size 64\0A.visible .entry k0()\0A{\0A\09ret;\0A}\0A">]

// -----

// ptxas's own message comes with the error.
// expected-error @+1 {{ptxas rejected the kernels for sm_80}}
gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "this is not PTX">]

// -----

// expected-error @+1 {{infc-cuda-fatbin: expected the kernels as PTX}}
gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_80">, bin = "\7FELF">]

// ARCH: error: infc-cuda-fatbin: 'compute_80' is not a GPU architecture (sm_80, sm_90, ...)
