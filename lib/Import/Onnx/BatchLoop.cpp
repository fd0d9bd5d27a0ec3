//===- BatchLoop.cpp - whether a model computes each batch row on its own -===//
//
// A model whose outputs' row n depends only on its inputs' row n along a named dim (a
// batch) runs at any batch size as the static code for one row, called once per row
// (docs/dynamic-shapes.md, "3c"). This decides it without trusting the importers with a
// `?`: the model is imported at several sizes of the dim, and what changes between two
// imports is where the batch is. The graphs must be the same ops with the same
// attributes and constants (anything computed from the batch size differs and is
// refused), and each op must map its operands' batch dims to its results' as an op that
// treats them row by row: elementwise ops aligned, a matmul's rows, a convolution's N,
// reductions, softmaxes and slices along other dims, reshapes that keep whole rows.
// Anything else is refused with the node named, never guessed.
//
//===----------------------------------------------------------------------===//
#include "ProbeImport.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace infc;
using namespace infc::detail;

namespace {
/// Where a value carries the batch: a dim, or kNone; kOther when a dim changes with the
/// batch size but is not the batch (rows merged with another dim, a size computed from it).
/// (`sizeB` may be 1, the row's import: then a dim of the batch is the one that is
/// `sizeA` there and 1 here, every other dim equal.)
constexpr int64_t kNone = -1, kOther = -2;

/// The batch dim of a value typed `a` in the import at `sizeA` and `b` at `sizeB`.
int64_t batchDim(Type a, Type b, int64_t sizeA, int64_t sizeB) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getRank() != tb.getRank() || ta.getElementType() != tb.getElementType())
    return kOther;
  int64_t dim = kNone;
  for (int64_t d = 0; d < ta.getRank(); ++d) {
    if (ta.getDimSize(d) == tb.getDimSize(d))
      continue;
    if (dim != kNone || ta.getDimSize(d) != sizeA || tb.getDimSize(d) != sizeB)
      return kOther;
    dim = d;
  }
  return dim;
}

int64_t normalized(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// The product of `v`'s first `count` dims (static: the batch is not among them).
int64_t leadingProduct(ShapedType type, int64_t count) {
  int64_t p = 1;
  for (int64_t d = 0; d < count; ++d)
    p *= type.getDimSize(d);
  return p;
}
int64_t leadingProduct(Value v, int64_t count) {
  return leadingProduct(cast<ShapedType>(v.getType()), count);
}

/// Compares the two imports op by op and follows the batch through them.
class BatchRowsCheck {
public:
  BatchRowsCheck(int64_t sizeA, int64_t sizeB) : sizeA(sizeA), sizeB(sizeB) {}

  LogicalResult run(func::FuncOp a, func::FuncOp b, BatchRows &rows, std::string &why);

private:
  int64_t sizeA, sizeB;
  DenseMap<Value, Value> counterpart; // import A's value -> import B's
  DenseMap<Value, int64_t> dims;      // import A's value -> its batch dim

  /// Whether `a` (import A's op, whose counterpart is `b`) maps its operands' batch dims
  /// to `results` row by row; `why` says what it does instead.
  bool rowByRow(Operation *a, Operation *b, ArrayRef<int64_t> operands, ArrayRef<int64_t> results,
                std::string &why);
  bool sameAttributes(Operation *a, Operation *b, ArrayRef<int64_t> operands);
  bool sameRowRepeated(ElementsAttr a, ElementsAttr b);
};

/// Broadcasting ops (elementwise, where, broadcast): each operand's batch dim aligned from
/// the right with the result's. An operand without it has size 1 there (it broadcasts).
bool alignedFromRight(Operation *op, ArrayRef<int64_t> operands, int64_t result) {
  int64_t rank = rankOf(op->getResult(0));
  for (auto [v, d] : llvm::zip(op->getOperands(), operands))
    if (d != kNone && d + rank - rankOf(v) != result)
      return false;
  return true;
}

bool BatchRowsCheck::sameAttributes(Operation *a, Operation *b, ArrayRef<int64_t> operands) {
  // A slice keeps its batch dim whole: sizes differ there (the batch's size), nothing else.
  if (auto sa = dyn_cast<SliceOp>(a)) {
    auto sb = cast<SliceOp>(b);
    int64_t d = operands[0];
    if (sa.getOffsets() != sb.getOffsets() || sa.getSteps() != sb.getSteps())
      return false;
    for (int64_t k = 0; k < (int64_t)sa.getSizes().size(); ++k) {
      if (k != d) {
        if (sa.getSizes()[k] != sb.getSizes()[k])
          return false;
        continue;
      }
      if (sa.getOffsets()[k] != 0 || sa.getSteps()[k] != 1 || sa.getSizes()[k] != sizeA ||
          sb.getSizes()[k] != sizeB)
        return false;
    }
    return true;
  }
  // A constant with the batch (HF's token_type_ids, zeros expanded to [batch, seq]): one row
  // repeated, the same in both imports.
  if (auto ca = dyn_cast<ConstantOp>(a); ca && ca.getValue() != cast<ConstantOp>(b).getValue())
    return sameRowRepeated(ca.getValue(), cast<ConstantOp>(b).getValue());
  return a->getAttrDictionary() == b->getAttrDictionary();
}

bool BatchRowsCheck::sameRowRepeated(ElementsAttr a, ElementsAttr b) {
  auto da = dyn_cast<DenseElementsAttr>(a), db = dyn_cast<DenseElementsAttr>(b);
  int64_t d = da && db ? batchDim(da.getType(), db.getType(), sizeA, sizeB) : kNone;
  // (bools are bit-packed: refused, as are element types without a bit width)
  if (d < 0 || !da.getElementType().isIntOrFloat() || da.getElementType().isInteger(1))
    return false;
  if (da.isSplat() || db.isSplat())
    return da.isSplat() && db.isSplat() && da.getRawData() == db.getRawData();
  // [outer, batch, inner] elements: every (outer, row) block equal to B's first row's.
  ArrayRef<char> ra = da.getRawData(), rb = db.getRawData();
  int64_t inner = leadingProduct(da.getType(), da.getType().getRank()) / sizeA /
                  leadingProduct(da.getType(), d);
  int64_t bytes = inner * da.getElementType().getIntOrFloatBitWidth() / 8;
  if (bytes <= 0 || (int64_t)ra.size() != leadingProduct(da.getType(), d) * sizeA * bytes)
    return false;
  for (int64_t outer = 0; outer < leadingProduct(da.getType(), d); ++outer) {
    ArrayRef<char> row = rb.slice(outer * sizeB * bytes, bytes);
    for (int64_t n = 0; n < sizeA; ++n)
      if (ra.slice((outer * sizeA + n) * bytes, bytes) != row)
        return false;
    for (int64_t n = 0; n < sizeB; ++n)
      if (rb.slice((outer * sizeB + n) * bytes, bytes) != row)
        return false;
  }
  return true;
}

bool BatchRowsCheck::rowByRow(Operation *a, Operation *b, ArrayRef<int64_t> operands,
                              ArrayRef<int64_t> results, std::string &why) {
  if (isa<ConstantOp>(a)) // (sameAttributes checked its rows)
    return true;
  // A result computed from what does not change with the batch does not either.
  if (llvm::all_of(operands, [](int64_t d) { return d == kNone; })) {
    if (llvm::all_of(results, [](int64_t d) { return d == kNone; }))
      return true;
    why = "computes a batch of rows from values without one (a shape taken from the batch size)";
    return false;
  }
  if (llvm::any_of(results, [](int64_t d) { return d == kNone; })) {
    why = "folds the batch's rows together";
    return false;
  }
  int64_t r = results[0];
  auto fail = [&](const char *what) {
    why = what;
    return false;
  };
  if (a->hasTrait<InfcElementwise>() || isa<CastOp, BitcastOp, WhereOp, BroadcastOp>(a))
    return alignedFromRight(a, operands, r) ? true : fail("broadcasts the batch against rows");

  if (auto mm = dyn_cast<MatMulOp>(a)) {
    int64_t rl = rankOf(mm.getLhs()), rr = rankOf(mm.getRhs()), rank = rankOf(mm.getResult());
    int64_t l = operands[0], rhs = operands[1];
    if (l == rl - 1 || rhs == rr - 2)
      return fail("contracts over the batch");
    if (l != kNone && rhs != kNone && (l == rl - 2 || rhs == rr - 1))
      return fail("multiplies the rows of one batch by another's");
    if (l != kNone && (l == rl - 2 ? rank - 2 : l + rank - rl) != r)
      return fail("moves the batch");
    if (rhs != kNone && (rhs == rr - 1 ? rank - 1 : rhs + rank - rr) != r)
      return fail("moves the batch");
    return true;
  }
  if (isa<ConvOp, MaxPoolOp, AvgPoolOp>(a)) {
    if (operands[0] != 0 || r != 0 ||
        llvm::any_of(operands.drop_front(), [](int64_t d) { return d != kNone; }))
      return fail("takes the batch other than as the images' N");
    return true;
  }
  auto reduced = [&](ArrayRef<int64_t> axes, bool keepdims) {
    int64_t d = operands[0], before = 0;
    for (int64_t axis : axes) {
      if (axis == d)
        return fail("reduces over the batch");
      before += axis < d;
    }
    return (keepdims ? d : d - before) == r ? true : fail("moves the batch");
  };
  if (auto op = dyn_cast<ReduceSumOp>(a))
    return reduced(op.getAxes(), op.getKeepdims());
  if (auto op = dyn_cast<ReduceMeanOp>(a))
    return reduced(op.getAxes(), op.getKeepdims());
  if (auto op = dyn_cast<ReduceMaxOp>(a))
    return reduced(op.getAxes(), op.getKeepdims());
  if (auto op = dyn_cast<ReduceMinOp>(a))
    return reduced(op.getAxes(), op.getKeepdims());
  if (auto op = dyn_cast<ReduceProdOp>(a))
    return reduced(op.getAxes(), op.getKeepdims());
  int64_t rank = rankOf(a->getOperand(0));
  if (auto op = dyn_cast<ArgMaxOp>(a))
    return reduced({normalized(op.getAxis(), rank)}, op.getKeepdims());
  if (auto op = dyn_cast<ArgMinOp>(a))
    return reduced({normalized(op.getAxis(), rank)}, op.getKeepdims());
  // Ops along one axis that keep the shape: the batch must not be that axis.
  auto alongOther = [&](int64_t axis) {
    return axis == operands[0] ? fail("runs along the batch")
           : r != operands[0]  ? fail("moves the batch")
                               : true;
  };
  if (auto op = dyn_cast<SoftmaxOp>(a))
    return alongOther(normalized(op.getAxis(), rank));
  if (auto op = dyn_cast<CumSumOp>(a))
    return alongOther(normalized(op.getAxis(), rank));
  if (auto op = dyn_cast<CumProdOp>(a))
    return alongOther(normalized(op.getAxis(), rank));
  if (auto op = dyn_cast<TopKOp>(a))
    return r == results[1] ? alongOther(normalized(op.getAxis(), rank)) : fail("moves the batch");
  if (auto op = dyn_cast<LayerNormOp>(a)) {
    if (llvm::any_of(operands.drop_front(), [](int64_t d) { return d != kNone; }))
      return fail("scales by a batch of rows");
    return operands[0] < normalized(op.getAxis(), rank) && r == operands[0]
               ? true
               : fail("normalizes over the batch");
  }
  if (isa<SliceOp>(a)) // (sameAttributes checked that the batch dim is taken whole)
    return r == operands[0] ? true : fail("moves the batch");
  if (auto op = dyn_cast<PadOp>(a)) {
    int64_t d = operands[0];
    if (op.getValue() && operands[1] != kNone)
      return fail("pads with a batch of values");
    return op.getLow()[d] == 0 && op.getHigh()[d] == 0 && r == d ? true : fail("pads the batch");
  }
  if (auto op = dyn_cast<TransposeOp>(a))
    return op.getPerm()[r] == operands[0] ? true : fail("moves the batch");
  if (auto op = dyn_cast<ReshapeOp>(a)) {
    // Whole rows stay whole: as many elements before the batch dim on both sides.
    int64_t d = operands[0];
    return leadingProduct(op.getInput(), d) == leadingProduct(op.getResult(), r)
               ? true
               : fail("merges the batch with another dim");
  }
  if (auto op = dyn_cast<ConcatOp>(a)) {
    if (llvm::any_of(operands, [&](int64_t d) { return d != r; }))
      return fail("concatenates a batch with what has none");
    return normalized(op.getAxis(), rank) == r ? fail("concatenates along the batch") : true;
  }
  if (auto op = dyn_cast<GatherOp>(a)) {
    int64_t axis = normalized(op.getAxis(), rank), data = operands[0], indices = operands[1];
    if (data != kNone && indices != kNone)
      return fail("gathers a batch of rows at a batch of indices");
    if (data == axis)
      return fail("gathers along the batch");
    int64_t expected =
        data != kNone ? (data < axis ? data : data + rankOf(op.getIndices()) - 1) : axis + indices;
    return expected == r ? true : fail("moves the batch");
  }
  if (auto op = dyn_cast<ScatterOp>(a)) {
    if (llvm::any_of(operands, [&](int64_t d) { return d != r; }))
      return fail("scatters a batch into what has none");
    return normalized(op.getAxis(), rank) == r ? fail("scatters along the batch") : true;
  }
  if (isa<QuantizeOp, DequantizeOp>(a)) {
    // Per tensor, or per channel along another dim.
    int64_t axis = normalized(a->getAttrOfType<IntegerAttr>("axis").getInt(), rank);
    auto scale = cast<RankedTensorType>(a->getOperand(1).getType());
    if (llvm::any_of(operands.drop_front(), [](int64_t d) { return d != kNone; }))
      return fail("quantizes with a batch of scales");
    if (scale.getNumElements() != 1 && axis == operands[0])
      return fail("quantizes per row of the batch");
    return r == operands[0] ? true : fail("moves the batch");
  }
  why = "is not known to treat the batch row by row";
  return false;
}

LogicalResult BatchRowsCheck::run(func::FuncOp a, func::FuncOp b, BatchRows &rows,
                                  std::string &why) {
  auto refuse = [&](std::string message) {
    why = std::move(message);
    return failure();
  };
  eraseDeadOps(a);
  eraseDeadOps(b);
  Block &ba = a.getBody().front(), &bb = b.getBody().front();
  if (ba.getNumArguments() != bb.getNumArguments())
    return refuse("the inputs change with the batch size");
  for (auto [i, x, y] : llvm::enumerate(ba.getArguments(), bb.getArguments())) {
    counterpart[x] = y;
    int64_t d = batchDim(x.getType(), y.getType(), sizeA, sizeB);
    auto name = a.getArgAttrOfType<StringAttr>(i, "infc.name");
    std::string input = "input '" + (name ? name.str() : std::to_string(i)) + "'";
    if (d == kOther)
      return refuse(input + " changes with the batch size other than as one dim");
    if (d > 0)
      return refuse(input + " has the batch as dim " + std::to_string(d) +
                    "; rows are taken along dim 0");
    dims[x] = d;
    rows.inputs.push_back(d == 0);
  }
  auto opsA = llvm::make_pointer_range(ba.getOperations());
  auto opsB = llvm::make_pointer_range(bb.getOperations());
  if (std::distance(opsA.begin(), opsA.end()) != std::distance(opsB.begin(), opsB.end()))
    return refuse("the graph changes with the batch size (" +
                  std::to_string(std::distance(opsA.begin(), opsA.end())) + " ops against " +
                  std::to_string(std::distance(opsB.begin(), opsB.end())) + ")");
  for (auto [x, y] : llvm::zip(opsA, opsB)) {
    std::string node = nodeOf(x);
    if (x->getName() != y->getName() || x->getNumOperands() != y->getNumOperands() ||
        x->getNumResults() != y->getNumResults() || x->getNumRegions() || y->getNumRegions())
      return refuse(node + ": the graph changes with the batch size");
    SmallVector<int64_t> operands;
    for (auto [u, v] : llvm::zip(x->getOperands(), y->getOperands())) {
      if (counterpart.lookup(u) != v)
        return refuse(node + ": the graph changes with the batch size");
      operands.push_back(dims.lookup(u));
    }
    if (auto ret = dyn_cast<func::ReturnOp>(x)) {
      for (auto [j, d] : llvm::enumerate(operands)) {
        auto name = a.getResultAttrOfType<StringAttr>(j, "infc.name");
        std::string output = "output '" + (name ? name.str() : std::to_string(j)) + "'";
        if (d != 0)
          return refuse(
              output +
              (d == kNone ? " has no batch dim" : " has the batch as dim " + std::to_string(d)) +
              "; rows are taken along dim 0 of every output");
        rows.outputs.push_back(true);
      }
      break;
    }
    if (!sameAttributes(x, y, operands))
      return refuse(node + ": its attributes or constants change with the batch size");
    SmallVector<int64_t> results;
    for (auto [u, v] : llvm::zip(x->getResults(), y->getResults())) {
      int64_t d = batchDim(u.getType(), v.getType(), sizeA, sizeB);
      if (d == kOther)
        return refuse(node + ": a result changes with the batch size other than as one dim");
      results.push_back(d);
      counterpart[u] = v;
      dims[u] = d;
    }
    std::string what;
    if (!rowByRow(x, y, operands, results, what))
      return refuse(node + " " + what);
  }
  return success();
}
} // namespace

OwningOpRef<ModuleOp> infc::importBatchRow(MLIRContext &context, StringRef path,
                                           const OnnxImportOptions &options, StringRef dim,
                                           BatchRows &rows, std::string &why) {
  // The row's import (1), compared with imports at 2, 3 and 97: neither of the others
  // broadcasts; each size the graph computes from the batch (a clamp, min(batch, 4), a
  // Slice to 8 rows, batch > 1) must come out as the batch itself at all of them or the
  // same at all, the row's included, or the graphs differ.
  constexpr int64_t kRow = 1, kBase = 2, kOthers[] = {3, 97};
  auto import = [&](int64_t size) { return importAtSize(context, path, options, dim, size, why); };
  auto refuse = [&](std::string message) {
    why = std::move(message);
    return nullptr;
  };
  OwningOpRef<ModuleOp> base = import(kBase), row;
  if (!base)
    return nullptr;
  // And at the range's largest size, where the model imports there (a clamp of the batch
  // above 97, min(batch, 128), shows only beyond it); with none, at 1024 (a clamp beyond
  // that is not seen: docs/cli.md, "--dim").
  constexpr int64_t kUnboundedProbe = 1024;
  SmallVector<int64_t, 3> sizes(std::begin(kOthers), std::end(kOthers));
  int64_t rangeMax = 0;
  if (auto range = options.dimRanges.find(dim); range != options.dimRanges.end())
    rangeMax = range->second.second == kUnboundedDim ? kUnboundedProbe : range->second.second;
  if (rangeMax > sizes.back())
    sizes.push_back(rangeMax);
  auto sameRows = [&](const BatchRows &found) {
    return found.inputs == rows.inputs && found.outputs == rows.outputs;
  };
  for (int64_t size : sizes) {
    OwningOpRef<ModuleOp> other = import(size);
    // Too large to import at the bound, or at 97 beyond it (a BERT-base of 97 x 512
    // tokens folds what it does not at 2): checked at the others.
    if (!other && ((size == sizes.back() && sizes.size() > std::size(kOthers)) ||
                   (rangeMax > 0 && size > rangeMax))) {
      why.clear();
      continue;
    }
    BatchRows found;
    if (!other ||
        failed(BatchRowsCheck(kBase, size).run(mainOf(*base), mainOf(*other), found, why)))
      return nullptr;
    if (size != sizes.front() && !sameRows(found))
      return refuse("the inputs and outputs with the batch change with its size");
    rows = found;
  }
  // The code that runs: the same graph as at the other sizes, one row of each batch.
  if (!(row = import(kRow)))
    return nullptr;
  BatchRows found;
  if (failed(BatchRowsCheck(kBase, kRow).run(mainOf(*base), mainOf(*row), found, why)))
    return refuse("at " + dim.str() + "=1: " + why);
  if (!sameRows(found))
    return refuse("at " + dim.str() + "=1 the inputs and outputs with the batch differ");
  return row;
}
