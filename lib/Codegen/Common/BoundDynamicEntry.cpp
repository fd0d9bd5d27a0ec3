//===- BoundDynamicEntry.cpp - the entry's symbolic dims as an argument ---===//
//
// The runtime passes one bare pointer per buffer, which cannot carry a dynamic shape. So
// the entry takes the named dims' sizes (an int64 array, the runtime's dim table) and each
// dynamic buffer as a flat static memref at its bound, reinterpreted at the run's sizes.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <limits>

namespace infc {
#define GEN_PASS_DEF_INFCBOUNDDYNAMICENTRY
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
struct InfcBoundDynamicEntryPass
    : public infc::impl::InfcBoundDynamicEntryBase<InfcBoundDynamicEntryPass> {
  using InfcBoundDynamicEntryBase::InfcBoundDynamicEntryBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!func || func.isExternal())
      return;
    auto isDynamic = [](Type t) {
      auto m = dyn_cast<MemRefType>(t);
      return m && !m.hasStaticShape();
    };
    if (llvm::none_of(func.getArgumentTypes(), isDynamic))
      return;
    if (failed(bound(module, func)))
      signalPassFailure();
  }

  LogicalResult bound(ModuleOp module, func::FuncOp func) {
    MLIRContext *ctx = &getContext();
    auto ranges = module->getAttrOfType<DictionaryAttr>("infc.dim_ranges");
    // Outputs are the out-parameters written by a copy (buffer-results-to-out-params copies
    // the results' attributes, infc.dims included, onto them: their names are the model's
    // declarations, not what sizes them). The others are the inputs.
    unsigned numArgs = func.getNumArguments();
    auto isOutput = [&](unsigned i) {
      Value arg = func.getArgument(i);
      return llvm::any_of(arg.getUsers(), [&](Operation *user) {
        auto copy = dyn_cast<memref::CopyOp>(user);
        return copy && copy.getTarget() == arg;
      });
    };
    SmallVector<bool> outputs;
    for (unsigned i = 0; i < numArgs; ++i)
      outputs.push_back(isOutput(i));
    // The dims' order: first appearance in the inputs' names, as collectModelInterface
    // numbers them (inputs first), so the runtime's dim table starts with these.
    SmallVector<StringRef> names;
    for (unsigned i = 0; i < numArgs; ++i)
      if (auto dims = func.getArgAttrOfType<ArrayAttr>(i, "infc.dims"); dims && !outputs[i])
        for (Attribute a : dims)
          if (StringRef n = cast<StringAttr>(a).getValue();
              !n.empty() && !llvm::is_contained(names, n))
            names.push_back(n);

    if (failed(func.insertArgument(
            0, MemRefType::get({(int64_t)names.size()}, IntegerType::get(ctx, 64)), {},
            func.getLoc())))
      return func.emitError("infc-bound-dynamic-entry: cannot add the dims argument");
    func.setArgAttr(0, "infc.dims_arg", UnitAttr::get(ctx));
    Value dimsArg = func.getArgument(0);
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();

    // Each name's size, clamped to its bound (a no-op: the runtime checked the range).
    SmallVector<Value> sizes;
    SmallVector<int64_t> bounds;
    for (auto [k, name] : llvm::enumerate(names)) {
      auto range = ranges ? ranges.getAs<DenseI64ArrayAttr>(name) : nullptr;
      int64_t max = range && range.size() == 2 ? range[1] : ShapedType::kDynamic;
      Value v = memref::LoadOp::create(b, loc, dimsArg,
                                       ValueRange{arith::ConstantIndexOp::create(b, loc, k)});
      Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
      // (No largest size, `infc compile` with no flag for the dim: no clamp; the buffers of
      // its sizes are placed at run time, infc-memory-plan's polynomials.)
      if (!ShapedType::isDynamic(max) && max != std::numeric_limits<int64_t>::max()) {
        AffineMap clamp =
            AffineMap::get(1, 0, {getAffineDimExpr(0, ctx), getAffineConstantExpr(max, ctx)}, ctx);
        index = affine::AffineMinOp::create(b, loc, clamp, ValueRange{index});
      }
      sizes.push_back(index);
      bounds.push_back(max);
    }

    // The inputs: named dims.
    for (unsigned i = 1; i <= numArgs; ++i) {
      BlockArgument arg = func.getArgument(i);
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape())
        continue;
      if (outputs[i - 1])
        continue; // below
      auto dims = func.getArgAttrOfType<ArrayAttr>(i, "infc.dims");
      if (!dims)
        return func.emitError("infc-bound-dynamic-entry: argument ")
               << i - 1 << " has a dynamic shape and no named dims";
      SmallVector<OpFoldResult> shape;
      SmallVector<int64_t> bound;
      for (auto [d, size] : llvm::enumerate(type.getShape())) {
        if (!ShapedType::isDynamic(size)) {
          shape.push_back(b.getIndexAttr(size));
          bound.push_back(size);
          continue;
        }
        StringRef name = d < dims.size() ? cast<StringAttr>(dims[d]).getValue() : StringRef();
        auto it = llvm::find(names, name);
        if (name.empty() || it == names.end() || ShapedType::isDynamic(bounds[it - names.begin()]))
          return func.emitError("infc-bound-dynamic-entry: argument ")
                 << i - 1 << " has a dynamic dim " << d << " with no named range";
        shape.push_back(sizes[it - names.begin()]);
        bound.push_back(bounds[it - names.begin()]);
      }
      if (failed(reinterpret(func, b, arg, shape, bound)))
        return failure();
    }
    // The outputs: the sizes of what is copied into them.
    for (unsigned i = 1; i <= numArgs; ++i) {
      BlockArgument arg = func.getArgument(i);
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || type.hasStaticShape() || !outputs[i - 1])
        continue;
      memref::CopyOp copy;
      for (Operation *user : arg.getUsers())
        if (auto c = dyn_cast<memref::CopyOp>(user); c && c.getTarget() == arg && !copy)
          copy = c;
      if (!copy || !llvm::hasSingleElement(arg.getUsers()))
        return func.emitError("infc-bound-dynamic-entry: output argument ")
               << i - 1 << " of a dynamic shape is not written by one copy";
      // The output's bound: every dynamic dim at the largest named bound (the importer keeps
      // one symbolic dim, so every `?` is that dim).
      int64_t largest = 0;
      for (int64_t m : bounds)
        largest = ShapedType::isDynamic(m) ? largest : std::max(largest, m);
      OpBuilder at(copy);
      SmallVector<OpFoldResult> shape;
      SmallVector<int64_t> bound;
      for (auto [d, size] : llvm::enumerate(type.getShape())) {
        if (!ShapedType::isDynamic(size)) {
          shape.push_back(at.getIndexAttr(size));
          bound.push_back(size);
          continue;
        }
        shape.push_back(memref::DimOp::create(at, copy.getLoc(), copy.getSource(), d).getResult());
        bound.push_back(largest);
      }
      if (largest == 0)
        return func.emitError("infc-bound-dynamic-entry: output argument ")
               << i - 1 << " has a dynamic dim and no dim has a range";
      if (failed(reinterpret(func, at, arg, shape, bound)))
        return failure();
    }
    return success();
  }

  /// `arg` becomes a flat static buffer at `bound`, read through a dense reinterpret_cast
  /// of `shape`, built at `b`'s insertion point.
  LogicalResult reinterpret(func::FuncOp func, OpBuilder &b, BlockArgument arg,
                            ArrayRef<OpFoldResult> shape, ArrayRef<int64_t> bound) {
    auto type = cast<MemRefType>(arg.getType());
    int64_t elements = 1;
    bool unbounded = false;
    for (int64_t n : bound) {
      if (n == std::numeric_limits<int64_t>::max()) {
        unbounded = true;
        continue;
      }
      if (n < 0 || llvm::MulOverflow(elements, n, elements))
        return func.emitError("infc-bound-dynamic-entry: argument ")
               << arg.getArgNumber() << " is too large at its bound";
    }
    // A dim of no largest size: the flat type only carries the bare pointer, as many
    // elements as a tensor may have (2^47 bytes).
    if (unbounded) {
      int64_t bytes = std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      elements =
          std::max<int64_t>(1, ((int64_t(1) << 47) / bytes) / std::max<int64_t>(1, elements));
    }
    Location loc = arg.getLoc();
    // Row-major strides, static where the dims after are.
    SmallVector<OpFoldResult> strides(shape.size());
    OpFoldResult stride = b.getIndexAttr(1);
    for (int64_t d = (int64_t)shape.size() - 1; d >= 0; --d) {
      strides[d] = stride;
      auto s = getConstantIntValue(stride), n = getConstantIntValue(shape[d]);
      if (s && n)
        stride = b.getIndexAttr(*s * *n);
      else
        stride = arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                                       getValueOrCreateConstantIndexOp(b, loc, shape[d]))
                     .getResult();
    }
    Value placeholder =
        memref::ReinterpretCastOp::create(b, loc, type, arg, b.getIndexAttr(0), shape, strides);
    arg.replaceAllUsesExcept(placeholder, placeholder.getDefiningOp());
    // The dims of the argument are the sizes now.
    for (Operation *user : llvm::make_early_inc_range(placeholder.getUsers()))
      if (auto dim = dyn_cast<memref::DimOp>(user))
        if (auto index = dim.getConstantIndex(); index && *index < (int64_t)shape.size())
          dim.replaceAllUsesWith(getValueOrCreateConstantIndexOp(b, dim.getLoc(), shape[*index]));
    arg.setType(MemRefType::get({elements}, type.getElementType()));
    auto ft = func.getFunctionType();
    SmallVector<Type> inputs(ft.getInputs());
    inputs[arg.getArgNumber()] = arg.getType();
    func.setFunctionType(FunctionType::get(func.getContext(), inputs, ft.getResults()));
    return success();
  }
};
} // namespace
