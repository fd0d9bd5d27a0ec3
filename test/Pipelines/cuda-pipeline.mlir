// RUN: infc-opt %s --infc-pipeline="target=cuda gpu=sm_80,sm_90" | FileCheck %s
// RUN: infc-opt %s --infc-pipeline="target=cuda-emulator" | FileCheck %s --check-prefix=EMU
// RUN: infc-opt %s --infc-pipeline="target=cuda-emulator emulator-checks=true" | FileCheck %s --check-prefix=CHECKS
// RUN: infc-opt %s --infc-pipeline="target=cuda gpu=sm_90,sm_80" | FileCheck %s --check-prefix=ORDER
// RUN: not infc-opt %s --infc-pipeline="target=cuda gpu-layout=nhcw" 2>&1 | FileCheck %s --check-prefix=LAYOUT
// RUN: not infc-opt %s --infc-pipeline="target=tpu" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not infc-opt %s --infc-pipeline="target=cuda precision=fp16 activations=some" 2>&1 | FileCheck %s --check-prefix=ACTIVATIONS
// RUN: not infc-opt %s --infc-pipeline="target=cuda emulator-checks=true" 2>&1 | FileCheck %s --check-prefix=RACE
// RUN: not infc-opt %s --infc-pipeline="target=cuda-emulator gpu-index-bits=32" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BITS-TARGET
// RUN: not infc-opt %s --infc-pipeline="target=cuda gpu-index-bits=16" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BITS
// RUN: infc-opt %s --infc-pipeline="target=cuda gpu-index-bits=32" | FileCheck %s --check-prefix=I32

// A pipeline string's values are checked as the CLI's flags are, not taken for defaults.
// LAYOUT: infc-pipeline: gpu-layout 'nhcw' is not nhwc or nchw
// TARGET: infc-pipeline: target 'tpu' is not cpu, cuda or cuda-emulator
// ACTIVATIONS: infc-pipeline: activations 'some' is not half, rounded or fp32
// RACE: infc-pipeline: emulator-checks needs target=cuda-emulator
// BITS-TARGET: infc-pipeline: gpu-index-bits=32 needs target=cuda
// BITS: infc-pipeline: gpu-index-bits '16' is not 64 or 32

// 32-bit kernel indices: the same launches, every kernel built.
// I32: gpu.launch_func @infc_kernels::@k0_conv
// I32: gpu.binary @infc_kernels

// The PTX is for the oldest architecture whatever the order given.
// ORDER: gpu.binary @infc_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">

// A conv, relu, matmul and softmax (exp from libdevice) through `infc compile --target
// cuda`: the host function takes the workspace and the weights, launches one kernel per loop
// nest and touches no tensor data itself; the kernels are one fatbin (a cubin per GPU and the
// PTX, from ptxas and fatbinary) inside the module.
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%{{.*}}: !llvm.ptr {infc.workspace}, %{{.*}}: !llvm.ptr {infc.weights}, %{{.*}}: !llvm.ptr {infc.name = "x"}, %{{.*}}: !llvm.ptr {infc.name = "y"})
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func @infc_kernels::@k0_conv
// CHECK-SAME: args({{(%[a-z0-9]+ : !llvm.ptr(, )?)+}}){{$}}
// CHECK-NOT: llvm.load
// CHECK-NOT: llvm.store
// CHECK: gpu.launch_func @infc_kernels::@{{.*}}_softmax
// CHECK: llvm.return
// CHECK: gpu.binary @infc_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">, properties = {{.*}}, "P\EDU\BA
// CHECK: llvm.mlir.global external constant @infc__weights
// CHECK-SAME: !llvm.array<576 x i8>

// The emulator: the same kernels as loops on the CPU; no GPU op is left.
// EMU-LABEL: llvm.func @main
// EMU-SAME: (%{{.*}}: !llvm.ptr {infc.workspace}, %{{.*}}: !llvm.ptr {infc.weights}, %{{.*}}: !llvm.ptr {infc.name = "x"}, %{{.*}}: !llvm.ptr {infc.name = "y"})
// EMU-NOT: gpu.
// EMU-NOT: llvm.call @abort

// With emulator-checks: the workspace filled with 0xFF bytes on entry, and the loads and
// stores that bounds do not prove in range checked (an abort with a message that names
// the ONNX node).
// CHECKS: llvm.mlir.global private constant @assert_msg
// CHECKS-LABEL: llvm.func @main
// CHECKS: llvm.mlir.constant(-1 : i8) : i8
// CHECKS: llvm.call @abort()
func.func @main(%x: tensor<1x1x4x4xf32> {infc.name = "x"}) -> (tensor<1x3xf32> {infc.name = "y"}) {
  %w = infc.constant dense<[[[[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]], [[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [-0.5, -0.5, -0.5]]]]> : tensor<2x1x3x3xf32>
  %cb = infc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = infc.conv %x, %w, %cb {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32> loc("conv"("Conv"))
  %1 = infc.relu %0 : tensor<1x2x4x4xf32> loc("relu"("Relu"))
  %2 = infc.reshape %1 : tensor<1x2x4x4xf32> -> tensor<1x32xf32>
  %fw = infc.constant dense<0.25> : tensor<32x3xf32>
  %3 = infc.matmul %2, %fw : (tensor<1x32xf32>, tensor<32x3xf32>) -> tensor<1x3xf32> loc("fc"("MatMul"))
  %4 = infc.softmax %3 {axis = 1 : i64} : tensor<1x3xf32> loc("softmax"("Softmax"))
  return %4 : tensor<1x3xf32>
}
