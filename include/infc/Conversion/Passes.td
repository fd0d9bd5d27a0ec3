//===- Passes.td - infc conversion passes -----------------------*- tablegen -*-===//
#ifndef INFC_CONVERSION_PASSES_TD
#define INFC_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertInfcToLinalg : Pass<"convert-infc-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower infc graph ops to linalg, tensor, arith and math on tensors";
  let description = [{
    The target seam: everything below works on standard MLIR, for the CPU and CUDA code
    generators alike. Elementwise ops become broadcasting `linalg.generic`s, matmul and
    convolutions named linalg ops, reductions and normalizations generics with explicit
    accumulators.
  }];
  let options = [
    Option<"directConv", "direct-conv", "bool", /*default=*/"false",
           "Convolutions as linalg convolution ops (one loop nest each: the GPU's choice) "
           "instead of im2col + linalg.matmul (the CPU's register-tiled matmul)">,
    Option<"byteRowMultiple", "byte-row-multiple", "int64_t", /*default=*/"1",
           "Rows of an int8 convolution's im2col matrix zero-padded to a multiple of this "
           "many bytes, the weights given zero rows (64 for AMX, whose K steps are 64 bytes)">,
    Option<"winogradMinChannels", "winograd-min-channels", "int64_t", /*default=*/"64",
           "NHWC 3x3 stride-1 f32 convolutions of at least this many input and output "
           "channels (both multiples of 16) by Winograd F(2x2, 3x3); 0 turns it off">,
    Option<"bf16Convs", "bf16-convs", "bool", /*default=*/"false",
           "NHWC plain f32 convolutions with constant weights (--precision bf16 on the CPU) as "
           "im2col rows of bf16 (rounded before the gather, padded to 32 values) times the "
           "weights, for infc-bf16-matmul; no Winograd or implicit GEMM">,
  ];
  let dependentDialects = [
    "mlir::linalg::LinalgDialect", "mlir::tensor::TensorDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
    // a decoder's runtime calls (Attention.cpp): buffers of the operands, views, the call
    "mlir::memref::MemRefDialect", "mlir::bufferization::BufferizationDialect"
  ];
}

#endif // INFC_CONVERSION_PASSES_TD
