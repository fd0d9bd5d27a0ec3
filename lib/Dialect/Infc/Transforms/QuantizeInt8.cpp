//===- QuantizeInt8.cpp - Q/DQ around calibrated convolutions and matmuls -===//
//
// The quantization half of `infc compile --quantize int8`: the driver runs the float model
// on the calibration samples, and marks each convolution or matmul to quantize with the
// range its activation took (`infc.input_range`). This pass then writes what a QDQ model
// says: the activation through quantize/dequantize to uint8 per tensor (asymmetric, the
// range widened to hold 0 exactly), the constant weights as int8 per output channel
// (symmetric, [-127, 127]) behind a dequantize. infc-fold-qdq turns both into the integer
// kernel, exactly as for a model quantized by another tool.
//
//===----------------------------------------------------------------------===//
#include "infc/Dialect/Infc/IR/InfcOps.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"

#include <cmath>

namespace infc {
#define GEN_PASS_DEF_INFCQUANTIZEINT8
#include "infc/Dialect/Infc/Transforms/Passes.h.inc"
} // namespace infc

using namespace mlir;
using namespace infc;

namespace {
RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

Value constant(OpBuilder &b, Location loc, DenseElementsAttr value) {
  return ConstantOp::create(b, loc, cast<ElementsAttr>(value));
}

/// x -> dequantize(quantize(x)) to uint8 with the scale and zero point of [lo, hi].
Value quantizeActivation(OpBuilder &b, Location loc, Value x, double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  double scale = (hi - lo) / 255.0;
  int64_t zp = std::clamp<int64_t>((int64_t)std::nearbyint(-lo / scale), 0, 255);
  Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
  auto scalar = [&](Type t) { return RankedTensorType::get({}, t); };
  Value s = constant(b, loc, DenseElementsAttr::get(scalar(b.getF32Type()), (float)scale));
  Value z = constant(b, loc, DenseElementsAttr::get(scalar(u8), ArrayRef<APInt>{APInt(8, zp)}));
  Value q = QuantizeOp::create(b, loc, typeOf(x).clone(u8), x, s, z, 0, 0, true);
  return DequantizeOp::create(b, loc, typeOf(x), q, s, z, 0, 0);
}

/// A constant f32 weight as dequantize(int8, scale per slice along `axis`), symmetric:
/// scale = max |w| / 127 over the slice. Returns it and the relative RMS error of the
/// dequantized weights, ||w - dq(q(w))|| / ||w||.
std::pair<Value, double> quantizeWeight(OpBuilder &b, Location loc, DenseElementsAttr w,
                                        int64_t axis) {
  auto type = cast<RankedTensorType>(w.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t channels = shape[axis], inner = 1;
  for (int64_t d = axis + 1; d < type.getRank(); ++d)
    inner *= shape[d];
  SmallVector<float> values = llvm::to_vector(w.getValues<float>());
  auto channelOf = [&](size_t i) { return (i / inner) % channels; };
  SmallVector<float> scales(channels, 0.f);
  for (size_t i = 0; i < values.size(); ++i)
    scales[channelOf(i)] = std::max(scales[channelOf(i)], std::fabs(values[i]));
  for (float &s : scales)
    s = s > 0.f ? s / 127.f : 1.f;
  SmallVector<int8_t> q(values.size());
  double err = 0, norm = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    float s = scales[channelOf(i)];
    q[i] = (int8_t)std::clamp(std::nearbyint(values[i] / s), -127.f, 127.f);
    double d = values[i] - q[i] * (double)s;
    err += d * d;
    norm += (double)values[i] * values[i];
  }
  Value qw =
      constant(b, loc, DenseElementsAttr::get(type.clone(b.getI8Type()), ArrayRef<int8_t>(q)));
  Value s = constant(b, loc,
                     DenseElementsAttr::get(RankedTensorType::get({channels}, b.getF32Type()),
                                            ArrayRef<float>(scales)));
  Value dq = DequantizeOp::create(b, loc, type, qw, s, Value(), axis, 0);
  return {dq, norm > 0 ? std::sqrt(err / norm) : 0.0};
}

struct InfcQuantizeInt8Pass : public infc::impl::InfcQuantizeInt8Base<InfcQuantizeInt8Pass> {
  void runOnOperation() override {
    getOperation().walk([&](Operation *op) {
      auto range = op->getAttrOfType<DenseF64ArrayAttr>("infc.input_range");
      if (!range || range.size() != 2 || !isa<ConvOp, MatMulOp>(op))
        return;
      // The activation (operand 0) and the weight (operand 1, constant f32): a conv's
      // filters per output channel (axis 0), a matmul's [K, N] per column (axis 1).
      Value x = op->getOperand(0), w = op->getOperand(1);
      DenseElementsAttr weights;
      bool isMatMul = isa<MatMulOp>(op);
      if (!typeOf(x).getElementType().isF32() || !matchPattern(w, m_Constant(&weights)) ||
          !weights.getElementType().isF32() || (isMatMul && typeOf(w).getRank() != 2)) {
        op->emitWarning("kept in float: needs an f32 activation and constant f32 weights");
        return;
      }
      double lo = range[0], hi = range[1];
      if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi)) {
        op->emitWarning("kept in float: its calibrated input range [")
            << lo << ", " << hi << "] is empty or not finite";
        return;
      }
      OpBuilder b(op);
      Location loc = op->getLoc();
      auto [dq, error] = quantizeWeight(b, loc, weights, isMatMul ? 1 : 0);
      op->setOperand(0, quantizeActivation(b, loc, x, lo, hi));
      op->setOperand(1, dq);
      op->setAttr("infc.weight_error", b.getF64FloatAttr(error));
    });
  }
};
} // namespace
