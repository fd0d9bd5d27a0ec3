//===- NodeImporter.cpp - the op registry and the per-node helpers --------===//
//
// The registry maps each ai.onnx op type to its ImportFn (the Import*.cpp files register
// theirs); NodeImporter's members read a node's attributes and constant inputs, build and
// fold its ops, and word its errors.
//
//===----------------------------------------------------------------------===//
#include "NodeImporter.h"
#include "OnnxValidation.h"
#include "infc/Import/OnnxImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace infc;

//===----------------------------------------------------------------------===//
// The op registry
//===----------------------------------------------------------------------===//

const ImportRegistry &infc::importRegistry() {
  static const ImportRegistry registry = [] {
    ImportRegistry r;
    registerElementwiseImporters(r);
    registerConvolutionImporters(r);
    registerPoolingImporters(r);
    registerNormalizationImporters(r);
    registerLinearImporters(r);
    registerReductionImporters(r);
    registerShapeImporters(r);
    registerIndexingImporters(r);
    registerResamplingImporters(r);
    registerCompositeImporters(r);
    registerQuantizationImporters(r);
    registerAttentionImporters(r);
    registerLossImporters(r);
    registerRecurrentImporters(r);
    registerControlFlowImporters(r);
    registerIntegerOpImporters(r);
    registerSignalImporters(r);
    registerGridSampleImporters(r);
    return r;
  }();
  return registry;
}

bool infc::isSupportedOnnxOp(StringRef opType) { return importRegistry().count(opType); }

std::vector<StringRef> infc::supportedOnnxOps() {
  std::vector<StringRef> ops;
  for (const auto &entry : importRegistry())
    ops.push_back(entry.getKey());
  llvm::sort(ops);
  return ops;
}

//===----------------------------------------------------------------------===//
// NodeImporter
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *NodeImporter::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

/// The attribute `name` when it holds `type`; otherwise (the validation against the schema
/// lets no such model through, so an importer asked for the wrong type) an error and null.
const onnx::AttributeProto *NodeImporter::typedAttr(StringRef name, int type) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return nullptr;
  int held = attributeTypeOf(*a);
  bool isList = type >= onnx::AttributeProto::FLOATS &&
                type != onnx::AttributeProto::SPARSE_TENSOR &&
                type != onnx::AttributeProto::TYPE_PROTO;
  if (held == type || (held == onnx::AttributeProto::UNDEFINED && isList))
    return a;
  const_cast<NodeImporter *>(this)->error()
      << "attribute '" << name << "' is not of the type this op reads ("
      << onnx::AttributeProto::AttributeType_Name(
             static_cast<onnx::AttributeProto::AttributeType>(type))
      << ")";
  return nullptr;
}

int64_t NodeImporter::getInt(StringRef name, int64_t def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::INT);
  return a ? a->i() : def;
}

double NodeImporter::getFloat(StringRef name, double def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : def;
}

std::string NodeImporter::getString(StringRef name, StringRef def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::STRING);
  return a ? a->s() : def.str();
}

SmallVector<int64_t> NodeImporter::getInts(StringRef name, ArrayRef<int64_t> def) const {
  const onnx::AttributeProto *a = typedAttr(name, onnx::AttributeProto::INTS);
  if (!a)
    return SmallVector<int64_t>(def);
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

DenseElementsAttr NodeImporter::constantInput(unsigned i) const {
  Value v = input(i);
  DenseElementsAttr attr;
  if (v && matchPattern(v, m_Constant(&attr)))
    return attr;
  return nullptr;
}

InFlightDiagnostic NodeImporter::notConstant(unsigned i, StringRef what) {
  // The graph inputs behind input i: the entry block's arguments its computation reads.
  llvm::SetVector<Value> seen;
  llvm::SmallVector<std::string> names;
  llvm::SmallVector<Value> work{input(i)};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!v || !seen.insert(v))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
      auto name =
          func ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "infc.name") : StringAttr();
      names.push_back(name ? name.str() : "#" + std::to_string(arg.getArgNumber()));
    } else if (Operation *def = v.getDefiningOp()) {
      llvm::append_range(work, def->getOperands());
    }
  }
  llvm::sort(names);
  InFlightDiagnostic d = error();
  d << what << " (input " << i << ") must be a compile-time constant; it depends on ";
  if (names.empty()) {
    d << "run-time values";
    return d;
  }
  d << "graph input" << (names.size() > 1 ? "s " : " ");
  for (auto [k, name] : llvm::enumerate(names))
    d << (k ? ", '" : "'") << name << "'";
  d << " (fix " << (names.size() > 1 ? "their values" : "its value") << " with --input-value "
    << names[0] << "=FILE.npy)";
  return d;
}

std::optional<SmallVector<int64_t>> NodeImporter::constantInts(unsigned i, StringRef what) {
  DenseElementsAttr attr = constantInput(i);
  if (!attr || !isa<IntegerType>(attr.getElementType())) {
    if (attr)
      error() << what << " (input " << i << ") must be an int tensor, got "
              << attr.getElementType();
    else
      notConstant(i, what);
    return std::nullopt;
  }
  SmallVector<int64_t> values;
  for (APInt v : attr.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

Value NodeImporter::foldNow(Operation *op) {
  SmallVector<Attribute> operands;
  int64_t operandElements = 0;
  for (Value v : op->getOperands()) {
    Attribute a;
    matchPattern(v, m_Constant(&a));
    operands.push_back(a);
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(a); dense && !dense.isSplat())
      operandElements += dense.getNumElements();
  }
  // A fold that would build a large constant out of a smaller one (Expand, Tile, a splat
  // widened by an elementwise op: the folders expand splats) is left to run time: the
  // compiler's memory is not the model's.
  if (op->getNumResults() == 1)
    if (auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType()))
      if (std::optional<int64_t> n = elementCount(type.getShape());
          !n || (*n > kMaxMaterializedElements && *n > operandElements))
        return op->getResult(0);
  // After an error the node fails whatever follows: nothing more is computed for it.
  if (hadError)
    return op->getResult(0);
  SmallVector<OpFoldResult> folded;
  if (op->getNumResults() != 1 || failed(op->fold(operands, folded)) || folded.empty())
    return op->getResult(0);
  if (auto v = dyn_cast<Value>(folded[0])) {
    op->erase();
    return v;
  }
  auto attr = dyn_cast<DenseElementsAttr>(cast<Attribute>(folded[0]));
  if (!attr)
    return op->getResult(0);
  op->erase();
  return constant(attr);
}

Value NodeImporter::failedOp(StringRef opName, StringRef why, ValueRange operands) {
  error() << "cannot build " << opName << ": " << why;
  // Zeros of the first tensor operand's type: something of a plausible shape for the rest of
  // the importer to read until it returns.
  RankedTensorType type = RankedTensorType::get({}, b.getF32Type());
  for (Value v : operands)
    if (auto t = dyn_cast<RankedTensorType>(v.getType());
        t && t.hasStaticShape() && t.getNumElements() >= 0) {
      type = t;
      break;
    }
  Attribute zero = b.getZeroAttr(type.getElementType());
  if (!zero)
    type = RankedTensorType::get({}, b.getF32Type()), zero = b.getF32FloatAttr(0);
  return constant(SplatElementsAttr::get(type, zero));
}

Value NodeImporter::constant(DenseElementsAttr value) {
  return ConstantOp::create(b, loc, cast<ElementsAttr>(value));
}

Value NodeImporter::scalarLike(Value like, double value) {
  auto type = RankedTensorType::get({}, cast<RankedTensorType>(like.getType()).getElementType());
  Type et = type.getElementType();
  if (auto ft = dyn_cast<FloatType>(et)) {
    APFloat f(value);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    return constant(DenseElementsAttr::get(type, f));
  }
  // A value past int64 (an attribute's 1e30, say) saturates; NaN is 0.
  int64_t whole = std::isnan(value) ? 0
                  : value >= 0x1p63 ? INT64_MAX
                  : value < -0x1p63 ? INT64_MIN
                                    : (int64_t)value;
  return constant(
      DenseElementsAttr::get(type, APInt(et.getIntOrFloatBitWidth(), (uint64_t)whole, true, true)));
}

Value NodeImporter::reshape(Value v, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getShape() == shape)
    return v;
  return create<ReshapeOp>(RankedTensorType::get(shape, type.getElementType()), v);
}

Value NodeImporter::sliceAxis(Value v, int64_t axis, int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> offsets(type.getRank(), 0), sizes(type.getShape()), steps(type.getRank(), 1);
  offsets[axis] = offset;
  sizes[axis] = size;
  return create<SliceOp>(v, b.getDenseI64ArrayAttr(offsets), b.getDenseI64ArrayAttr(sizes),
                         b.getDenseI64ArrayAttr(steps));
}

Value NodeImporter::castElements(Value v, Type elementType) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType() == elementType)
    return v;
  return create<CastOp>(type.clone(elementType), v);
}

Type NodeImporter::computeType(Type et) { return et.isF16() || et.isBF16() ? b.getF32Type() : et; }

Value NodeImporter::matmul(Value lhs, Value rhs) {
  Type et = cast<RankedTensorType>(lhs.getType()).getElementType(), wide = computeType(et);
  if (wide == et)
    return create<MatMulOp>(lhs, rhs);
  return castElements(create<MatMulOp>(castElements(lhs, wide), castElements(rhs, wide)), et);
}

std::optional<int64_t> NodeImporter::normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    error() << "axis " << axis << " is out of range for rank " << rank;
    return std::nullopt;
  }
  return axis < 0 ? axis + rank : axis;
}

bool NodeImporter::tableFits(ArrayRef<int64_t> dims, StringRef what) {
  std::optional<int64_t> n = elementCount(dims);
  if (n && *n <= kMaxMaterializedElements)
    return true;
  InFlightDiagnostic d = error();
  d << "needs " << what << " of ";
  if (n)
    d << *n;
  else
    d << "more than 2^63";
  d << " elements, more than the " << kMaxMaterializedElements << " the compiler builds";
  return false;
}

InFlightDiagnostic NodeImporter::error() {
  hadError = true;
  std::string domain = isDefaultDomain(node.domain()) ? "" : node.domain() + ":";
  // An unnamed node goes by the name its location gives it (op type and import order).
  std::string name = node.name();
  if (auto named = dyn_cast<NameLoc>(loc); named && name.empty())
    name = named.getName().strref().rsplit('(').first.str();
  return emitError(loc) << "node '" << name << "' (" << domain << node.op_type() << ", opset "
                        << opset << "): ";
}
