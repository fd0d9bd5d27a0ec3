//===- Generalize.cpp - a symbolic dim found by comparing static imports --===//
//
// The importers were written for static shapes, and exporters compute sizes from a
// symbolic dim (Shape -> Gather -> Concat -> Reshape, a Slice of position ids to the
// sequence length, a mask expanded to [seq, seq]). Rather than teaching every importer a
// `?`, the model is imported with the dim fixed at several sizes, where all of that folds,
// and the imports are compared: the same ops, attributes and constants at every size, and
// each value's dims either the same at every size or the size itself. The largest import
// then becomes generic code by giving those dims `?` (docs/dynamic-shapes.md, "3d"):
// - a constant that differs is accepted when it is, at each size, the first entries of the
//   largest import's along the dim (position ids, a causal mask): it becomes a slice of it;
// - a slice whose size is the dim keeps `?` as that size.
// A dim that changes with the size other than as the size itself (`2 * seq`, `seq + 1`),
// an attribute or constant computed otherwise from it, or an op the generic lowering does
// not take (checkSymbolicOps) is refused with the node named. The code is the import at the
// range's maximum, compared with those at 2, 3, 97 below it and the sizes below 2 the range
// has; a model that does not import at its maximum is refused.
//
//===----------------------------------------------------------------------===//
#include "ModelImporter.h"
#include "ProbeImport.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace infc;
using namespace infc::detail;

namespace {
/// Which dims of a value typed `a` at size `sizeA` and `b` at `sizeB` are the dim itself;
/// nullopt when a dim changes otherwise (or the rank or element type does).
std::optional<SmallVector<bool>> symbolicDimsOf(Type a, Type b, int64_t sizeA, int64_t sizeB) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getRank() != tb.getRank() || ta.getElementType() != tb.getElementType())
    return std::nullopt;
  SmallVector<bool> dims;
  for (int64_t d = 0; d < ta.getRank(); ++d) {
    if (ta.getDimSize(d) == tb.getDimSize(d)) {
      dims.push_back(false);
      continue;
    }
    if (ta.getDimSize(d) != sizeA || tb.getDimSize(d) != sizeB)
      return std::nullopt;
    dims.push_back(true);
  }
  return dims;
}

/// Whether `small` holds the first entries of `large` along every dim (their shapes differ
/// only where `small` is shorter).
bool isLeadingBlock(DenseElementsAttr large, DenseElementsAttr small) {
  auto lt = large.getType(), st = small.getType();
  if (lt.getElementType() != st.getElementType() || lt.getRank() != st.getRank())
    return false;
  if (large.isSplat() && small.isSplat())
    return *large.value_begin<Attribute>() == *small.value_begin<Attribute>();
  ArrayRef<int64_t> ls = lt.getShape(), ss = st.getShape();
  for (auto [l, sm] : llvm::zip(ls, ss))
    if (sm > l) // (a constant that shrinks as the size grows is no leading block)
      return false;
  SmallVector<int64_t> strides(ls.size(), 1);
  for (int64_t d = (int64_t)ls.size() - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * ls[d + 1];
  auto largeValues = large.getValues<Attribute>();
  int64_t count = st.getNumElements();
  SmallVector<int64_t> index(ss.size(), 0);
  auto smallValues = small.getValues<Attribute>();
  for (int64_t i = 0; i < count; ++i) {
    int64_t at = 0;
    for (size_t d = 0; d < ss.size(); ++d)
      at += index[d] * strides[d];
    if (largeValues[at] != smallValues[i])
      return false;
    for (int64_t d = (int64_t)ss.size() - 1; d >= 0 && ++index[d] == ss[d]; --d)
      index[d] = 0;
  }
  return true;
}

/// The largest import compared with the others, value by value.
class Generalizer {
public:
  Generalizer(func::FuncOp base, int64_t baseSize) : base(base), baseSize(baseSize) {}

  LogicalResult compare(func::FuncOp other, int64_t size, std::string &why);
  /// Gives the dims found `?`; constants that differ become slices of the base's.
  void rewrite();

private:
  func::FuncOp base;
  int64_t baseSize;
  DenseMap<Value, SmallVector<bool>> symbolic; // the base's value -> its dims that are `?`
  SetVector<Operation *> leadingBlocks;        // constants that take the dim's first entries

  bool sameAttributes(Operation *a, Operation *b);
  /// Whether the i1 constant `v` of the base holds only true (or only false) in its first
  /// `size` entries along the dim; nullopt when neither or not such a constant.
  std::optional<bool> leadingBlockAll(Value v, int64_t size);
};

std::optional<bool> Generalizer::leadingBlockAll(Value v, int64_t size) {
  DenseElementsAttr values;
  auto dims = symbolic.find(v);
  if (!matchPattern(v, m_Constant(&values)) || dims == symbolic.end() ||
      !values.getElementType().isInteger(1))
    return std::nullopt;
  ArrayRef<int64_t> shape = values.getType().getShape();
  SmallVector<int64_t> block(shape), index(shape.size(), 0);
  for (auto [d, symbolicDim] : llvm::enumerate(dims->second))
    if (symbolicDim)
      block[d] = size;
  if (llvm::is_contained(block, 0))
    return std::nullopt;
  auto bits = values.getValues<bool>();
  std::optional<bool> all;
  do {
    int64_t at = 0;
    for (size_t d = 0; d < shape.size(); ++d)
      at = at * shape[d] + index[d];
    bool bit = bits[at];
    if (all && *all != bit)
      return std::nullopt;
    all = bit;
    int64_t d = (int64_t)shape.size() - 1;
    for (; d >= 0 && ++index[d] == block[d]; --d)
      index[d] = 0;
    if (d < 0)
      break;
  } while (true);
  return all;
}

bool Generalizer::sameAttributes(Operation *a, Operation *b) {
  if (auto ca = dyn_cast<ConstantOp>(a)) {
    auto va = dyn_cast<DenseElementsAttr>(ca.getValue());
    auto vb = dyn_cast<DenseElementsAttr>(cast<ConstantOp>(b).getValue());
    if (ca.getValue() == cast<ConstantOp>(b).getValue())
      return true;
    if (!va || !vb || !isLeadingBlock(va, vb))
      return false;
    leadingBlocks.insert(a);
    return true;
  }
  // A slice's sizes are its result's shape (compared as types); its start and step must
  // not change.
  if (auto sa = dyn_cast<SliceOp>(a)) {
    auto sb = cast<SliceOp>(b);
    return sa.getOffsets() == sb.getOffsets() && sa.getSteps() == sb.getSteps();
  }
  return a->getAttrDictionary() == b->getAttrDictionary();
}

LogicalResult Generalizer::compare(func::FuncOp other, int64_t size, std::string &why) {
  auto refuse = [&](std::string message) {
    why = std::move(message);
    return failure();
  };
  DenseMap<Value, Value> counterpart; // the base's value -> the other's
  auto follow = [&](Value x, Value y) -> std::optional<SmallVector<bool>> {
    if (!x || !y)
      return std::nullopt;
    std::optional<SmallVector<bool>> dims =
        symbolicDimsOf(x.getType(), y.getType(), baseSize, size);
    if (!dims)
      return std::nullopt;
    auto [it, inserted] = symbolic.try_emplace(x, *dims);
    if (!inserted && it->second != *dims)
      return std::nullopt;
    counterpart[x] = y;
    return dims;
  };
  Block &ba = base.getBody().front(), &bb = other.getBody().front();
  if (ba.getNumArguments() != bb.getNumArguments())
    return refuse("the inputs change with the size");
  for (auto [i, x, y] : llvm::enumerate(ba.getArguments(), bb.getArguments()))
    if (!follow(x, y)) {
      auto name = base.getArgAttrOfType<StringAttr>(i, "infc.name");
      return refuse("input '" + (name ? name.str() : std::to_string(i)) +
                    "' changes with the size other than as the dim");
    }
  // At a size of 1 (or 0) the importers fold what becomes the identity there: a broadcast
  // of a size-1 dim to the size, a reshape that moves a size-1 dim, a Where whose condition
  // is all true or all false there (a causal mask of one position). Such an op of the base
  // missing from the other import stands for the operand it passes on, which must have the
  // result's type there.
  auto standsForOperand = [&](Operation *x) {
    if (size >= 2)
      return false;
    // (a broadcast or reshape whose result has its operand's type there is the identity;
    // a transpose or slice of that type need not be)
    if (isa<BroadcastOp, ReshapeOp>(x))
      return follow(x->getResult(0), counterpart.lookup(x->getOperand(0))).has_value();
    if (auto where = dyn_cast<WhereOp>(x)) {
      std::optional<bool> all = leadingBlockAll(where.getCondition(), size);
      Value passed = !all ? Value() : *all ? where.getOperand(1) : where.getOperand(2);
      return passed && follow(x->getResult(0), counterpart.lookup(passed)).has_value();
    }
    return false;
  };
  // Constants are compared where they are used: the importers materialize a folded one
  // where its node is, and an initializer the fold left whole at one size (a slice of all
  // of it) where the initializers are.
  auto operandsMatch = [&](Operation *x, Operation *y) {
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands())) {
      auto cu = u.getDefiningOp<ConstantOp>(), cv = v.getDefiningOp<ConstantOp>();
      if (cu || cv) {
        if (!cu || !cv || !sameAttributes(cu, cv) || !follow(u, v))
          return false;
      } else if (counterpart.lookup(u) != v) {
        return false;
      }
    }
    return true;
  };
  auto itB = bb.begin();
  auto skipConstants = [&] {
    while (itB != bb.end() && isa<ConstantOp>(*itB))
      ++itB;
  };
  for (Operation &xRef : ba) {
    Operation *x = &xRef;
    if (isa<ConstantOp>(x))
      continue;
    skipConstants();
    Operation *y = itB == bb.end() ? nullptr : &*itB;
    std::string node = nodeOf(x);
    bool same = y && x->getName() == y->getName() && x->getNumOperands() == y->getNumOperands() &&
                x->getNumResults() == y->getNumResults() && !x->getNumRegions() &&
                !y->getNumRegions() && sameAttributes(x, y);
    if (!same) {
      if (standsForOperand(x))
        continue;
      return refuse(node + ": the graph changes with the size");
    }
    if (!operandsMatch(x, y))
      return refuse(node + ": its operands change with the size other than as the dim (a "
                           "constant computed from it, not its first entries)");
    ++itB;
    for (auto [u, v] : llvm::zip(x->getResults(), y->getResults()))
      if (!follow(u, v))
        return refuse(node + ": a result changes with the size other than as the dim itself");
  }
  skipConstants();
  if (itB != bb.end())
    return refuse("the graph changes with the size (" + nodeOf(&*itB) + " has no counterpart)");
  return success();
}

RankedTensorType withSymbolicDims(Type type, ArrayRef<bool> dims) {
  auto t = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(t.getShape());
  for (auto [d, symbolic] : llvm::enumerate(dims))
    if (symbolic)
      shape[d] = ShapedType::kDynamic;
  return RankedTensorType::get(shape, t.getElementType());
}

void Generalizer::rewrite() {
  Block &body = base.getBody().front();
  for (BlockArgument arg : body.getArguments())
    arg.setType(withSymbolicDims(arg.getType(), symbolic.lookup(arg)));
  OpBuilder b(base.getContext());
  for (Operation &op : llvm::make_early_inc_range(body)) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (leadingBlocks.contains(&op)) {
      // The constant stays whole; its uses read the slice of the dim's first entries.
      Value whole = op.getResult(0);
      auto type = cast<RankedTensorType>(whole.getType());
      SmallVector<bool> dims = symbolic.lookup(whole);
      SmallVector<int64_t> sizes(type.getShape());
      for (auto [d, symbolicDim] : llvm::enumerate(dims))
        if (symbolicDim)
          sizes[d] = ShapedType::kDynamic;
      b.setInsertionPointAfter(&op);
      auto slice = SliceOp::create(b, op.getLoc(), withSymbolicDims(type, dims), whole,
                                   b.getDenseI64ArrayAttr(SmallVector<int64_t>(sizes.size(), 0)),
                                   b.getDenseI64ArrayAttr(sizes),
                                   b.getDenseI64ArrayAttr(SmallVector<int64_t>(sizes.size(), 1)));
      whole.replaceAllUsesExcept(slice.getResult(), slice);
      continue;
    }
    for (Value result : op.getResults())
      result.setType(withSymbolicDims(result.getType(), symbolic.lookup(result)));
    if (auto slice = dyn_cast<SliceOp>(op)) {
      auto type = cast<RankedTensorType>(slice.getType());
      slice.setSizes(type.getShape());
    }
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  base.setType(
      FunctionType::get(base.getContext(), body.getArgumentTypes(), ret.getOperandTypes()));
}
} // namespace

OwningOpRef<ModuleOp> infc::importGeneralized(MLIRContext &context, StringRef path,
                                              const OnnxImportOptions &options, StringRef dim,
                                              std::string &why) {
  auto range = options.dimRanges.find(dim);
  if (range == options.dimRanges.end()) {
    why = "no --dim range for '" + dim.str() + "'";
    return nullptr;
  }
  auto [low, high] = range->second;
  if (high == kUnboundedDim) {
    // (Its imports are compared below the largest size, which also sizes the memory plan.)
    why = "'" + dim.str() + "' has no largest size, which generic code needs: give --dim " +
          dim.str() + "=" + std::to_string(low) + "..MAX";
    return nullptr;
  }
  // The import at the range's maximum becomes the code (every slice and constant it holds
  // then covers every size that runs); the others are compared with it: 2 and 3 tell the
  // size from a broadcast and from its double, 97 (inside the range) a clamp, and sizes
  // below 2 in the range what folds there. A range too small to tell 2 and 3 from its
  // maximum is compared at 97 instead.
  constexpr int64_t kMiddle = 97;
  int64_t baseSize = high > 3 ? high : kMiddle;
  SmallVector<int64_t> others;
  for (int64_t size : {int64_t(2), int64_t(3), kMiddle})
    if (size < baseSize)
      others.push_back(size);
  // (Sizes below 2 last: what they fold away is matched to what the others found.)
  for (int64_t size = low; size < 2; ++size)
    others.push_back(size);
  OwningOpRef<ModuleOp> base = importAtSize(context, path, options, dim, baseSize, why);
  if (!base)
    return nullptr;
  func::FuncOp main = mainOf(*base);
  eraseDeadOps(main);
  Generalizer generalizer(main, baseSize);
  for (int64_t size : others) {
    OwningOpRef<ModuleOp> other = importAtSize(context, path, options, dim, size, why);
    if (!other)
      return nullptr;
    eraseDeadOps(mainOf(*other));
    if (failed(generalizer.compare(mainOf(*other), size, why))) {
      why = "at " + dim.str() + "=" + std::to_string(size) + " against " +
            std::to_string(baseSize) + ": " + why;
      return nullptr;
    }
  }
  generalizer.rewrite();
  OpBuilder b(&context);
  (*base)->setAttr("infc.dim_ranges",
                   b.getDictionaryAttr(b.getNamedAttr(dim, b.getDenseI64ArrayAttr({low, high}))));
  auto opset = (*base)->getAttrOfType<IntegerAttr>("infc.opset");
  std::string first;
  {
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error && first.empty())
        first = diag.str();
      return success();
    });
    if (failed(verify(*base))) {
      why = "the generic code does not verify: " + first;
      return nullptr;
    }
    if (failed(checkSymbolicOps(*base, dim, opset ? opset.getInt() : 0))) {
      why = first;
      return nullptr;
    }
  }
  return base;
}
