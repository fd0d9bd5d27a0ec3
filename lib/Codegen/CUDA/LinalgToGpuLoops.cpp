//===- LinalgToGpuLoops.cpp - linalg to loops, reductions in registers ----===//
//
// Upstream's convert-linalg-to-parallel-loops reads and writes the output element in every
// iteration of a reduction: on a GPU that is a global-memory round trip per multiply-add of a
// matmul (the compiler cannot keep it in a register without knowing the buffers don't
// alias). Here each thread loads its output once, carries it through the reduction loops
// as a loop value, and stores it once.
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "RowKernels.h"
#include "TiledContraction.h"
#include "infc/Codegen/Common/KernelGroups.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <deque>

namespace infc {
#define GEN_PASS_DEF_INFCLINALGTOGPULOOPS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;
using infc::memrefsRead;
using infc::reshapesFrom;

namespace {
/// The buffer a memref is part of: views are followed up to the memory plan's buffers
/// (memref.view of the workspace), which never overlap while both are live.
Value bufferOf(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>()) {
    if (isa<memref::ViewOp>(view))
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Bytes [first, last) of a memory plan buffer inside the workspace, if `buffer` is one.
std::optional<std::pair<int64_t, int64_t>> workspaceRange(Value buffer) {
  auto view = buffer.getDefiningOp<memref::ViewOp>();
  auto type = view ? dyn_cast<MemRefType>(view.getType()) : MemRefType();
  std::optional<int64_t> offset = view ? getConstantIntValue(view.getByteShift()) : std::nullopt;
  if (!offset || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bytes = type.getNumElements() * ((type.getElementTypeBitWidth() + 7) / 8);
  return std::make_pair(*offset, *offset + bytes);
}

/// Whether `v` is an argument of the function itself (not of a loop in it, which may be
/// any buffer).
bool isFunctionArgument(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  return arg && isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
}

/// Whether two memrefs may share bytes. Distinct function arguments never do (the runtime
/// refuses overlapping inputs and outputs); memory plan buffers do when their ranges meet
/// (buffers live at different times share bytes).
bool mayOverlap(Value a, Value b) {
  Value ra = bufferOf(a), rb = bufferOf(b);
  if (ra == rb)
    return true;
  auto va = ra.getDefiningOp<memref::ViewOp>(), vb = rb.getDefiningOp<memref::ViewOp>();
  Value sa = va ? va.getSource() : ra, sb = vb ? vb.getSource() : rb;
  if (sa != sb)
    return !isFunctionArgument(sa) || !isFunctionArgument(sb);
  auto x = workspaceRange(ra), y = workspaceRange(rb);
  return !x || !y || (x->first < y->second && y->first < x->second);
}

/// The dims of `group` in `shape` that have more than one element.
SmallVector<int64_t> nonUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> group) {
  SmallVector<int64_t> dims;
  for (int64_t d : group)
    if (shape[d] != 1)
      dims.push_back(d);
  return dims;
}

/// The indices of `shape` from one index per group of `groups` (`joined`), each group's
/// split row-major: unit dims take 0, a group of one other dim its index as is, and only
/// a real split needs divisions (on i32 when the group fits).
SmallVector<Value> splitIndices(OpBuilder &b, Location loc, ArrayRef<ReassociationIndices> groups,
                                ArrayRef<int64_t> shape, ArrayRef<Value> joined) {
  auto index = [&](int64_t v) -> Value { return arith::ConstantIndexOp::create(b, loc, v); };
  SmallVector<Value> result(shape.size());
  for (auto [g, group] : llvm::enumerate(groups)) {
    for (int64_t d : group)
      result[d] = index(0);
    SmallVector<int64_t> dims = nonUnitDims(shape, group);
    if (dims.size() == 1)
      result[dims[0]] = joined[g];
    if (dims.size() < 2)
      continue;
    int64_t total = 1;
    for (int64_t d : dims)
      total *= shape[d];
    bool narrow = total <= INT32_MAX;
    auto constant = [&](int64_t v) -> Value {
      return narrow ? arith::ConstantIntOp::create(b, loc, v, 32).getResult() : index(v);
    };
    Value flat = joined[g];
    if (narrow)
      flat = arith::IndexCastUIOp::create(b, loc, b.getI32Type(), flat);
    for (size_t k = dims.size(); k-- > 0;) {
      Value dim = k ? arith::RemUIOp::create(b, loc, flat, constant(shape[dims[k]])) : flat;
      if (k)
        flat = arith::DivUIOp::create(b, loc, flat, constant(shape[dims[k]]));
      result[dims[k]] = narrow ? arith::IndexCastUIOp::create(b, loc, b.getIndexType(), dim) : dim;
    }
  }
  // A 0-d source has no groups: its expansion is all unit dims, index 0 each.
  for (Value &v : result)
    if (!v)
      v = index(0);
  return result;
}

/// One index per group of `groups` from the indices of `shape` (`split`): row-major.
SmallVector<Value> joinIndices(OpBuilder &b, Location loc, ArrayRef<ReassociationIndices> groups,
                               ArrayRef<int64_t> shape, ArrayRef<Value> split) {
  SmallVector<Value> result;
  for (const ReassociationIndices &group : groups) {
    Value flat;
    for (int64_t d : nonUnitDims(shape, group))
      flat = flat ? arith::AddIOp::create(
                        b, loc,
                        arith::MulIOp::create(b, loc, flat,
                                              arith::ConstantIndexOp::create(b, loc, shape[d])),
                        split[d])
                  : split[d];
    result.push_back(flat ? flat : arith::ConstantIndexOp::create(b, loc, 0).getResult());
  }
  return result;
}

/// The indices into `reshape`'s result (a memref.expand_shape or collapse_shape) of the
/// element at `at` in its source, or (`toSource`) the reverse. Reshapes are logical: the
/// dims of each group row-major.
SmallVector<Value> reshapedIndices(OpBuilder &b, Location loc, Operation *reshape,
                                   ArrayRef<Value> at, bool toSource = false) {
  if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape)) {
    SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    return toSource ? splitIndices(b, loc, groups, shape, at)
                    : joinIndices(b, loc, groups, shape, at);
  }
  auto expand = cast<memref::ExpandShapeOp>(reshape);
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  ArrayRef<int64_t> shape = expand.getResultType().getShape();
  return toSource ? joinIndices(b, loc, groups, shape, at)
                  : splitIndices(b, loc, groups, shape, at);
}

struct Lowering {
  linalg::LinalgOp op;
  Location loc;
  SmallVector<int64_t> ranges;
  SmallVector<unsigned> parallel, reduction;
  SmallVector<Value> dims; // the loop counters, by loop dimension

  /// The value a preceding linalg.fill gave the (single) output: the reduction starts from
  /// it instead of reading the output back (and the fill is not run at all).
  Value initialValue;
  /// An elementwise op right after this reduction that reads its output at the same point
  /// (a bias add, an activation): it runs in the same thread on the value just computed,
  /// so it needs no kernel and no read of the output back.
  Lowering *epilogue = nullptr;
  /// What the epilogue reads the output as: the output itself, or a reshape of it (the
  /// matmul's 2-D product as the 3-D tensor a bias add takes), the reshapes between, and
  /// the epilogue's map for it (a permutation: a transpose's).
  Value epilogueView;
  SmallVector<Operation *> epilogueReshapes;
  AffineMap epilogueMap;
  /// Whether the output is stored: not when only the epilogue reads it (a GEMM's product
  /// before its bias add), whose value it takes in a register.
  bool storesOutput = true;
  /// Inputs whose value at the current point is already at hand (the epilogue's view of the
  /// reduction's result).
  DenseMap<Value, Value> known;
  /// Inputs that an all-parallel op right before this reduction writes: its payload runs
  /// where this op loads them (a convolution's padding, an activation's cast to half, a
  /// transpose), so the input is never written and needs no kernel
  /// of its own. The input may be a reshape of what the op writes: `prologueReshapes`.
  DenseMap<Value, Lowering *> prologues;
  /// As a prologue: the reshapes from this op's output to the input it computes.
  SmallVector<Operation *> prologueReshapes;

  Lowering(linalg::LinalgOp op) : op(op), loc(op.getLoc()) {}

  Value constant(OpBuilder &b, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  SmallVector<Value> indices(OpBuilder &b, AffineMap map) {
    return infc::indexingMapAt(b, loc, map, dims);
  }

  /// Input `input` at `at`: loaded, or computed by its prologue (whose output map is the
  /// identity: its loop dimensions are the indices into its output).
  Value loadInput(OpBuilder &b, Value input, ArrayRef<Value> at) {
    if (Lowering *producer = prologues.lookup(input)) {
      SmallVector<Value> dims(at);
      for (Operation *reshape : llvm::reverse(producer->prologueReshapes))
        dims = reshapedIndices(b, loc, reshape, dims, /*toSource=*/true);
      producer->dims = std::move(dims);
      return producer->body(b, {Value()})[0];
    }
    return memref::LoadOp::create(b, loc, input, at);
  }

  /// The memrefs input `input`'s elements come from (InputSources): the input itself; the
  /// inputs of its prologue when that is elementwise at the identity (no reshape between;
  /// every input of the input's shape and strides) and its payload elementwise ops on its
  /// inputs only; the memref a prologue reads rows of (rowLoad's); none otherwise.
  SmallVector<infc::InputSource> sourcesOf(Value input) {
    if (known.lookup(input))
      return {};
    Lowering *producer = prologues.lookup(input);
    if (!producer)
      return {{input}};
    linalg::LinalgOp p = producer->op;
    if (p.getNumDpsInits() != 1 || !p.getBlock()->getArgument(p.getNumDpsInputs()).use_empty())
      return {};
    // Rows of the input are inside rows of the prologue's output through reshapes that do
    // not merge its innermost dimension (split-K's expansion of a conv's channels).
    memref::LoadOp row = rowLoad(p);
    if (row && llvm::all_of(producer->prologueReshapes, [](Operation *reshape) {
          auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape);
          return !collapse || collapse.getReassociationIndices().back().size() == 1;
        }))
      return {{row.getMemRef(), /*byRows=*/true}};
    if (row || !producer->prologueReshapes.empty() || infc::capturesMemref(p))
      return {};
    auto inputType = cast<MemRefType>(input.getType());
    SmallVector<infc::InputSource> from;
    for (OpOperand *in : p.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(in->get().getType());
      if (!type || type.getShape() != inputType.getShape() ||
          !p.getMatchingIndexingMap(in).isIdentity())
        return {};
      from.push_back({in->get()});
    }
    for (Operation &inner : p.getBlock()->without_terminator())
      if (inner.getNumRegions() ||
          !(OpTrait::hasElementwiseMappableTraits(&inner) || isa<arith::ConstantOp>(inner)))
        return {};
    return from;
  }

  /// The one load of prologue `p` (no inputs, its output at the identity) if it takes each
  /// row of its output's innermost dimension from a row of a memref: a pad of the outer
  /// dimensions (infc-pad-to-generic's loop nest: the source read at the clamped indices,
  /// the padding selected outside). The load's last index is the innermost loop index,
  /// which nothing else uses, so every other value is the same along a row; the rest of the
  /// payload is loop indices, constants and elementwise ops.
  static memref::LoadOp rowLoad(linalg::LinalgOp p) {
    int64_t rank = p.getNumLoops();
    if (p.getNumDpsInputs() || rank == 0 || p.getNumReductionLoops())
      return {};
    memref::LoadOp load;
    for (Operation &inner : p.getBlock()->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        if ((int64_t)index.getDim() == rank - 1 &&
            llvm::any_of(index->getUses(), [](OpOperand &use) {
              auto user = dyn_cast<memref::LoadOp>(use.getOwner());
              return !user || use.getOperandNumber() != user->getNumOperands() - 1;
            }))
          return {};
        continue;
      }
      if (auto l = dyn_cast<memref::LoadOp>(inner)) {
        if (load || p->getRegion(0).isAncestor(l.getMemRef().getParentRegion()))
          return {};
        load = l;
        continue;
      }
      if (inner.getNumRegions() ||
          !(OpTrait::hasElementwiseMappableTraits(&inner) || isa<arith::ConstantOp>(inner)))
        return {};
    }
    if (!load)
      return {};
    auto index = load.getIndices().back().getDefiningOp<linalg::IndexOp>();
    return index && (int64_t)index.getDim() == rank - 1 ? load : memref::LoadOp();
  }

  /// `width` elements of input `input` from `at` on as a vector (InputVectorLoad): one
  /// vector load, or its prologue's payload on vector loads (of its inputs, or of the row
  /// rowLoad reads: the loop indices then `at`'s, what does not depend on the load scalar).
  Value loadVectorInput(OpBuilder &b, Value input, ArrayRef<Value> at, int64_t width) {
    auto vectorOf = [&](Type type) { return VectorType::get({width}, type); };
    auto loadFrom = [&](Value memref, ValueRange indices) -> Value {
      auto type = cast<MemRefType>(memref.getType());
      int64_t bytes = width * type.getElementTypeBitWidth() / 8;
      return vector::LoadOp::create(b, loc, vectorOf(type.getElementType()), memref, indices,
                                    /*nontemporal=*/false,
                                    llvm::MaybeAlign(std::min<int64_t>(16, bytes)));
    };
    Lowering *producer = prologues.lookup(input);
    if (!producer)
      return loadFrom(input, at);
    linalg::LinalgOp p = producer->op;
    Block *block = p.getBlock();
    IRMapping mapping;
    for (OpOperand *in : p.getDpsInputOperands())
      mapping.map(p.getMatchingBlockArgument(in), loadFrom(in->get(), at));
    // (a row load's prologue: its loop indices, through the reshapes between)
    SmallVector<Value> outputAt(at);
    for (Operation *reshape : llvm::reverse(producer->prologueReshapes))
      outputAt = reshapedIndices(b, loc, reshape, outputAt, /*toSource=*/true);
    // A scalar (from outside the payload, or made in it from scalars only) is the same in
    // every lane.
    auto operand = [&](Value v) -> Value {
      Value mapped = mapping.lookupOrDefault(v);
      if (isa<VectorType>(mapped.getType()))
        return mapped;
      return vector::BroadcastOp::create(b, loc, vectorOf(v.getType()), mapped);
    };
    for (Operation &inner : block->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), outputAt[index.getDim()]);
        continue;
      }
      if (auto load = dyn_cast<memref::LoadOp>(inner)) {
        SmallVector<Value> indices;
        for (Value i : load.getIndices())
          indices.push_back(mapping.lookupOrDefault(i));
        mapping.map(load.getResult(), loadFrom(load.getMemRef(), indices));
        continue;
      }
      if (llvm::none_of(inner.getOperands(), [&](Value v) {
            return isa<VectorType>(mapping.lookupOrDefault(v).getType());
          })) {
        b.clone(inner, mapping);
        continue;
      }
      OperationState state(inner.getLoc(), inner.getName());
      for (Value v : inner.getOperands())
        state.addOperands(operand(v));
      for (Type type : inner.getResultTypes())
        state.addTypes(vectorOf(type));
      state.addAttributes(inner.getAttrs());
      Operation *vectorized = b.create(state);
      mapping.map(inner.getResults(), vectorized->getResults());
    }
    return operand(block->getTerminator()->getOperand(0));
  }

  /// The memrefs this op's kernel reads: its own and its prologues'.
  SmallVector<Value> kernelReads() {
    SmallVector<Value> read = memrefsRead(op);
    for (auto [input, producer] : prologues)
      llvm::append_range(read, memrefsRead(producer->op));
    return read;
  }

  /// The payload at the current point: inputs loaded, outputs taken from `accumulators`.
  SmallVector<Value> body(OpBuilder &b, ValueRange accumulators) {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands()) {
      BlockArgument arg = op.getMatchingBlockArgument(input);
      if (arg.use_empty())
        continue;
      Value v = input->get();
      if (Value at = known.lookup(v))
        v = at;
      else if (isa<MemRefType>(v.getType()))
        v = loadInput(b, v, indices(b, op.getMatchingIndexingMap(input)));
      mapping.map(arg, v);
    }
    for (auto [k, output] : llvm::enumerate(op.getDpsInitsMutable()))
      if (accumulators[k])
        mapping.map(op.getMatchingBlockArgument(&output), accumulators[k]);
    Block *block = op.getBlock();
    for (Operation &inner : block->without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        mapping.map(index.getResult(), dims[index.getDim()]);
        continue;
      }
      b.clone(inner, mapping);
    }
    SmallVector<Value> results;
    for (Value v : block->getTerminator()->getOperands())
      results.push_back(mapping.lookupOrDefault(v));
    return results;
  }

  /// Reduction loops r.. around the body, the accumulators as loop-carried values.
  SmallVector<Value> reduce(OpBuilder &b, unsigned r, ValueRange accumulators) {
    if (r == reduction.size())
      return body(b, accumulators);
    auto loop = scf::ForOp::create(b, loc, constant(b, 0), constant(b, ranges[reduction[r]]),
                                   constant(b, 1), accumulators);
    dims[reduction[r]] = loop.getInductionVar();
    OpBuilder inner = OpBuilder::atBlockBegin(loop.getBody());
    SmallVector<Value> results = reduce(inner, r + 1, loop.getRegionIterArgs());
    scf::YieldOp::create(inner, loc, results);
    return loop.getResults();
  }

  /// One point of the parallel dimensions: load the outputs, reduce, store them.
  void point(OpBuilder &b) {
    // The outputs' maps do not use the reduction dimensions; they still take a value.
    auto zeroReductionDims = [&] {
      for (unsigned r : reduction)
        dims[r] = constant(b, 0);
    };
    zeroReductionDims();
    SmallVector<Value> accumulators;
    for (OpOperand &output : op.getDpsInitsMutable()) {
      bool used = !reduction.empty() || !op.getMatchingBlockArgument(&output).use_empty();
      if (initialValue) {
        accumulators.push_back(initialValue);
        continue;
      }
      accumulators.push_back(
          used ? memref::LoadOp::create(b, loc, output.get(),
                                        indices(b, op.getMatchingIndexingMap(&output)))
                     .getResult()
               : Value());
    }
    SmallVector<Value> results = reduce(b, 0, accumulators);
    zeroReductionDims(); // the loop counters are out of scope here
    SmallVector<Value> outputPoint;
    for (auto [k, output] : llvm::enumerate(op.getDpsInitsMutable())) {
      outputPoint = indices(b, op.getMatchingIndexingMap(&output));
      if (storesOutput)
        memref::StoreOp::create(b, loc, results[k], output.get(), outputPoint);
    }
    runEpilogue(b, results[0], outputPoint);
  }

  /// The epilogue (if any) at the output element just stored (unless nothing else reads
  /// it), on its value `result`.
  void runEpilogue(OpBuilder &b, Value result, ArrayRef<Value> outputPoint) {
    if (!epilogue)
      return;
    SmallVector<Value> at(outputPoint);
    for (Operation *reshape : epilogueReshapes)
      at = reshapedIndices(b, loc, reshape, at);
    epilogue->known[epilogueView] = result;
    epilogue->dims.assign(at.size(), Value());
    for (auto [i, index] : llvm::enumerate(at))
      epilogue->dims[epilogueMap.getDimPosition(i)] = index;
    epilogue->point(b);
  }

  /// Stores `result`, the value at loop dimensions `at` (a point of the parallel ones),
  /// and runs the epilogue there (the tiled kernel's store).
  void storeResult(OpBuilder &b, ArrayRef<Value> at, Value result) {
    dims.assign(at.begin(), at.end());
    OpOperand *output = op.getDpsInitOperand(0);
    SmallVector<Value> outputPoint = indices(b, op.getMatchingIndexingMap(output));
    if (storesOutput)
      memref::StoreOp::create(b, loc, result, output->get(), outputPoint);
    runEpilogue(b, result, outputPoint);
  }

  /// Whether this lowering applies: static loop ranges, buffers, outputs that depend on the
  /// parallel dimensions only.
  bool matches() {
    if (!op.hasPureBufferSemantics() || op.hasDynamicShape())
      return false;
    ranges = op.getStaticLoopRanges();
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
      (type == utils::IteratorType::parallel ? parallel : reduction).push_back(d);
    // Each output element belongs to exactly one point of the parallel dims (one thread):
    // the output maps are permutations of them.
    for (OpOperand &output : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&output);
      if (!map.isProjectedPermutation() || map.getNumResults() != parallel.size() ||
          llvm::any_of(reduction, [&](unsigned r) { return map.isFunctionOfDim(r); }))
        return false;
    }
    return true;
  }

  /// Whether `next` can run as this op's epilogue, in the thread that just wrote an
  /// element of the output: all parallel over the output or one reshape of it
  /// (`epilogueView`, set here) read through a permutation (each point once: a bias add, a
  /// transpose), one output of its own. `reads`: the memory the kernel reads so far,
  /// `written`: what it writes (this op's output among them).
  bool takesEpilogue(linalg::LinalgOp next, ArrayRef<Value> reads, ArrayRef<Value> written) {
    if (op.getNumDpsInits() != 1 || next.getNumDpsInits() != 1 || !next.hasPureBufferSemantics() ||
        next.getNumReductionLoops() || isa<linalg::FillOp>(next) || next->getNumResults() ||
        !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isProjectedPermutation())
      return false;
    Value out = op.getDpsInits()[0];
    OpOperand *input = infc::epilogueInput(next, out);
    if (!input)
      return false;
    epilogueView = input->get();
    epilogueReshapes = *reshapesFrom(out, epilogueView);
    epilogueMap = next.getMatchingIndexingMap(input);
    // The fused loop writes the epilogue's output while other threads still read the
    // kernel's inputs or write its other outputs: they must not share memory (the memory
    // plan lets buffers that were live at different times share bytes).
    Value result = next.getDpsInits()[0];
    for (Value read : reads)
      if (mayOverlap(result, read))
        return false;
    // Other threads' elements of what the kernel writes must not be reachable: not through
    // another view of the buffers, nor through a buffer a payload reads directly.
    if (infc::capturesMemref(op) || infc::capturesMemref(next))
      return false;
    for (OpOperand &operand : next->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      for (Value w : written) {
        if (!mayOverlap(operand.get(), w))
          continue;
        // In place (the bias add bufferized into the product's buffer) is fine: the same
        // thread reads and writes its element, after storing it.
        if (w != out || operand.get() != epilogueView ||
            (next.isDpsInit(&operand) &&
             !(epilogueMap.isIdentity() && next.getMatchingIndexingMap(&operand).isIdentity())))
          return false;
      }
    }
    return true;
  }

  void run(int64_t tileMinBlocks, bool tensorCores, bool tf32 = false) {
    OpBuilder b(op);
    dims.assign(ranges.size(), Value());
    // Only at the function's top level: infc-map-to-gpu runs an op inside a region (a
    // loop of the model) on one thread, and a launch cannot hold another.
    bool topLevel = isa<FunctionOpInterface>(op->getParentOp());
    if (std::optional<infc::ContractionTiling> tiling =
            tileMinBlocks > 0 && topLevel
                ? infc::planTiledContraction(op, tileMinBlocks, tensorCores, tf32)
                : std::nullopt) {
      infc::emitTiledContraction(
          b, op, *tiling, initialValue,
          [&](OpBuilder &inner, Value input, ArrayRef<Value> at) {
            return loadInput(inner, input, at);
          },
          [&](Value input) { return sourcesOf(input); },
          [&](OpBuilder &inner, Value input, ArrayRef<Value> at, int64_t width) {
            return loadVectorInput(inner, input, at, width);
          },
          [&](OpBuilder &inner, ArrayRef<Value> at, Value result) {
            storeResult(inner, at, result);
          });
      op->erase();
      return;
    }
    // A full reduction still gets a (one-point) parallel loop: infc-map-to-gpu makes every
    // top-level loop one kernel, and the loads and stores around the reduction belong to it.
    SmallVector<Value> lbs, ubs, steps;
    for (unsigned d : parallel) {
      lbs.push_back(constant(b, 0));
      ubs.push_back(constant(b, ranges[d]));
      steps.push_back(constant(b, 1));
    }
    if (parallel.empty()) {
      lbs.push_back(constant(b, 0));
      ubs.push_back(constant(b, 1));
      steps.push_back(constant(b, 1));
    }
    auto loop = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
    for (auto [k, d] : llvm::enumerate(parallel))
      dims[d] = loop.getInductionVars()[k];
    OpBuilder inner(loop.getBody()->getTerminator());
    point(inner);
    op->erase();
  }
};

/// The memrefs `op` touches: its operands and what its payload captures.
SmallVector<Value> memrefsTouched(linalg::LinalgOp op) {
  SmallVector<Value> touched;
  for (Value v : op->getOperands())
    if (isa<MemRefType>(v.getType()))
      touched.push_back(v);
  for (Value v : infc::capturedShapedValues(op))
    if (isa<MemRefType>(v.getType()))
      touched.push_back(v);
  return touched;
}

/// The fill of `op`'s only output right before it (no op between touches that buffer), if
/// `op` reduces into it.
linalg::FillOp fillToFold(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() == 0)
    return {};
  Value out = op.getDpsInits()[0];
  Value buffer = bufferOf(out);
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(prev); fill && fill.getOutputs()[0] == out)
      return fill;
    for (Value operand : prev->getOperands())
      if (isa<MemRefType>(operand.getType()) && bufferOf(operand) == buffer)
        return {};
    // A linalg op touches its operands and what its payload captures (the cast to half of
    // the matmul's input, say, between the fill and the matmul); another loop nest anything.
    auto between = dyn_cast<linalg::LinalgOp>(prev);
    if (between && between.hasPureBufferSemantics()) {
      if (llvm::any_of(memrefsTouched(between), [&](Value v) { return mayOverlap(v, out); }))
        return {};
      continue;
    }
    if (prev->getNumRegions())
      return {};
  }
  return {};
}

/// The ops using `buffer` directly or through views (not the views themselves).
void usersOf(Value buffer, SmallVectorImpl<Operation *> &users) {
  for (Operation *user : buffer.getUsers()) {
    if (isa<ViewLikeOpInterface>(user))
      for (Value view : user->getResults())
        usersOf(view, users);
    else if (!isa<memref::DeallocOp>(user))
      users.push_back(user);
  }
}

/// Whether `op` writes all of `buffer` (its init, identity map, not read) and reads none
/// of it.
bool overwrites(Operation *op, Value buffer) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureBufferSemantics() || linalgOp.getNumDpsInits() != 1)
    return false;
  OpOperand *init = linalgOp.getDpsInitOperand(0);
  if (init->get() != buffer || !linalgOp.getMatchingIndexingMap(init).isIdentity() ||
      !linalgOp.getMatchingBlockArgument(init).use_empty())
    return false;
  return llvm::none_of(memrefsRead(linalgOp), [&](Value v) { return bufferOf(v) == buffer; });
}

/// Whether what `producer` writes into `buffer` is read by `reader` only: no other op
/// uses the buffer between them, and the next one after the reader overwrites it whole.
/// (Inside a loop of the model, the next iteration might read it: every use must be
/// theirs.)
bool readOnlyBy(Value buffer, Operation *producer, Operation *reader) {
  SmallVector<Operation *> users;
  usersOf(buffer, users);
  Block *block = reader->getBlock();
  bool topLevel = isa<FunctionOpInterface>(block->getParentOp());
  Operation *next = nullptr;
  for (Operation *user : users) {
    if (user == producer || user == reader)
      continue;
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!topLevel || !at || !reader->isBeforeInBlock(at)) {
      if (topLevel && at && at->isBeforeInBlock(producer))
        continue; // an earlier value of the buffer
      return false;
    }
    if (!next || at->isBeforeInBlock(next))
      next = at;
  }
  return !next || overwrites(next, buffer);
}

/// A prologue of a reduction: the op, and the input of the reduction it computes (its
/// output or a reshape of it).
struct Prologue {
  linalg::LinalgOp producer;
  Value input;
};

/// `lowering` with `found` (findPrologues') as its prologues, their Lowerings held in
/// `holders`.
void attachPrologues(Lowering &lowering, ArrayRef<Prologue> found, std::deque<Lowering> &holders) {
  for (Prologue prologue : found) {
    holders.emplace_back(prologue.producer);
    holders.back().matches();
    holders.back().prologueReshapes =
        *reshapesFrom(prologue.producer.getDpsInits()[0], prologue.input);
    lowering.prologues[prologue.input] = &holders.back();
  }
}

/// `next` as the epilogue of `tail`, the last op of a kernel's chain so far (`reads`,
/// `written`: the kernel's memory, updated): its Lowering, held in `links`, or null if it
/// cannot be.
Lowering *linkEpilogue(Lowering &tail, linalg::LinalgOp next, std::deque<Lowering> &links,
                       SmallVectorImpl<Value> &reads, SmallVectorImpl<Value> &written) {
  if (!tail.takesEpilogue(next, reads, written))
    return nullptr;
  links.emplace_back(next);
  if (!links.back().matches()) {
    links.pop_back();
    return nullptr;
  }
  for (Value read : memrefsRead(next))
    if (read != tail.epilogueView)
      reads.push_back(read);
  written.push_back(next.getDpsInits()[0]);
  return &links.back();
}

/// The all-parallel ops right before reduction `op` (past pure ops, fills of its output and
/// fills of memory they do not read) whose payloads can run inside its loads: each writes
/// one of its inputs (or what a reshape of it is) whole (identity map), which nothing but
/// the reduction reads, from memory the reduction's kernel does not write. `claimed`: ops
/// already fused elsewhere; `epilogue`: whether an op is better run as the epilogue of
/// the reduction before it.
SmallVector<Prologue> findPrologues(linalg::LinalgOp op, const DenseSet<Operation *> &claimed,
                                    function_ref<bool(linalg::LinalgOp)> epilogue) {
  SmallVector<Prologue> found;
  if (op.getNumReductionLoops() == 0)
    return found;
  // The one input that is `v` or a reshape of it, if any.
  auto inputOf = [&](Value v) -> Value {
    Value input;
    for (OpOperand *operand : op.getDpsInputOperands())
      if (reshapesFrom(v, operand->get())) {
        if (input && input != operand->get())
          return Value();
        input = operand->get();
      }
    return input;
  };
  // Fills passed on the way (another op's output, the split reduction's leaving it
  // there): a prologue's payload then runs after them.
  SmallVector<Value> filled;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isMemoryEffectFree(prev) && !prev->getNumRegions())
      continue;
    if (auto fill = dyn_cast<linalg::FillOp>(prev);
        fill && fill.hasPureBufferSemantics() && !claimed.contains(fill)) {
      if (!llvm::is_contained(op.getDpsInits(), fill.getOutputs()[0]))
        filled.push_back(fill.getOutputs()[0]);
      continue;
    }
    auto producer = dyn_cast<linalg::LinalgOp>(prev);
    if (!producer || claimed.contains(producer) || isa<linalg::FillOp>(producer) ||
        producer.getNumReductionLoops() || producer.getNumDpsInits() != 1 ||
        producer->getNumResults() || !Lowering(producer).matches() || epilogue(producer))
      break;
    OpOperand *init = producer.getDpsInitOperand(0);
    Value written = init->get();
    Value buffer = bufferOf(written);
    Value input = inputOf(written);
    // The buffer is never written: the reduction must reach it through `input` only.
    if (!input ||
        llvm::any_of(memrefsTouched(op),
                     [&](Value v) { return v != input && bufferOf(v) == buffer; }) ||
        !producer.getMatchingIndexingMap(init).isIdentity() ||
        !producer.getMatchingBlockArgument(init).use_empty() || isa<BlockArgument>(buffer) ||
        written != buffer || !readOnlyBy(buffer, producer, op))
      break;
    // Its payload is cloned into the kernel: loads and pure ops only.
    bool clonable = true;
    for (Operation &inner : producer.getBlock()->without_terminator())
      if (inner.getNumRegions() || !(isMemoryEffectFree(&inner) || isa<memref::LoadOp>(inner)))
        clonable = false;
    // The kernel writes the reduction's outputs while other threads read these. What the
    // producer writes is never written once it is fused: at the top level it may read it,
    // in place (a split-K sum adding the residual into the residual's buffer); inside a
    // loop of the model the next iteration would read the value never stored.
    bool topLevel = isa<FunctionOpInterface>(op->getParentOp());
    for (Value read : memrefsRead(producer)) {
      for (Value out : op.getDpsInits())
        if (mayOverlap(read, out) || (!topLevel && mayOverlap(read, written)))
          clonable = false;
      for (Value out : filled)
        if (mayOverlap(read, out))
          clonable = false;
    }
    if (!clonable)
      break;
    found.push_back({producer, input});
  }
  return found;
}

/// Whether `op`'s access of `memref` through `map` stays in the block's row: buffers are
/// contiguous and row-major through reshapes, so row r of the group's `rows` owns elements
/// [r W, (r + 1) W) of the buffer (W = its elements / the rows), and the access's element
/// offset, an affine function of the loop dims, must fall there for every point.
bool rowLocalAccess(Value memref, AffineMap map, linalg::LinalgOp op, ArrayRef<int64_t> rows) {
  for (Value v = memref; v != bufferOf(v);) {
    Operation *view = v.getDefiningOp();
    if (!isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(view))
      return false;
    v = cast<ViewLikeOpInterface>(view).getViewSource();
  }
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!map || !type || !type.hasStaticShape() || !type.getLayout().isIdentity() ||
      map.getNumSymbols())
    return false;
  int64_t rowCount = 1;
  for (int64_t r : rows)
    rowCount *= r;
  if (type.getNumElements() % rowCount)
    return false;
  int64_t width = type.getNumElements() / rowCount;
  SmallVector<int64_t> coefficient(op.getNumLoops(), 0);
  int64_t offset = 0, stride = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    AffineExpr result = map.getResult(i);
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      coefficient[dim.getPosition()] += stride;
    else if (auto constant = dyn_cast<AffineConstantExpr>(result))
      offset += constant.getValue() * stride;
    else
      return false;
    stride *= type.getDimSize(i);
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t rowStride = 1, last = offset;
  for (int64_t d = rows.size() - 1; d >= 0; --d) {
    if (rows[d] > 1 && coefficient[d] != rowStride * width)
      return false;
    rowStride *= rows[d];
  }
  for (size_t d = rows.size(); d < ranges.size(); ++d)
    last += coefficient[d] * (ranges[d] - 1);
  return offset >= 0 && last < width;
}

/// Whether `group` can run as one kernel of a block per row: every op lowers here, and
/// every access (read or write) of memory one of its ops writes is the block's own row of
/// that same buffer. Blocks run at once; a row's ops run in order, barriers between them.
bool rowGroupFits(const infc::RowGroup &group) {
  struct Access {
    Value memref;
    AffineMap map; // null: at indices the maps don't tell (a payload's own loads)
    linalg::LinalgOp op;
  };
  SmallVector<Access> accesses;
  SmallVector<Value> written;
  for (linalg::LinalgOp op : group.ops) {
    if (!Lowering(op).matches())
      return false;
    for (OpOperand &operand : op->getOpOperands())
      if (isa<MemRefType>(operand.get().getType()))
        accesses.push_back({operand.get(), op.getMatchingIndexingMap(&operand), op});
    for (Value v : infc::capturedShapedValues(op))
      accesses.push_back({v, AffineMap(), op});
    written.push_back(op.getDpsInits()[0]);
  }
  for (const Access &access : accesses)
    for (Value w : written)
      if (mayOverlap(access.memref, w) &&
          (bufferOf(access.memref) != bufferOf(w) ||
           !rowLocalAccess(access.memref, access.map, access.op, group.rows)))
        return false;
  // Between the ops only what can move before the kernel (constants, views).
  for (Operation *o = group.ops.front(); o != group.ops.back(); o = o->getNextNode())
    if (!llvm::is_contained(group.ops, o) && (!isMemoryEffectFree(o) || o->getNumRegions()))
      return false;
  return true;
}

/// Moves the ops after `ops.front()` and before `until` that are not among `ops` before
/// the front, in order: what a kernel of `ops` uses (views, constants), or what must run
/// before it.
void moveOthersBefore(ArrayRef<linalg::LinalgOp> ops, Operation *until) {
  linalg::LinalgOp front = ops.front();
  for (Operation *o = front->getNextNode(); o && o != until;) {
    Operation *between = o;
    o = o->getNextNode();
    if (!llvm::is_contained(ops, between))
      between->moveBefore(front);
  }
}

/// Runs `group` as one kernel (RowKernels.cpp) and erases its ops.
void lowerRowGroup(const infc::RowGroup &group) {
  linalg::LinalgOp front = group.ops.front();
  moveOthersBefore(group.ops, group.ops.back());
  std::deque<Lowering> lowerings;
  DenseMap<Operation *, Lowering *> byOp;
  for (linalg::LinalgOp op : group.ops) {
    lowerings.emplace_back(op);
    lowerings.back().matches();
    byOp[op] = &lowerings.back();
  }
  OpBuilder b(front);
  infc::emitRowKernel(
      b, group,
      [&](OpBuilder &inner, linalg::LinalgOp op, ArrayRef<Value> dims) {
        Lowering *l = byOp.lookup(op);
        l->dims.assign(dims.begin(), dims.end());
        l->point(inner);
      },
      [&](OpBuilder &inner, linalg::LinalgOp op, ArrayRef<Value> dims, Value acc) {
        Lowering *l = byOp.lookup(op);
        l->dims.assign(dims.begin(), dims.end());
        return l->body(inner, acc)[0];
      });
  for (linalg::LinalgOp op : llvm::reverse(group.ops))
    op->erase();
}

/// Whether `op` can move before `ops` (which come before it): it reads nothing they write,
/// and writes nothing they touch.
bool independent(linalg::LinalgOp op, ArrayRef<linalg::LinalgOp> ops) {
  Value written = op.getDpsInits()[0];
  for (linalg::LinalgOp other : ops) {
    for (Value v : memrefsTouched(other))
      if (mayOverlap(v, written))
        return false;
    for (Value w : other.getDpsInits())
      for (Value v : memrefsTouched(op))
        if (mayOverlap(v, w))
          return false;
  }
  return true;
}

/// Moves the skipped ops of `group` (and the pure ops between, which they may use) before
/// its first op; then whether the group can run as one loop nest of a thread a point:
/// every access of memory one of its ops writes is that point of that same buffer (as a
/// row group whose rows are all the loop dims).
bool pointGroupFits(const infc::PointGroup &group) {
  linalg::LinalgOp front = group.ops.front();
  if (!group.skipped.empty()) {
    Operation *last = group.skipped.back();
    // A deallocation between would move before the members that still read its buffer
    // (none is left once the memory plan ran).
    for (Operation *o = front->getNextNode(); o && o != last; o = o->getNextNode())
      if (isa<memref::DeallocOp>(o))
        return false;
    moveOthersBefore(group.ops, last->getNextNode());
  }
  infc::RowGroup rows;
  rows.ops = group.ops;
  rows.rows = front.getStaticLoopRanges();
  return rowGroupFits(rows);
}

/// Runs `group` as one parallel loop nest, each op's payload in turn at each point, and
/// erases its ops.
void lowerPointGroup(const infc::PointGroup &group) {
  linalg::LinalgOp front = group.ops.front();
  moveOthersBefore(group.ops, group.ops.back());
  OpBuilder b(front);
  Location loc = front.getLoc();
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t range : front.getStaticLoopRanges()) {
    lbs.push_back(arith::ConstantIndexOp::create(b, loc, 0));
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, range));
    steps.push_back(arith::ConstantIndexOp::create(b, loc, 1));
  }
  auto loop = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
  OpBuilder inner(loop.getBody()->getTerminator());
  SmallVector<Value> point(loop.getInductionVars());
  for (linalg::LinalgOp op : group.ops) {
    Lowering lowering(op);
    lowering.matches();
    lowering.dims = point;
    lowering.point(inner);
  }
  for (linalg::LinalgOp op : llvm::reverse(group.ops))
    op->erase();
}

struct InfcLinalgToGpuLoopsPass
    : public infc::impl::InfcLinalgToGpuLoopsBase<InfcLinalgToGpuLoopsPass> {
  using InfcLinalgToGpuLoopsBase::InfcLinalgToGpuLoopsBase;

  void runOnOperation() override {
    if (rowKernels && !getOperation().getBody().empty())
      for (const infc::RowGroup &group :
           infc::findRowGroups(getOperation().getBody().front(), infc::kRowReductionMin))
        if (rowGroupFits(group))
          lowerRowGroup(group);
    SmallVector<linalg::LinalgOp> ops; // fills last: the reductions may absorb them
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::FillOp>(op))
        ops.push_back(op);
    });
    DenseSet<Operation *> fused; // erased epilogues and prologues (the list holds them)
    // Prologues first: a producer fused into the reduction after it is not also the
    // epilogue of the one before.
    DenseMap<Operation *, SmallVector<Prologue>> prologuesOf;
    // An op that can end the epilogue chain of the reduction before it is not a prologue
    // of the one after: computed once and stored (in half, with --precision), not again in
    // every block that stages it (a GELU between two matmuls, a conv's BN and Relu, the
    // cast to half after attention's transpose from heads).
    auto epilogueOfPrevious = [&](linalg::LinalgOp producer) {
      SmallVector<linalg::LinalgOp> chain = {producer};
      linalg::LinalgOp reduction;
      for (Operation *prev = producer->getPrevNode(); !reduction; prev = prev->getPrevNode()) {
        while (prev && isMemoryEffectFree(prev) && !prev->getNumRegions())
          prev = prev->getPrevNode();
        auto before = dyn_cast_or_null<linalg::LinalgOp>(prev);
        if (!before || isa<linalg::FillOp>(before) || fused.contains(before))
          return false;
        if (before.getNumReductionLoops())
          reduction = before;
        else
          chain.insert(chain.begin(), before);
      }
      Lowering lowering(reduction);
      if (!lowering.matches())
        return false;
      std::deque<Lowering> links;
      attachPrologues(lowering, prologuesOf.lookup(reduction), links);
      // The main loop's chain (below), without building it.
      SmallVector<Value> reads = lowering.kernelReads();
      SmallVector<Value> written = {reduction.getDpsInits()[0]};
      Lowering *tail = &lowering;
      for (linalg::LinalgOp next : chain)
        if (!(tail = linkEpilogue(*tail, next, links, reads, written)))
          return false;
      return true;
    };
    for (linalg::LinalgOp op : prologues ? ops : SmallVector<linalg::LinalgOp>()) {
      if (!Lowering(op).matches())
        continue;
      SmallVector<Prologue> producers = findPrologues(op, fused, epilogueOfPrevious);
      for (const Prologue &prologue : producers)
        fused.insert(prologue.producer);
      if (!producers.empty())
        prologuesOf[op] = std::move(producers);
    }
    // All-parallel ops on their own wait for the point groups (below).
    llvm::SetVector<Operation *> alone;
    for (linalg::LinalgOp op : ops) {
      if (fused.contains(op))
        continue;
      Lowering lowering(op);
      if (!lowering.matches())
        continue;
      if (lowering.reduction.empty()) {
        alone.insert(op);
        continue;
      }
      std::deque<Lowering> prologues;
      attachPrologues(lowering, prologuesOf.lookup(op), prologues);
      linalg::FillOp fill = fillToFold(op);
      if (fill && fill.getInputs()[0].getParentBlock() == op->getBlock() &&
          fill.getInputs()[0].getType() ==
              cast<MemRefType>(op.getDpsInits()[0].getType()).getElementType())
        lowering.initialValue = fill.getInputs()[0];
      // The ops right after (past pure ones: constants, views) that can run on each
      // element the reduction writes, each on the one before's: a bias add, a transpose.
      std::deque<Lowering> epilogues;
      if (!lowering.reduction.empty()) {
        SmallVector<Value> reads = lowering.kernelReads();
        SmallVector<Value> written = {op.getDpsInits()[0]};
        Lowering *tail = &lowering;
        for (Operation *after = op;;) {
          Operation *next = after->getNextNode();
          while (next && isMemoryEffectFree(next) && !next->getNumRegions())
            next = next->getNextNode();
          auto nextOp = dyn_cast_or_null<linalg::LinalgOp>(next);
          Lowering *link = nextOp && !fused.contains(nextOp)
                               ? linkEpilogue(*tail, nextOp, epilogues, reads, written)
                               : nullptr;
          if (!link)
            break;
          // The pure ops between (the bias's view, say) move up: the fused loop uses them.
          for (Operation *between = after->getNextNode(); between != next;) {
            Operation *moved = between;
            between = between->getNextNode();
            moved->moveBefore(op);
          }
          tail->epilogue = link;
          // The epilogue reads the output from a register: memory needs it only if
          // something else reads it (a model output, a later op, the epilogue's own init).
          Value buffer = bufferOf(tail->op.getDpsInits()[0]);
          tail->storesOutput =
              isa<BlockArgument>(buffer) || !readOnlyBy(buffer, tail->op, nextOp) ||
              !nextOp.getMatchingBlockArgument(nextOp.getDpsInitOperand(0)).use_empty();
          tail = link;
          after = nextOp;
        }
      }
      lowering.run(tileMinBlocks, tensorCores, tf32);
      if (lowering.initialValue)
        fill->erase();
      for (Lowering &epilogue : epilogues) {
        fused.insert(epilogue.op);
        epilogue.op->erase();
      }
      for (Lowering &producer : prologues)
        producer.op->erase();
    }
    if (pointGroups && !getOperation().getBody().empty())
      for (const infc::PointGroup &group : infc::findPointGroups(
               getOperation().getBody().front(),
               [&](linalg::LinalgOp op) { return alone.contains(op); },
               [&](linalg::LinalgOp op, ArrayRef<linalg::LinalgOp> before) {
                 return alone.contains(op) && independent(op, before);
               }))
        if (pointGroupFits(group)) {
          for (linalg::LinalgOp op : group.ops)
            alone.remove(op);
          lowerPointGroup(group);
        }
    for (Operation *op : alone) {
      Lowering lowering(cast<linalg::LinalgOp>(op));
      lowering.matches();
      lowering.run(/*tileMinBlocks=*/0, /*tensorCores=*/false);
    }
    // The fills left over (their buffer is read or written by something else first).
    getOperation().walk([&](linalg::FillOp fill) {
      Lowering lowering(fill);
      if (lowering.matches())
        lowering.run(/*tileMinBlocks=*/0, /*tensorCores=*/false);
    });
  }
};
} // namespace
