// The backslash keeps lit's `infc` tool substitution off the option value.
// RUN: infc-opt %s --infc-pipeline=stop-after=\infc | FileCheck %s --check-prefix=INFC
// RUN: infc-opt %s --infc-pipeline="stop-after=linalg" | FileCheck %s --check-prefix=LINALG
// RUN: infc-opt %s --infc-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: infc-opt %s --infc-pipeline="stop-after=llvm" | FileCheck %s --check-prefix=LLVM
// RUN: infc-opt %s --infc-pipeline | FileCheck %s --check-prefix=NONLLVM

// A small CNN as the importer emits it, with the shape subgraph of a flatten and a transposed
// Gemm weight, through each stage of the pipeline `infc compile` runs.

// After the graph passes: the shape subgraph and the weight transpose are folded away.
// INFC-LABEL: func.func @main
// INFC-SAME: (%{{.*}}: tensor<1x1x4x4xf32>) -> tensor<1x3xf32>
// INFC-DAG: %[[FW:.*]] = infc.constant dense<{{\[}}[1.000000e+00, 9.000000e+00, 1.700000e+01], [2.000000e+00, 1.000000e+01, 1.800000e+01],
// INFC-SAME: : tensor<8x3xf32>
// INFC-NOT: infc.shape
// INFC-NOT: infc.gather
// INFC-NOT: infc.concat
// INFC-NOT: infc.transpose
// INFC: infc.conv
// INFC: infc.relu
// INFC: infc.max_pool
// INFC: %[[FLAT:.*]] = infc.reshape %{{.*}} : tensor<1x2x2x2xf32> -> tensor<1x8xf32>
// INFC: infc.matmul %[[FLAT]], %[[FW]] : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
// INFC: infc.softmax

// After the seam: linalg on tensors in NHWC (infc-channels-last; the one-channel image's
// transpose moves only a unit dim, so it is a reshape), the bias add and the relu fused into
// one generic, the conv (im2col rows times the weights as [KH*KW*C, F]) and the FC layer as
// linalg.matmul, which elementwise fusion never absorbs. The flatten needs NCHW order: the
// one transpose left is in front of it.
// LINALG-LABEL: func.func @main
// LINALG-SAME: (%{{.*}}: tensor<1x1x4x4xf32>) -> tensor<1x3xf32>
// LINALG-NOT: infc.
// LINALG-NOT: linalg.transpose
// LINALG: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// LINALG: linalg.matmul {infc.conv} ins(%{{.*}}, %{{.*}} : tensor<16x9xf32>, tensor<9x2xf32>)
// LINALG: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x4x4x2xf32>, tensor<2xf32>)
// LINALG-NEXT: ^bb0
// LINALG-NEXT: %[[B:.*]] = arith.addf
// LINALG-NEXT: %[[R:.*]] = arith.maximumf %[[B]], %{{.*}} : f32
// LINALG-NEXT: linalg.yield %[[R]]
// The 2x2 max pool: the max of four strided slices.
// LINALG: tensor.extract_slice %{{.*}}[0, 1, 1, 0] [1, 2, 2, 2] [1, 2, 2, 1]
// LINALG: linalg.generic
// LINALG-COUNT-3: arith.maximumf
// LINALG: linalg.transpose ins(%{{.*}} : tensor<1x2x2x2xf32>) {{.*}} permutation = [0, 3, 1, 2]
// LINALG: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<1x8xf32>, tensor<8x3xf32>)
// LINALG: math.exp
// LINALG: arith.divf
// LINALG-NOT: infc.
// LINALG: return %{{.*}} : tensor<1x3xf32>

// The LLVM dialect: bare pointers, the workspace first, then the input and the output buffer.
// LLVM: module attributes {infc.workspace_bytes = {{[1-9][0-9]*}} : i64}
// LLVM-DAG: llvm.mlir.global private constant @{{.*}}(dense<{{.*}}> : tensor<9x2xf32>)
// LLVM: llvm.func @main(%[[WS:.*]]: !llvm.ptr {infc.workspace}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) {
// LLVM: llvm.getelementptr {{.*}}%[[WS]]
// The softmax's exp is vectorized, as an inline polynomial: no libm call.
// LLVM-NOT: llvm.call @expf
// LLVM: llvm.return
// Nothing but the LLVM dialect is left anywhere in the module, and nothing calls the
// runtime library or the allocator.
// NONLLVM-NOT: builtin.unrealized_conversion_cast
// NONLLVM-NOT: {{ (memref|linalg|tensor|func|scf|cf|math|vector|arith|bufferization)\.}}
// NONLLVM-NOT: memrefCopy
// NONLLVM-NOT: malloc
func.func @main(%x: tensor<1x1x4x4xf32>) -> tensor<1x3xf32> {
  %w = infc.constant dense<[[[[1.0, 0.0, -1.0], [2.0, 0.0, -2.0], [1.0, 0.0, -1.0]]], [[[0.5, 0.5, 0.5], [0.0, 0.0, 0.0], [-0.5, -0.5, -0.5]]]]> : tensor<2x1x3x3xf32>
  %cb = infc.constant dense<[0.0, 1.0]> : tensor<2xf32>
  %0 = infc.conv %x, %w, %cb {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<2x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = infc.relu %0 : tensor<1x2x4x4xf32>
  %2 = infc.max_pool %1 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  // Flatten: reshape to (shape[0], -1), computed at run time by the exporter.
  %s = infc.shape %2 : tensor<1x2x2x2xf32> -> tensor<4xi64>
  %i = infc.constant dense<0> : tensor<1xi64>
  %n = infc.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %m1 = infc.constant dense<-1> : tensor<1xi64>
  %shape = infc.concat %n, %m1 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %3 = infc.reshape %2 : tensor<1x2x2x2xf32> -> tensor<1x8xf32>
  // Gemm with transB = 1.
  %fw = infc.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0], [17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0]]> : tensor<3x8xf32>
  %fwt = infc.transpose %fw {perm = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
  %4 = infc.matmul %3, %fwt : (tensor<1x8xf32>, tensor<8x3xf32>) -> tensor<1x3xf32>
  %5 = infc.softmax %4 {axis = 1 : i64} : tensor<1x3xf32>
  return %5 : tensor<1x3xf32>
}
