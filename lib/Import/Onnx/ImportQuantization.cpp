//===- ImportQuantization.cpp - ONNX QuantizeLinear, DequantizeLinear -----===//
//
// Both map to one infc op whose scale shape says the granularity (see InfcOps.td): the
// importer turns a one-element scale into a rank-0 one (per tensor) and checks per-axis and
// blocked scales against the input. DynamicQuantizeLinear is built from reductions and
// infc.quantize.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"

using namespace mlir;
using namespace infc;

namespace {
struct QuantParams {
  Value scale, zeroPoint;
  int64_t axis = 0, blockSize = 0;
};

/// Scale input 1 and the optional zero point input 2, normalized; nullopt after an error.
std::optional<QuantParams> quantParams(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0), st = n.inputType(1);
  QuantParams p{n.input(1), n.input(2)};
  if (n.input(2) && n.inputType(2).getShape() != st.getShape() &&
      n.inputType(2).getNumElements() != st.getNumElements()) {
    n.error() << "zero point " << n.inputType(2) << " and scale " << st << " differ in shape";
    return std::nullopt;
  }
  if (st.getNumElements() == 1) { // per tensor, whatever the scale's rank
    p.scale = n.reshape(p.scale, {});
    if (p.zeroPoint)
      p.zeroPoint = n.reshape(p.zeroPoint, {});
    return p;
  }
  std::optional<int64_t> axis = n.normalizeAxis(n.getInt("axis", 1), xt.getRank());
  if (!axis)
    return std::nullopt;
  p.axis = *axis;
  p.blockSize = n.getInt("block_size", 0);
  if (p.blockSize < 0) {
    n.error() << "block_size must be >= 0, got " << p.blockSize;
    return std::nullopt;
  }
  if (p.blockSize == 0 && (st.getRank() != 1 || st.getDimSize(0) != xt.getDimSize(p.axis))) {
    n.error() << "a per-axis scale must have shape [" << xt.getDimSize(p.axis) << "] (dim "
              << p.axis << " of the input), got " << st;
    return std::nullopt;
  }
  if (p.blockSize > 0) {
    for (int64_t d = 0; d < xt.getRank(); ++d) {
      int64_t want =
          d == p.axis ? (xt.getDimSize(d) + p.blockSize - 1) / p.blockSize : xt.getDimSize(d);
      if (st.getRank() != xt.getRank() || st.getDimSize(d) != want) {
        n.error() << "a blocked scale for input " << xt << ", axis " << p.axis << " and block_size "
                  << p.blockSize << " must have dim " << d << " = " << want << ", got " << st;
        return std::nullopt;
      }
    }
  }
  return p;
}

LogicalResult importQuantizeLinear(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!isa<FloatType>(xt.getElementType()) || !isa<FloatType>(n.inputType(1).getElementType()))
    return n.error() << "expects float input and scale, got " << xt.getElementType() << " and "
                     << n.inputType(1).getElementType();
  // The quantized type: the zero point's, else output_dtype, else uint8.
  Type q = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  if (int64_t dtype = n.getInt("output_dtype", 0)) {
    q = onnxElementType(n.b.getContext(), dtype);
    if (!q)
      return n.error() << "unsupported output_dtype " << onnxDataTypeName(dtype);
  }
  if (n.input(2)) {
    Type zq = n.inputType(2).getElementType();
    if (n.getInt("output_dtype", 0) && zq != q)
      return n.error() << "output_dtype " << q << " differs from the zero point's " << zq;
    q = zq;
  }
  if (!(isa<IntegerType>(q) && !q.isInteger(1)) &&
      !(isa<FloatType>(q) && q.getIntOrFloatBitWidth() < 16))
    return n.error() << "cannot quantize to " << q;
  std::optional<QuantParams> p = quantParams(n);
  if (!p)
    return failure();
  n.setResult(0, n.create<QuantizeOp>(xt.clone(q), n.input(0), p->scale, p->zeroPoint, p->axis,
                                      p->blockSize, n.getInt("saturate", 1) != 0));
  return success();
}

LogicalResult importDequantizeLinear(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  Type st = n.inputType(1).getElementType(), out = st;
  if (!isa<FloatType>(st))
    return n.error() << "expects a float scale, got " << st;
  if (int64_t dtype = n.getInt("output_dtype", 0)) {
    out = onnxElementType(n.b.getContext(), dtype);
    if (!out || !isa<FloatType>(out))
      return n.error() << "unsupported output_dtype " << onnxDataTypeName(dtype);
  }
  Type q = xt.getElementType();
  if (q.isInteger(1) || (isa<FloatType>(q) && q.getIntOrFloatBitWidth() >= 16))
    return n.error() << "cannot dequantize " << q;
  if (n.input(2) && n.inputType(2).getElementType() != q)
    return n.error() << "the zero point's element type " << n.inputType(2).getElementType()
                     << " differs from the input's " << q;
  std::optional<QuantParams> p = quantParams(n);
  if (!p)
    return failure();
  n.setResult(0, n.create<DequantizeOp>(xt.clone(out), n.input(0), p->scale, p->zeroPoint, p->axis,
                                        p->blockSize));
  return success();
}

/// scale = (max(0, max x) - min(0, min x)) / 255; zero point = saturate(round(-min / scale));
/// y = quantize(x) to uint8.
LogicalResult importDynamicQuantizeLinear(NodeImporter &n) {
  RankedTensorType xt = n.inputType(0);
  if (!xt.getElementType().isF32())
    return n.error() << "expects a float input, got " << xt.getElementType();
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, xt.getRank()));
  auto axes = n.b.getDenseI64ArrayAttr(all);
  Value zero = n.scalarLike(n.input(0), 0.0);
  Value lo = n.create<MinOp>(n.create<ReduceMinOp>(n.input(0), axes, n.b.getBoolAttr(false)), zero);
  Value hi = n.create<MaxOp>(n.create<ReduceMaxOp>(n.input(0), axes, n.b.getBoolAttr(false)), zero);
  Value scale = n.create<DivOp>(n.create<SubOp>(hi, lo), n.scalarLike(zero, 255.0));
  Value zp = n.create<RoundOp>(n.create<SubOp>(zero, n.create<DivOp>(lo, scale)));
  zp = n.create<ClipOp>(zp, n.b.getF64FloatAttr(0.0), n.b.getF64FloatAttr(255.0));
  Type u8 = IntegerType::get(n.b.getContext(), 8, IntegerType::Unsigned);
  zp = n.castElements(zp, u8);
  n.setResult(0, n.create<QuantizeOp>(xt.clone(u8), n.input(0), scale, zp, 0, 0, true));
  n.setResult(1, scale);
  n.setResult(2, zp);
  return success();
}
} // namespace

void infc::registerQuantizationImporters(ImportRegistry &r) {
  r["QuantizeLinear"] = importQuantizeLinear;
  r["DequantizeLinear"] = importDequantizeLinear;
  r["DynamicQuantizeLinear"] = importDynamicQuantizeLinear;
}
