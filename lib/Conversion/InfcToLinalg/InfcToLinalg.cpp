//===- InfcToLinalg.cpp - the convert-infc-to-linalg pass -----------------===//
#include "PopulatePatterns.h"
#include "Utils.h"
#include "infc/Conversion/Passes.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace infc {
#define GEN_PASS_DEF_CONVERTINFCTOLINALG
#include "infc/Conversion/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

void infc::populateInfcToLinalgPatterns(RewritePatternSet &patterns, bool directConv,
                                        int64_t byteRowMultiple, int64_t winogradMinChannels,
                                        bool bf16Convs) {
  populateElementwisePatterns(patterns);
  populateLinearPatterns(patterns, directConv, byteRowMultiple, winogradMinChannels, bf16Convs);
  populatePoolingPatterns(patterns);
  populateReductionPatterns(patterns);
  populateDataMovementPatterns(patterns);
  populateIndexingPatterns(patterns);
  populateQuantizationPatterns(patterns);
  populateAttentionPatterns(patterns);
}

/// A multi-dim tensor with no elements crosses function boundaries as a 1-D `tensor<0xT>`:
/// MLIR's canonical strides of, say, memref<2x0xf32> are not static, so the bare-pointer
/// call convention of the LLVM lowering would refuse the whole function. No data crosses
/// either way: inside, an argument becomes a tensor.empty of its shape, and a result is
/// returned as a fresh tensor.empty.
static void flattenEmptyBoundaryTensors(func::FuncOp func) {
  if (func.isExternal())
    return;
  auto needsFlattening = [](Type t) {
    auto tt = dyn_cast<RankedTensorType>(t);
    return tt && tt.hasStaticShape() && tt.getRank() != 1 && tt.getNumElements() == 0;
  };
  auto flat = [](Type t) {
    return RankedTensorType::get({0}, cast<RankedTensorType>(t).getElementType());
  };
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  for (BlockArgument arg : entry.getArguments()) {
    if (!needsFlattening(arg.getType()))
      continue;
    auto type = cast<RankedTensorType>(arg.getType());
    Value empty = tensor::EmptyOp::create(b, func.getLoc(), type.getShape(), type.getElementType());
    arg.replaceAllUsesWith(empty);
    arg.setType(flat(type));
  }
  func.walk([&](func::ReturnOp ret) {
    for (OpOperand &operand : ret->getOpOperands())
      if (needsFlattening(operand.get().getType())) {
        b.setInsertionPoint(ret);
        operand.set(tensor::EmptyOp::create(b, ret.getLoc(), ArrayRef<int64_t>{0},
                                            getElementTypeOrSelf(operand.get().getType())));
      }
  });
  FunctionType ft = func.getFunctionType();
  auto convert = [&](TypeRange types) {
    return llvm::map_to_vector(types, [&](Type t) { return needsFlattening(t) ? flat(t) : t; });
  };
  func.setFunctionType(
      FunctionType::get(func.getContext(), convert(ft.getInputs()), convert(ft.getResults())));
}

namespace {
struct ConvertInfcToLinalgPass
    : public infc::impl::ConvertInfcToLinalgBase<ConvertInfcToLinalgPass> {
  using ConvertInfcToLinalgBase::ConvertInfcToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // float8/float4 values are only moved and cast: every other op would compute on bits.
    WalkResult smallFloats = getOperation()->walk([](Operation *op) {
      if (!isa<InfcDialect>(op->getDialect()) ||
          isa<CastOp, ConstantOp, ShapeOp, ReshapeOp, BroadcastOp, TransposeOp, ConcatOp, SliceOp,
              GatherOp, WhereOp, PadOp, QuantizeOp, DequantizeOp>(op))
        return WalkResult::advance();
      for (Type t : llvm::concat<const Type>(op->getOperandTypes(), op->getResultTypes()))
        if (lowering::isSmallFloat(t)) {
          op->emitOpError("is not supported on element type ") << getElementTypeOrSelf(t);
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (smallFloats.wasInterrupted())
      return signalPassFailure();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<InfcDialect>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, func::FuncDialect, scf::SCFDialect,
                           vector::VectorDialect, bufferization::BufferizationDialect,
                           memref::MemRefDialect>();
    // The function signature and returns lose the signedness of unsigned integer types;
    // the infc patterns build signless types themselves.
    TypeConverter signlessTypes;
    signlessTypes.addConversion([](Type t) { return lowering::signless(t); });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return signlessTypes.isSignatureLegal(op.getFunctionType()) &&
             signlessTypes.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return signlessTypes.isLegal(op.getOperandTypes()); });
    RewritePatternSet patterns(ctx);
    populateInfcToLinalgPatterns(patterns, directConv, byteRowMultiple, winogradMinChannels,
                                 bf16Convs);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, signlessTypes);
    populateReturnOpTypeConversionPattern(patterns, signlessTypes);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
    getOperation()->walk(flattenEmptyBoundaryTensors);
  }
};
} // namespace
