//===- TiledContraction.cpp - a contraction as one shared-memory tiled kernel --===//
//
// The classic SGEMM blocking (shared-memory tiles staged per reduction step, register tiles
// per thread; mma.sync on tensor cores for half, byte and TF32 inputs), over flattened loop
// dimensions so that a convolution runs as an implicit GEMM. The design is in docs/cuda.md,
// "The contraction kernels".
//
//===----------------------------------------------------------------------===//
#include "TiledContraction.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using infc::ContractionTiling;

namespace {
Type elementOf(OpOperand *operand) {
  return cast<ShapedType>(operand->get().getType()).getElementType();
}

/// The most static shared memory a kernel may declare (the rest of an SM's needs dynamic
/// shared memory, opted into at launch).
constexpr int64_t kStaticSharedBytes = 48 * 1024;

bool isWidening(Operation *op) { return isa<arith::ExtFOp, arith::ExtSIOp, arith::ExtUIOp>(op); }

/// Whether the payload is `out + a * b` (floats or integers), each input read once,
/// optionally widened.
bool isMultiplyAdd(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || body->getNumArguments() != 3)
    return false;
  for (Operation &inner : body->without_terminator())
    if (!isWidening(&inner) &&
        !isa<arith::MulFOp, arith::AddFOp, arith::MulIOp, arith::AddIOp>(inner))
      return false;
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Operation *add = yield.getNumOperands() == 1 ? yield.getOperand(0).getDefiningOp() : nullptr;
  if (!isa_and_nonnull<arith::AddFOp, arith::AddIOp>(add))
    return false;
  Value out = body->getArgument(2);
  Value lhs = add->getOperand(0), rhs = add->getOperand(1);
  Value product = lhs == out ? rhs : rhs == out ? lhs : Value();
  Operation *mul = product ? product.getDefiningOp() : nullptr;
  if (!isa_and_nonnull<arith::MulFOp, arith::MulIOp>(mul))
    return false;
  auto strip = [](Value v) {
    Operation *def = v.getDefiningOp();
    return def && isWidening(def) ? def->getOperand(0) : v;
  };
  Value x = strip(mul->getOperand(0)), y = strip(mul->getOperand(1));
  Value a = body->getArgument(0), b = body->getArgument(1);
  return (x == a && y == b) || (x == b && y == a);
}

/// How the payload widens input `input` before the product: ExtSI / ExtUI / ExtF, or null.
Operation *wideningOf(linalg::LinalgOp op, unsigned input) {
  BlockArgument arg = op.getBlock()->getArgument(input);
  for (Operation *user : arg.getUsers())
    if (isWidening(user))
      return user;
  return nullptr;
}

/// The tensor-core operand type of input `input`: f16 or bf16 summed in f32, f32 summed in
/// f32 as TF32 (when `tf32`), or bytes widened by extsi / extui and summed in i32 as si8 /
/// ui8 (null: no tensor-core operand).
Type tensorCoreElement(linalg::LinalgOp op, unsigned input, bool tf32) {
  Type element = elementOf(op.getDpsInputOperand(input));
  Type acc = elementOf(op.getDpsInitOperand(0));
  if (acc.isF32() && (element.isF16() || element.isBF16() || (tf32 && element.isF32())))
    return element;
  Operation *ext = wideningOf(op, input);
  if (element.isInteger(8) && acc.isInteger(32) && ext && !isa<arith::ExtFOp>(ext))
    return IntegerType::get(op.getContext(), 8,
                            isa<arith::ExtSIOp>(ext) ? IntegerType::Signed : IntegerType::Unsigned);
  return Type();
}

/// Adds `scale` x `expr` to `coefficients` (one a loop dimension) and `constant`, if
/// `expr` is a sum of dimensions times constants and constants.
bool linearTerms(AffineExpr expr, int64_t scale, MutableArrayRef<int64_t> coefficients,
                 int64_t &constant) {
  if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
    coefficients[dim.getPosition()] += scale;
    return true;
  }
  if (auto value = dyn_cast<AffineConstantExpr>(expr)) {
    constant += scale * value.getValue();
    return true;
  }
  auto binary = dyn_cast<AffineBinaryOpExpr>(expr);
  if (!binary)
    return false;
  if (expr.getKind() == AffineExprKind::Add)
    return linearTerms(binary.getLHS(), scale, coefficients, constant) &&
           linearTerms(binary.getRHS(), scale, coefficients, constant);
  if (expr.getKind() != AffineExprKind::Mul)
    return false;
  if (auto factor = dyn_cast<AffineConstantExpr>(binary.getRHS()))
    return linearTerms(binary.getLHS(), scale * factor.getValue(), coefficients, constant);
  if (auto factor = dyn_cast<AffineConstantExpr>(binary.getLHS()))
    return linearTerms(binary.getRHS(), scale * factor.getValue(), coefficients, constant);
  return false;
}

/// The alignment in bytes of `memref`'s aligned pointer: 64 for the workspace's and the
/// weights' views (the memory plan and infc-pack-weights place every buffer at a multiple
/// of 64 bytes; a subview or a reshape keeps the pointer, its offset is in the type), 16
/// for the planned entry's inputs and outputs (the CUDA runtime uses a device pointer in
/// place only when it is 16-byte aligned), 1 for anything else.
int64_t pointerAlignment(Value memref) {
  while (true) {
    if (auto arg = dyn_cast<BlockArgument>(memref)) {
      auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
      if (!func)
        return 1;
      unsigned i = arg.getArgNumber();
      if (func.getArgAttr(i, "infc.workspace") || func.getArgAttr(i, "infc.weights"))
        return 64;
      // The planned entry's other arguments: the inputs and outputs.
      bool entry = func.getNumArguments() && func.getArgAttr(0, "infc.workspace");
      return entry ? 16 : 1;
    }
    Operation *def = memref.getDefiningOp();
    if (auto view = dyn_cast_or_null<memref::ViewOp>(def)) {
      APInt shift;
      if (!matchPattern(view.getByteShift(), m_ConstantInt(&shift)))
        return 1;
      int64_t base = pointerAlignment(view.getSource());
      return (int64_t)llvm::MinAlign(base, shift.getZExtValue());
    }
    if (!isa_and_nonnull<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
                         memref::ReinterpretCastOp, memref::CastOp>(def))
      return 1;
    memref = def->getOperand(0);
  }
}

struct KernelBuilder {
  OpBuilder &b;
  linalg::LinalgOp op;
  const ContractionTiling &t;
  Location loc;
  int64_t threads;
  infc::InputLoad load;
  infc::InputSources sources;
  infc::InputVectorLoad loadVector;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value mul(Value x, int64_t y) { return y == 1 ? x : arith::MulIOp::create(b, loc, x, c(y)); }
  Value div(Value x, int64_t y) { return y == 1 ? x : arith::DivUIOp::create(b, loc, x, c(y)); }
  Value rem(Value x, int64_t y) { return arith::RemUIOp::create(b, loc, x, c(y)); }
  Value below(Value x, int64_t bound) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, c(bound));
  }

  /// `flat` split into the loop dimensions `group` (outermost first) of `dims`. The
  /// divisions run on i32 (index is 64 bits in the kernels: a 64-bit division by a
  /// constant is several multiplies, and every staged element has its own chain of them,
  /// which had tensor-core kernels spill), as the group's range fits.
  void delinearize(Value flat, ArrayRef<unsigned> group, SmallVectorImpl<Value> &dims) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t total = 1;
    for (unsigned d : group)
      total *= ranges[d];
    bool narrow = group.size() > 1 && total <= INT32_MAX;
    Type i32 = b.getI32Type();
    if (narrow)
      flat = arith::IndexCastUIOp::create(b, loc, i32, flat);
    auto constant = [&](int64_t v) -> Value {
      return narrow ? arith::ConstantIntOp::create(b, loc, v, 32).getResult() : c(v);
    };
    for (int64_t g = (int64_t)group.size() - 1; g >= 0; --g) {
      int64_t range = ranges[group[g]];
      Value dim = flat;
      if (g > 0)
        dim = arith::RemUIOp::create(b, loc, flat, constant(range));
      if (narrow)
        dim = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), dim);
      dims[group[g]] = dim;
      if (g > 0 && range != 1)
        flat = arith::DivUIOp::create(b, loc, flat, constant(range));
    }
  }

  SmallVector<Value> indices(AffineMap map, ArrayRef<Value> dims) {
    return infc::indexingMapAt(b, loc, map, dims);
  }

  /// `cond ? then() : zero of type`, the value computed only where cond holds.
  Value guarded(Value cond, Type type, function_ref<Value()> then) {
    if (!cond)
      return then();
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{type}, cond, /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, then());
      b.setInsertionPointToStart(ifOp.elseBlock());
      Value zero = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
      scf::YieldOp::create(b, loc, zero);
    }
    return ifOp.getResult(0);
  }

  Value both(Value x, Value y) {
    if (!x || !y)
      return x ? x : y;
    return arith::AndIOp::create(b, loc, x, y);
  }

  /// Whether input `input` (whose own dimensions are `side`) is staged with neighbouring
  /// threads on neighbouring addresses along the reduction: if its innermost index moves
  /// with the innermost reduction dimension and none of its own (a row-major A, a conv
  /// filter's window), else along the tile (B; a conv input, whose innermost index
  /// ow * stride + kw moves with the output pixel).
  bool depthFastest(unsigned input, ArrayRef<unsigned> side) {
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(input));
    if (!map.getNumResults())
      return false;
    AffineExpr innermost = map.getResults().back();
    return innermost.isFunctionOfDim(t.reductionDims.back()) &&
           llvm::none_of(side, [&](unsigned d) { return innermost.isFunctionOfDim(d); });
  }

  /// How many neighbouring elements along the fast dimension of the step (depthFastest's)
  /// a thread stages of input `input` with one vector load: the most, up to 16 bytes, that
  /// are consecutive in memory wherever a chunk starts, the first aligned to the vector,
  /// and all inside the input or none (1: one at a time). Only an input read from memory
  /// element for element (itself, or a prologue's sources: `sources`) whose address is a
  /// linear function of the loop dimensions: the fast group's innermost dimensions whose
  /// coefficients chain (each the product of the ranges inside it: a conv filter's
  /// channels x window, an NHWC input's channels and, at dilation 1, its window's columns)
  /// hold whole chunks, which are then consecutive (the load addresses them linearly, even
  /// across the memref's innermost dimension); every other dimension moves a chunk by a
  /// multiple of it. A byRows source (a padded NHWC image) also needs each chunk inside one
  /// row of the input's innermost dimension.
  int64_t stagedWidth(unsigned input, ArrayRef<unsigned> side, int64_t extent) {
    OpOperand *operand = op.getDpsInputOperand(input);
    auto type = cast<MemRefType>(operand->get().getType());
    int64_t bits = type.getElementTypeBitWidth();
    SmallVector<int64_t> strides;
    int64_t offset;
    SmallVector<infc::InputSource> from = sources(operand->get());
    // vector.load reads along the innermost dimension, which must have unit stride.
    auto unitInnermost = [](MemRefType t, SmallVectorImpl<int64_t> &strides, int64_t &offset) {
      return t.getElementType().isIntOrFloat() && t.getElementTypeBitWidth() % 8 == 0 &&
             succeeded(t.getStridesAndOffset(strides, offset)) && !ShapedType::isDynamic(offset) &&
             !llvm::any_of(strides, ShapedType::isDynamic) && !strides.empty() &&
             strides.back() == 1;
    };
    if (from.empty() || !unitInnermost(type, strides, offset))
      return 1;
    // Each source's offset, outer strides and pointer alignment, and its elements' bytes
    // (an elementwise prologue's inputs have the input's strides, so the same chunks are
    // consecutive there).
    struct Source {
      int64_t offset, alignment, bytes;
      bool byRows;
      SmallVector<int64_t> outerStrides; // the strides but the innermost
    };
    SmallVector<Source> froms;
    bool byRows = false;
    for (const infc::InputSource &source : from) {
      auto sourceType = cast<MemRefType>(source.memref.getType());
      SmallVector<int64_t> sourceStrides;
      int64_t sourceOffset;
      if (!unitInnermost(sourceType, sourceStrides, sourceOffset) ||
          (!source.byRows && sourceStrides != strides))
        return 1;
      byRows |= source.byRows;
      sourceStrides.pop_back();
      froms.push_back({sourceOffset, pointerAlignment(source.memref),
                       sourceType.getElementTypeBitWidth() / 8, source.byRows, sourceStrides});
    }
    SmallVector<int64_t> coefficients(op.getNumLoops(), 0);
    int64_t constant = offset;
    for (auto [expr, stride] : llvm::zip(op.getMatchingIndexingMap(operand).getResults(), strides))
      if (!linearTerms(expr, stride, coefficients, constant))
        return 1;
    bool fastDepth = depthFastest(input, side);
    ArrayRef<unsigned> fast = fastDepth ? ArrayRef<unsigned>(t.reductionDims) : side;
    int64_t fastExtent = fastDepth ? t.depth : extent;
    int64_t step = fastDepth ? t.tileDepth : t.tile;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    // The chained innermost fast dimensions and the product of their ranges. (A dimension
    // of range 1 is always 0: the batch of a conv at batch 1, a 1x1 window.)
    SmallVector<unsigned> chained;
    int64_t inner = 1;
    for (unsigned d : llvm::reverse(fast)) {
      if (ranges[d] == 1)
        continue;
      if (coefficients[d] != inner)
        break;
      chained.push_back(d);
      inner *= ranges[d];
    }
    if (chained.empty())
      return 1;
    ArrayRef<int64_t> shape = type.getShape();
    for (int64_t width = std::min<int64_t>(128 / bits, stagedPerThread()); width > 1; width /= 2) {
      bool aligned = inner % width == 0 && fastExtent % width == 0 && step % width == 0 &&
                     stagedPerThread() % width == 0;
      for (const Source &source : froms)
        aligned &= source.alignment >= std::min<int64_t>(16, width * source.bytes) &&
                   (!source.byRows ? (constant - offset + source.offset) % width == 0
                                   : source.offset % width == 0 &&
                                         llvm::all_of(source.outerStrides,
                                                      [&](int64_t s) { return s % width == 0; }));
      for (auto [d, coefficient] : llvm::enumerate(coefficients))
        aligned &= llvm::is_contained(chained, d) || ranges[d] == 1 || coefficient % width == 0;
      // A chunk starting at a multiple of the width inside rows of a multiple of it.
      if (byRows)
        aligned &= offset % width == 0 && constant % width == 0 && shape.back() % width == 0 &&
                   llvm::all_of(ArrayRef<int64_t>(strides).drop_back(),
                                [&](int64_t s) { return s % width == 0; });
      if (aligned)
        return width;
    }
    return 1;
  }

  /// Where this thread's `l`th staged chunk (`width` neighbouring elements along the fast
  /// dimension) of input `input` goes in the step: (depth index, tile index) of its first
  /// element. Neighbouring threads take neighbouring chunks.
  std::pair<Value, Value> stagedElement(unsigned input, ArrayRef<unsigned> side, int64_t l,
                                        int64_t width) {
    bool fastDepth = depthFastest(input, side);
    Value e = mul(add(tid, l * threads), width);
    Value kk = fastDepth ? rem(e, t.tileDepth) : div(e, t.tile);
    Value ii = fastDepth ? div(e, t.tileDepth) : rem(e, t.tile);
    return {kk, ii};
  }

  int64_t stagedPerThread() const { return t.tile * t.tileDepth / threads; }
  /// How many values stageLoads gives for input `input`.
  int64_t stageLoadsCount(unsigned input, ArrayRef<unsigned> side, int64_t extent) {
    return stagedPerThread() / stagedWidth(input, side, extent);
  }

  /// This thread's chunks of the reduction step at `k0` of input `input` (`extent` of its
  /// own dimensions, this block's from `start`), 0 outside the input: elements, or vectors
  /// of stagedWidth's.
  SmallVector<Value> stageLoads(unsigned input, ArrayRef<unsigned> side, int64_t extent,
                                Value start, Value k0) {
    OpOperand *operand = op.getDpsInputOperand(input);
    AffineMap map = op.getMatchingIndexingMap(operand);
    Type element = elementOf(operand);
    int64_t width = stagedWidth(input, side, extent);
    Type type = width > 1 ? Type(VectorType::get({width}, element)) : element;
    SmallVector<Value> values;
    for (int64_t l = 0; l < stagedPerThread() / width; ++l) {
      auto [kk, ii] = stagedElement(input, side, l, width);
      Value i = add(start, ii), k = add(k0, kk);
      Value inside = both(extent % t.tile ? below(i, extent) : Value(),
                          t.depth % t.tileDepth ? below(k, t.depth) : Value());
      values.push_back(guarded(inside, type, [&, i = i, k = k]() -> Value {
        SmallVector<Value> dims(op.getNumLoops(), Value());
        for (auto [d, value] : llvm::zip(t.batchDims, batchDims))
          dims[d] = value;
        delinearize(i, side, dims);
        delinearize(k, t.reductionDims, dims);
        for (Value &d : dims)
          if (!d)
            d = c(0); // the other input's dimensions: not in this map
        if (width == 1)
          return load(b, operand->get(), indices(map, dims));
        return loadVector(b, operand->get(), indices(map, dims), width);
      }));
    }
    return values;
  }

  /// Where a staged element (depth index kk, tile index ii) goes in shared memory.
  enum class Layout {
    DepthMajor, // [tileDepth][pitch]
    TileMajor,  // [tile][pitch]: the reduction along the rows
  };
  SmallVector<Value> stagedIndex(Layout layout, Value kk, Value ii, Value stage) {
    if (layout == Layout::DepthMajor)
      return {inStage(kk, stage), ii};
    return {inStage(ii, stage), kk};
  }

  /// How many stages of the staged tiles (`stageBytes` together) fit the static shared
  /// memory beside `otherBytes`: 2 where they fit (a step stores into one stage while the
  /// step before is computed from the other, so one barrier a step is enough), else 1 (a
  /// barrier before the stores as well, until the step before is read).
  static int64_t stagesThatFit(int64_t stageBytes, int64_t otherBytes) {
    return 2 * stageBytes + otherBytes <= kStaticSharedBytes ? 2 : 1;
  }

  /// Row `row` of a stage whose first row is `stage` (null: one stage, at row 0). Two
  /// stages of a buffer lie one after the other along its rows.
  Value inStage(Value row, Value stage) { return stage ? add(row, stage) : row; }

  /// The first row of the stage that the reduction step at `k0` uses, in a buffer of
  /// `stages` stages of `rows` rows each (null with one stage).
  Value stageAt(Value k0, int64_t stages, int64_t rows) {
    if (stages == 1)
      return Value();
    return mul(rem(div(k0, t.tileDepth), stages), rows);
  }

  /// Stores `values` (from stageLoads) into `shared`, laid out as `layout` says: a chunk
  /// along a row of `shared` as one vector store, across rows element by element.
  void stageStores(unsigned input, ArrayRef<unsigned> side, ValueRange values, Value shared,
                   Layout layout, Value stage) {
    bool fastDepth = depthFastest(input, side);
    bool alongRow = fastDepth == (layout == Layout::TileMajor);
    auto type = cast<MemRefType>(shared.getType());
    int64_t elementBytes = type.getElementTypeBitWidth() / 8;
    for (auto [l, v] : llvm::enumerate(values)) {
      auto vector = dyn_cast<VectorType>(v.getType());
      int64_t width = vector ? vector.getNumElements() : 1;
      auto [kk, ii] = stagedElement(input, side, l, width);
      if (!vector) {
        memref::StoreOp::create(b, loc, v, shared, stagedIndex(layout, kk, ii, stage));
        continue;
      }
      if (alongRow) {
        // The chunk's offset in the row is a multiple of its bytes; the row's start as
        // aligned as the pitch allows.
        int64_t pitchBytes = type.getShape()[1] * elementBytes;
        int64_t alignment =
            std::min<int64_t>(width * elementBytes, (int64_t)llvm::MinAlign(pitchBytes, 16));
        vector::StoreOp::create(b, loc, v, shared, stagedIndex(layout, kk, ii, stage),
                                /*nontemporal=*/false, llvm::MaybeAlign(alignment));
        continue;
      }
      for (int64_t e = 0; e < width; ++e) {
        Value x = vector::ExtractOp::create(b, loc, v, ArrayRef<int64_t>{e});
        Value kkE = fastDepth ? add(kk, e) : kk, iiE = fastDepth ? ii : add(ii, e);
        memref::StoreOp::create(b, loc, x, shared, stagedIndex(layout, kkE, iiE, stage));
      }
    }
  }

  /// Both inputs' chunks of the step at `k0`, as stageLoads gives them, row input first.
  SmallVector<Value> stageBothLoads(Value k0) {
    SmallVector<Value> loaded = stageLoads(t.rowInput, t.rowDims, t.rows, rowStart, k0);
    llvm::append_range(loaded, stageLoads(t.colInput, t.colDims, t.cols, colStart, k0));
    return loaded;
  }

  /// The step after the one at `k0`'s chunks (stageBothLoads'), zeros past the last step:
  /// loaded into registers while the step at `k0` is computed, so their latency hides
  /// behind it.
  SmallVector<Value> stageNextLoads(Value k0, TypeRange types) {
    Value nextK = add(k0, t.tileDepth);
    auto next = scf::IfOp::create(b, loc, types, below(nextK, t.depth), /*withElseRegion=*/true);
    OpBuilder::InsertionGuard inIf(b);
    b.setInsertionPointToStart(next.thenBlock());
    scf::YieldOp::create(b, loc, stageBothLoads(nextK));
    b.setInsertionPointToStart(next.elseBlock());
    SmallVector<Value> zeros;
    for (Type type : types)
      zeros.push_back(arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type)));
    scf::YieldOp::create(b, loc, zeros);
    return SmallVector<Value>(next.getResults());
  }

  /// The payload on (a, b, accumulator).
  Value payload(Value rowValue, Value colValue, Value acc) {
    Block *body = op.getBlock();
    IRMapping mapping;
    mapping.map(body->getArgument(t.rowInput), rowValue);
    mapping.map(body->getArgument(t.colInput), colValue);
    mapping.map(body->getArgument(2), acc);
    // The multiply and the add may fuse into one FMA (one rounding instead of two, half
    // the instructions), as cuBLAS's kernels do.
    for (Operation &inner : body->without_terminator()) {
      Operation *copy = b.clone(inner, mapping);
      auto math = dyn_cast<arith::ArithFastMathInterface>(copy);
      if (!math || !isa<arith::MulFOp, arith::AddFOp>(copy))
        continue;
      arith::FastMathFlags flags = arith::FastMathFlags::contract;
      if (arith::FastMathFlagsAttr current = math.getFastMathFlagsAttr())
        flags = flags | current.getValue();
      copy->setAttr(math.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(b.getContext(), flags));
    }
    return mapping.lookup(body->getTerminator()->getOperand(0));
  }

  // Set by openLaunch: the thread's index, the block's first row and column, its batch
  // element's loop dimensions.
  Value tid, rowStart, colStart;
  SmallVector<Value> batchDims;

  MemRefType bufferType(ArrayRef<int64_t> shape, Type element, gpu::AddressSpace space) {
    return MemRefType::get(shape, element, MemRefLayoutAttrInterface(),
                           gpu::AddressSpaceAttr::get(b.getContext(), space));
  }

  /// The kernel's launch (grid: column tiles, row tiles, batch), b inside its body (the
  /// caller keeps an insertion guard).
  gpu::LaunchOp openLaunch(TypeRange workgroup, TypeRange privates) {
    MLIRContext *ctx = b.getContext();
    Value one = c(1);
    auto launch = gpu::LaunchOp::create(
        b, loc, c(llvm::divideCeil(t.cols, t.tile)), c(llvm::divideCeil(t.rows, t.tile)),
        c(t.batch), c(threads), one, one, /*dynamicSharedMemorySize=*/nullptr,
        /*asyncTokenType=*/nullptr, ValueRange{}, workgroup, privates, nullptr, nullptr, nullptr,
        FlatSymbolRefAttr::get(ctx, "infc_kernels"),
        FlatSymbolRefAttr::get(ctx, "kernel")); // infc-map-to-gpu names it
    b.setInsertionPointToStart(&launch.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&launch.getBody().front());
    tid = launch.getThreadIds().x;
    rowStart = mul(launch.getBlockIds().y, t.tile);
    colStart = mul(launch.getBlockIds().x, t.tile);
    SmallVector<Value> dims(op.getNumLoops(), Value());
    delinearize(launch.getBlockIds().z, t.batchDims, dims);
    batchDims.clear();
    for (unsigned d : t.batchDims)
      batchDims.push_back(dims[d]);
    return launch;
  }

  /// The loop dimensions at output row `row`, column `col` (reductions 0).
  SmallVector<Value> dimsAt(Value row, Value col) {
    SmallVector<Value> rowDims(op.getNumLoops()), colDims(op.getNumLoops());
    delinearize(row, t.rowDims, rowDims);
    delinearize(col, t.colDims, colDims);
    return dimsFrom(rowDims, colDims);
  }

  /// The loop dimensions at a point whose row and column dimensions `rowDims` and
  /// `colDims` hold (indexed by loop dimension), this block's batch, reductions 0.
  SmallVector<Value> dimsFrom(ArrayRef<Value> rowDims, ArrayRef<Value> colDims) {
    SmallVector<Value> dims(op.getNumLoops(), Value());
    for (auto [d, value] : llvm::zip(t.batchDims, batchDims))
      dims[d] = value;
    for (unsigned d : t.rowDims)
      dims[d] = rowDims[d];
    for (unsigned d : t.colDims)
      dims[d] = colDims[d];
    for (unsigned d : t.reductionDims)
      dims[d] = c(0);
    return dims;
  }

  /// Stores `sum` at loop dimensions `dims` through `store` (the epilogue) with the
  /// starting value added: `initialValue` (a folded fill), or the output read there.
  void storeSum(ArrayRef<Value> dims, Value sum, Value initialValue,
                function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
    OpOperand *out = op.getDpsInitOperand(0);
    Value start = initialValue;
    if (!start)
      start =
          memref::LoadOp::create(b, loc, out->get(), indices(op.getMatchingIndexingMap(out), dims));
    store(b, dims,
          isa<IntegerType>(sum.getType()) ? arith::AddIOp::create(b, loc, start, sum).getResult()
                                          : arith::AddFOp::create(b, loc, start, sum).getResult());
  }

  /// Whether (row, col) is inside the output (null: always, the sizes are tile multiples).
  Value insideOutput(Value row, Value col) {
    return both(t.rows % t.tile ? below(row, t.rows) : Value(),
                t.cols % t.tile ? below(col, t.cols) : Value());
  }

  /// `body()` where `inside` holds (everywhere if null).
  void where(Value inside, function_ref<void()> body) {
    if (!inside)
      return body();
    auto ifOp = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inIf(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  }

  /// The tile's sums, left in `results` ([tile][pitch]) by the warps: every thread takes
  /// tile * tile / threads of them for the guarded store, the starting value (fill or
  /// output) added and the epilogue run.
  void storeTileSums(Value results, Value initialValue,
                     function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
    const int64_t tile = t.tile;
    for (int64_t l = 0; l < tile * tile / threads; ++l) {
      Value e = add(tid, l * threads);
      Value r = div(e, tile), cc = rem(e, tile);
      Value row = add(rowStart, r), col = add(colStart, cc);
      where(insideOutput(row, col), [&] {
        Value sum = memref::LoadOp::create(b, loc, results, ValueRange{r, cc});
        storeSum(dimsAt(row, col), sum, initialValue, store);
      });
    }
  }

  /// The warps' sums (`sums[i * fragsN + j]`, the accumulator of the warp's fragment (i, j)
  /// at (warpRow + 16 i, warpCol + 8 j) of the tile, element v at `coordsC[v]` of it)
  /// stored by their lanes, each with the starting value (fill or output) added and the
  /// epilogue run where it is inside the output. A lane's elements lie on 2 fragsM rows
  /// and 2 fragsN columns, each delinearized once; a warp's store covers 8 rows of 32
  /// bytes.
  void storeFragmentSums(ValueRange sums, Value warpRow, Value warpCol,
                         ArrayRef<std::array<Value, 2>> coordsC, int64_t fragsM, int64_t fragsN,
                         Value initialValue,
                         function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
    // A row or column of the output: whether it is inside, its loop dimensions.
    struct Line {
      Value inside;
      SmallVector<Value> dims;
    };
    auto lineAt = [&](Value index, int64_t extent, ArrayRef<unsigned> group) {
      Line line{extent % t.tile ? below(index, extent) : Value(),
                SmallVector<Value>(op.getNumLoops(), Value())};
      delinearize(index, group, line.dims);
      return line;
    };
    // coordsC: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).
    SmallVector<Line> rowLines, colLines;
    for (int64_t i = 0; i < fragsM; ++i)
      for (int64_t h = 0; h < 2; ++h)
        rowLines.push_back(
            lineAt(add(rowStart, add(add(warpRow, i * 16), coordsC[2 * h][0])), t.rows, t.rowDims));
    for (int64_t j = 0; j < fragsN; ++j)
      for (int64_t e = 0; e < 2; ++e)
        colLines.push_back(
            lineAt(add(colStart, add(add(warpCol, j * 8), coordsC[e][1])), t.cols, t.colDims));
    for (int64_t i = 0; i < fragsM; ++i)
      for (int64_t j = 0; j < fragsN; ++j)
        for (int64_t v = 0; v < 4; ++v) {
          const Line &row = rowLines[2 * i + v / 2], &col = colLines[2 * j + v % 2];
          where(both(row.inside, col.inside), [&] {
            Value sum = vector::ExtractOp::create(b, loc, sums[i * fragsN + j],
                                                  ArrayRef<int64_t>{v / 2, v % 2});
            storeSum(dimsFrom(row.dims, col.dims), sum, initialValue, store);
          });
        }
  }

  /// `x` rounded to TF32 (10 mantissa bits), to nearest with ties away from zero as
  /// cvt.rna.tf32.f32 does; infinities and NaNs are left as they are. mma.sync ignores the
  /// low 13 bits of an f32 operand (truncation, which would bias every product).
  Value roundToTf32(Value x) {
    Type i32 = b.getI32Type();
    if (auto vector = dyn_cast<VectorType>(x.getType()))
      i32 = vector.clone(i32);
    auto constant = [&](int64_t v) -> Value {
      TypedAttr value = b.getI32IntegerAttr(v);
      if (auto vector = dyn_cast<VectorType>(i32))
        value = SplatElementsAttr::get(vector, value);
      return arith::ConstantOp::create(b, loc, i32, value);
    };
    Value bits = arith::BitcastOp::create(b, loc, i32, x);
    Value rounded = arith::AndIOp::create(
        b, loc, arith::AddIOp::create(b, loc, bits, constant(0x1000)), constant(0xFFFFE000));
    Value exponent = arith::AndIOp::create(b, loc, bits, constant(0x7F800000));
    Value finite =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, exponent, constant(0x7F800000));
    return arith::BitcastOp::create(b, loc, x.getType(),
                                    arith::SelectOp::create(b, loc, finite, rounded, bits));
  }

  /// The tensor-core kernel: mma.sync with f32 inputs as TF32 (m16n8k8, nvgpu.mma.sync),
  /// f16 or bf16 inputs summed in f32 (m16n8k16) and bytes summed in i32 (m16n8k32, each
  /// side signed or unsigned), the last three as nvvm.mma.sync (nvgpu's has no bf16 and no
  /// mixed signedness). 128 x 128 output tiles of 8 warps of 64 x 32 each (4 x 4 fragments
  /// of 16 x 8), 64 x 64 ones of 4 warps of 32 x 32 or 32 x 32 ones of 4 warps of 16 x 16;
  /// 32-deep reduction steps staged in shared memory (two stages where they fit). TF32:
  /// each lane loads its fragment elements where the PTX layout
  /// (nvgpu::getLaneIdAndValueIdToOperandCoord) puts them, A [tile][36], B [32][tile + 8]
  /// (a warp's loads, lane (g, t) at row g and column t of A or row t and column g of B,
  /// hit 32 different banks). 16-bit and bytes: A and B both
  /// [tile][32 + 16 bytes], the reduction along the rows, as a register holds 2 or 4
  /// neighbouring elements along it; a warp loads each A fragment and each two B fragments
  /// with one ldmatrix x4 (eight 16-byte rows at a time, 80 or 48 bytes apart: 32 banks;
  /// 4 ldmatrix a k-step instead of 16 32-bit loads a lane). The sums of 64 x 64 and 32 x 32
  /// tiles leave through shared memory, where every thread takes tile * tile / 128 of them
  /// for the guarded store (coalesced), the starting value added and the epilogue run; those
  /// of 128 x 128 tiles from the lanes that hold them (storeFragmentSums).
  void buildMmaSync(Value initialValue,
                    function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
    using Kind = ContractionTiling::TensorCoreKind;
    bool tf32 = t.kind == Kind::Tf32;
    Type element = elementOf(op.getDpsInputOperand(t.rowInput));
    Type accType = elementOf(op.getDpsInitOperand(0));
    int64_t bits = element.getIntOrFloatBitWidth();
    // A fragment row is 256 bits of the reduction (TF32 8, 16-bit 16, bytes 32 elements).
    const int64_t tile = t.tile, depth = t.tileDepth, m = 16, n = 8, k = 256 / bits;
    Type i32 = b.getI32Type();
    // Elements per fragment register, and registers per fragment of A and B.
    const int64_t perRegister = 32 / bits, registersA = 4, registersB = 2;
    SmallVector<int64_t> shapeA = {tile, depth + (tf32 ? 4 : 128 / bits)};
    // A 16-bit B read with its tile dimension fastest (a conv's pixels, attention's V) is
    // staged as it is, [depth][tile + 16 bytes], and its fragments loaded with ldmatrix
    // .trans; bytes have no transposing ldmatrix, so B is transposed on the way in.
    bool transposedB = !tf32 && bits == 16 && !depthFastest(t.colInput, t.colDims);
    SmallVector<int64_t> shapeB =
        tf32 || transposedB ? SmallVector<int64_t>{depth, tile + 8} : shapeA;
    Layout layoutB = tf32 || transposedB ? Layout::DepthMajor : Layout::TileMajor;
    int64_t pitchC = tile + 4;
    // The sums of 128 x 128 tiles would take 66 KB of shared memory (48 KB is the static
    // limit): their lanes store them themselves.
    bool stageSums = tile <= 64;
    int64_t sumsBytes = stageSums ? tile * pitchC * accType.getIntOrFloatBitWidth() / 8 : 0;
    const int64_t stages =
        stagesThatFit((shapeA[0] * shapeA[1] + shapeB[0] * shapeB[1]) * bits / 8, sumsBytes);
    const int64_t rowsA = shapeA[0], rowsB = shapeB[0];
    shapeA[0] *= stages;
    shapeB[0] *= stages;
    auto shared = gpu::AddressSpace::Workgroup;
    OpBuilder::InsertionGuard guard(b);
    SmallVector<Type> workgroup = {bufferType(shapeA, element, shared),
                                   bufferType(shapeB, element, shared)};
    if (stageSums)
      workgroup.push_back(bufferType({tile, pitchC}, accType, shared));
    gpu::LaunchOp launch = openLaunch(workgroup, TypeRange{});
    Value rowTile = launch.getWorkgroupAttributions()[0];
    Value colTile = launch.getWorkgroupAttributions()[1];
    Value results = stageSums ? Value(launch.getWorkgroupAttributions()[2]) : Value();
    Value warp = div(tid, 32), lane = rem(tid, 32);
    // 2 x 2 warps (128 threads) or 2 x 4 (256), each fragsM x fragsN fragments of 16 x 8:
    // 4 x 4 (64 x 32) in 128 x 128 tiles, 2 x 4 (32 x 32) in 64 x 64 ones, 1 x 2 (16 x 16)
    // in 32 x 32 ones.
    const int64_t warpsM = 2, warpsN = threads / 32 / warpsM;
    const int64_t fragsM = tile / warpsM / m, fragsN = tile / warpsN / n, frags = fragsM * fragsN;
    Value warpRow = mul(div(warp, warpsN), tile / warpsM);
    Value warpCol = mul(rem(warp, warpsN), tile / warpsN);
    // The (lane, value) -> (row, column) of an operand of the warp's mma: A is [m][k],
    // B [n][k], C [m][n] (A's and B's only for TF32: ldmatrix loads the others).
    auto layout = [&](ArrayRef<int64_t> shape, Type type, nvgpu::MatMulOperandRole role) {
      FailureOr<AffineMap> map = nvgpu::getLaneIdAndValueIdToOperandCoord(
          b, loc, nvgpu::WarpMatrixInfo{VectorType::get(shape, type), role});
      assert(succeeded(map) && "nvgpu has the TF32 operands' and the f32 and i32 sums' layouts");
      return *map;
    };
    // This lane's (row, column) of the first element of each fragment register, the same
    // at every step (a register's other elements are the next columns).
    auto at = [&](AffineMap map, int64_t registers, int64_t elements) {
      SmallVector<std::array<Value, 2>> coords;
      for (int64_t v = 0; v < registers * elements; v += elements) {
        std::array<Value, 2> rc;
        for (unsigned r = 0; r < 2; ++r)
          rc[r] = affine::AffineApplyOp::create(b, loc, map.getSubMap({r}), ValueRange{lane, c(v)});
        coords.push_back(rc);
      }
      return coords;
    };
    SmallVector<std::array<Value, 2>> coordsA, coordsB;
    if (tf32) {
      coordsA = at(layout({m, k}, element, nvgpu::MatMulOperandRole::A), registersA, perRegister);
      coordsB = at(layout({n, k}, element, nvgpu::MatMulOperandRole::B), registersB, perRegister);
    }
    auto coordsC = at(layout({m, n}, accType, nvgpu::MatMulOperandRole::C), 4, 1);
    auto typeC = VectorType::get({2, 2}, accType);
    Value zero = arith::ConstantOp::create(b, loc, typeC, b.getZeroAttr(typeC));
    SmallVector<Value> inits(frags, zero);
    // 16-bit and bytes: the fragments come from ldmatrix x4, four 8-row matrices of 16
    // bytes, lane l giving the address of one row. A fragment's four registers are its
    // rows 0-7 and 8-15 at reduction offsets 0 and 16 bytes: lane l's row l % 16, offset
    // l / 16. Two neighbouring B fragments' registers (b0, b1 of each) are the n rows 0-7
    // at offsets 0 and 16 bytes, then rows 8-15: row l % 8 + 8 (l / 16), offset
    // (l / 8) % 2. B staged [depth][tile] (transposedB): the same four matrices are the
    // depth rows 0-7 and 8-15 of the n columns 0-7, then of 8-15, each transposed as it
    // loads (lane l gets elements 2 (l % 4) and 2 (l % 4) + 1 of column l / 4, a b
    // register): lane l's depth row l % 8 + 8 ((l / 8) % 2), column 8 (l / 16).
    const int64_t sixteenBytes = tf32 ? 0 : 128 / bits;
    Value rowInA, offsetA, rowInB, offsetB, depthInB, columnInB;
    if (!tf32) {
      rowInA = rem(lane, 16);
      offsetA = mul(div(lane, 16), sixteenBytes);
    }
    if (transposedB) {
      depthInB = add(rem(lane, 8), mul(rem(div(lane, 8), 2), 8));
      columnInB = mul(div(lane, 16), 8);
    } else if (!tf32) {
      rowInB = add(rem(lane, 8), mul(div(lane, 16), 8));
      offsetB = mul(rem(div(lane, 8), 2), sixteenBytes);
    }
    auto ldmatrix = [&](Value tileBuffer, Value row, Value col, bool transpose = false) {
      auto type = VectorType::get({4, perRegister}, element);
      return nvgpu::LdMatrixOp::create(b, loc, type, tileBuffer, ValueRange{row, col}, transpose,
                                       /*numTiles=*/4);
    };
    // Register r of an ldmatrix: f16 a vector<2xf16>, bf16 and bytes an i32 of neighbours
    // along the row (the first in the low bits), as nvvm.mma.sync takes them.
    auto registerOf = [&](Value matrices, int64_t r) -> Value {
      Value word = vector::ExtractOp::create(b, loc, matrices, ArrayRef<int64_t>{r});
      if (element.isF16())
        return word;
      Value packed = vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), word);
      return vector::ExtractOp::create(b, loc, packed, ArrayRef<int64_t>{0});
    };
    // The loop values: the accumulators, then this step's staged chunks (loaded during
    // the step before, as in the SIMT kernel).
    SmallVector<Value> first = stageBothLoads(c(0));
    int64_t staged = stageLoadsCount(t.rowInput, t.rowDims, t.rows);
    llvm::append_range(inits, first);
    auto steps = scf::ForOp::create(b, loc, c(0), c(t.depth), c(depth), inits);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      ValueRange current = steps.getRegionIterArgs().drop_front(frags);
      if (stages == 1)
        gpu::BarrierOp::create(b, loc); // the last step's tiles are read
      Value stageA = stageAt(k0, stages, rowsA), stageB = stageAt(k0, stages, rowsB);
      SmallVector<Value> chunks(current);
      if (tf32)
        for (Value &v : chunks)
          v = roundToTf32(v);
      stageStores(t.rowInput, t.rowDims, ArrayRef<Value>(chunks).take_front(staged), rowTile,
                  Layout::TileMajor, stageA);
      stageStores(t.colInput, t.colDims, ArrayRef<Value>(chunks).drop_front(staged), colTile,
                  layoutB, stageB);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = stageNextLoads(k0, current.getTypes());
      SmallVector<Value> acc(steps.getRegionIterArgs().take_front(frags));
      for (int64_t kk = 0; kk < depth; kk += k) {
        SmallVector<SmallVector<Value>> a(fragsM), bf(fragsN);
        if (tf32) {
          for (int64_t i = 0; i < fragsM; ++i)
            for (const std::array<Value, 2> &rc : coordsA)
              a[i].push_back(memref::LoadOp::create(
                  b, loc, rowTile,
                  ValueRange{inStage(add(add(warpRow, i * m), rc[0]), stageA), add(rc[1], kk)}));
          for (int64_t j = 0; j < fragsN; ++j)
            for (const std::array<Value, 2> &rc : coordsB) // (column n, depth k)
              bf[j].push_back(memref::LoadOp::create(
                  b, loc, colTile,
                  ValueRange{inStage(add(rc[1], kk), stageB), add(add(warpCol, j * n), rc[0])}));
        } else {
          for (int64_t i = 0; i < fragsM; ++i) {
            Value matrices = ldmatrix(rowTile, inStage(add(add(warpRow, i * m), rowInA), stageA),
                                      add(offsetA, kk));
            for (int64_t r = 0; r < registersA; ++r)
              a[i].push_back(registerOf(matrices, r));
          }
          for (int64_t j = 0; j < fragsN; j += 2) {
            Value matrices =
                transposedB ? ldmatrix(colTile, inStage(add(depthInB, kk), stageB),
                                       add(add(warpCol, j * n), columnInB), /*transpose=*/true)
                            : ldmatrix(colTile, inStage(add(add(warpCol, j * n), rowInB), stageB),
                                       add(offsetB, kk));
            for (int64_t r = 0; r < 2 * registersB; ++r)
              bf[j + r / registersB].push_back(registerOf(matrices, r));
          }
        }
        if (tf32) {
          for (int64_t i = 0; i < fragsM; ++i)
            for (int64_t j = 0; j < fragsN; ++j)
              acc[i * fragsN + j] = mmaTf32(a[i], bf[j], acc[i * fragsN + j], {m, n, k});
        } else {
          mmaNvvm(a, bf, acc, {m, n, k});
        }
      }
      llvm::append_range(acc, next);
      scf::YieldOp::create(b, loc, acc);
    }
    ValueRange sums = steps.getResults().take_front(frags);
    if (!stageSums)
      return storeFragmentSums(sums, warpRow, warpCol, coordsC, fragsM, fragsN, initialValue,
                               store);
    for (int64_t i = 0; i < fragsM; ++i)
      for (int64_t j = 0; j < fragsN; ++j)
        for (int64_t v = 0; v < 4; ++v) {
          const std::array<Value, 2> &rc = coordsC[v];
          Value sum = vector::ExtractOp::create(b, loc, sums[i * fragsN + j],
                                                ArrayRef<int64_t>{v / 2, v % 2});
          memref::StoreOp::create(
              b, loc, sum, results,
              ValueRange{add(add(warpRow, i * m), rc[0]), add(add(warpCol, j * n), rc[1])});
        }
    gpu::BarrierOp::create(b, loc);
    storeTileSums(results, initialValue, store);
  }

  /// C + A B on TF32 fragments (f32 registers): nvgpu.mma.sync m16n8k8.
  Value mmaTf32(ArrayRef<Value> a, ArrayRef<Value> bRegs, Value acc, ArrayRef<int64_t> shape) {
    Type f32 = b.getF32Type();
    Value fragA = vector::FromElementsOp::create(b, loc, VectorType::get({4, 1}, f32), a);
    Value fragB = vector::FromElementsOp::create(b, loc, VectorType::get({2, 1}, f32), bRegs);
    return nvgpu::MmaSyncOp::create(b, loc, fragA, fragB, acc, shape, /*tf32Enabled=*/true);
  }

  /// The PTX type of input `input`'s fragments: f16, bf16, s8 or u8.
  NVVM::MMATypes ptxType(unsigned input) {
    Type element = tensorCoreElement(op, input, /*tf32=*/false);
    if (element.isF16())
      return NVVM::MMATypes::f16;
    if (element.isBF16())
      return NVVM::MMATypes::bf16;
    return element.isUnsignedInteger() ? NVVM::MMATypes::u8 : NVVM::MMATypes::s8;
  }

  /// acc[i * |b| + j] += a[i] b[j] on 16-bit or byte fragments, each accumulator a
  /// vector<2x2xf32> (vector<2x2xi32>) as nvgpu's: nvvm.mma.sync row.col (integer sums
  /// wrap, as the CPU's do). They follow one another (the emulator runs such a run of
  /// independent mma.syncs as one piece).
  void mmaNvvm(ArrayRef<SmallVector<Value>> a, ArrayRef<SmallVector<Value>> bRegs,
               MutableArrayRef<Value> acc, ArrayRef<int64_t> shape) {
    Type accType = cast<VectorType>(acc.front().getType()).getElementType();
    bool integers = accType.isInteger(32);
    SmallVector<SmallVector<Value>> sums(acc.size());
    for (auto [sum, start] : llvm::zip(sums, acc))
      for (int64_t v = 0; v < 4; ++v)
        sum.push_back(vector::ExtractOp::create(b, loc, start, ArrayRef<int64_t>{v / 2, v % 2}));
    auto result =
        LLVM::LLVMStructType::getLiteral(b.getContext(), {accType, accType, accType, accType});
    std::optional<NVVM::MMAIntOverflow> overflow;
    if (integers)
      overflow = NVVM::MMAIntOverflow::wrapped;
    std::array<NVVM::MMATypes, 2> types = {ptxType(t.rowInput), ptxType(t.colInput)};
    SmallVector<Value> products;
    for (size_t i = 0; i < a.size(); ++i)
      for (size_t j = 0; j < bRegs.size(); ++j)
        products.push_back(NVVM::MmaOp::create(
            b, loc, result, a[i], bRegs[j], sums[i * bRegs.size() + j], shape,
            /*b1Op=*/std::nullopt, overflow, types,
            std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row, NVVM::MMALayout::col}));
    for (auto [product, sum] : llvm::zip(products, acc)) {
      SmallVector<Value> d;
      for (int64_t v = 0; v < 4; ++v)
        d.push_back(LLVM::ExtractValueOp::create(b, loc, product, ArrayRef<int64_t>{v}));
      sum = vector::FromElementsOp::create(b, loc, sum.getType(), d);
    }
  }

  void build(Value initialValue, function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
    int64_t T = t.threadTile, side = ContractionTiling::kThreadsPerSide;
    // A thread's T rows (columns) are T / V runs of V neighbours, run g at g * span + V ty
    // (tx): one V-wide shared load a run and step (4 elements: 128-bit loads, a warp's 16
    // distinct addresses consecutive) instead of V scalar ones.
    const int64_t V = std::min<int64_t>(4, T), span = t.tile / (T / V);
    // Row pitch: a warp's depth-fastest staging stores (tileDepth rows, 32 / tileDepth
    // columns) land in 32 different banks (2 ways at tiles of 64 and 32), and every run
    // starts V-aligned.
    int64_t pitch = t.tile + llvm::alignTo(32 / t.tileDepth, V);
    Type accType = elementOf(op.getDpsInitOperand(0));
    Type rowElement = elementOf(op.getDpsInputOperand(t.rowInput));
    Type colElement = elementOf(op.getDpsInputOperand(t.colInput));
    const int64_t stages = stagesThatFit(
        t.tileDepth * pitch *
            (rowElement.getIntOrFloatBitWidth() + colElement.getIntOrFloatBitWidth()) / 8,
        0);
    auto shared = gpu::AddressSpace::Workgroup;
    OpBuilder::InsertionGuard guard(b);
    gpu::LaunchOp launch =
        openLaunch(TypeRange{bufferType({stages * t.tileDepth, pitch}, rowElement, shared),
                             bufferType({stages * t.tileDepth, pitch}, colElement, shared)},
                   TypeRange{bufferType({T * T}, accType, gpu::AddressSpace::Private)});
    Value rowTile = launch.getWorkgroupAttributions()[0];
    Value colTile = launch.getWorkgroupAttributions()[1];
    Value acc = launch.getPrivateAttributions()[0];
    Value tx = rem(tid, side), ty = div(tid, side);
    Value rowOffset = mul(ty, V), colOffset = mul(tx, V);
    // Where this thread's ith row (column) is in the tile.
    auto inTile = [&](Value offset, int64_t i) { return add(offset, (i / V) * span + i % V); };
    // This thread's output element (i, j) of the tile.
    auto elementAt = [&](int64_t i, int64_t j) {
      return std::make_pair(add(rowStart, inTile(rowOffset, i)),
                            add(colStart, inTile(colOffset, j)));
    };

    // The accumulators start from the fill value or the output.
    OpOperand *out = op.getDpsInitOperand(0);
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        Value start = initialValue;
        if (!start) {
          Value row, col;
          std::tie(row, col) = elementAt(i, j);
          start = guarded(insideOutput(row, col), accType, [&] {
            SmallVector<Value> dims = dimsAt(row, col);
            return memref::LoadOp::create(b, loc, out->get(),
                                          indices(op.getMatchingIndexingMap(out), dims))
                .getResult();
          });
        }
        memref::StoreOp::create(b, loc, start, acc, ValueRange{c(i * T + j)});
      }

    // The reduction, a tile of both inputs at a time; each step's global loads are issued
    // before the step before it is computed (in registers: loop values), so their latency
    // hides behind the FMAs.
    SmallVector<Value> first = stageBothLoads(c(0));
    int64_t staged = stageLoadsCount(t.rowInput, t.rowDims, t.rows);
    auto steps = scf::ForOp::create(b, loc, c(0), c(t.depth), c(t.tileDepth), first);
    {
      OpBuilder::InsertionGuard inLoop(b);
      b.setInsertionPointToStart(steps.getBody());
      Value k0 = steps.getInductionVar();
      ValueRange current = steps.getRegionIterArgs();
      if (stages == 1)
        gpu::BarrierOp::create(b, loc); // the step before is read
      Value stage = stageAt(k0, stages, t.tileDepth);
      stageStores(t.rowInput, t.rowDims, current.take_front(staged), rowTile, Layout::DepthMajor,
                  stage);
      stageStores(t.colInput, t.colDims, current.drop_front(staged), colTile, Layout::DepthMajor,
                  stage);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = stageNextLoads(k0, current.getTypes());
      auto depth = scf::ForOp::create(b, loc, c(0), c(t.tileDepth), c(1));
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(depth.getBody()->getTerminator());
        Value kk = depth.getInductionVar();
        SmallVector<Value> rowValues, colValues;
        auto runs = [&](Value tileBuffer, Value offset, SmallVectorImpl<Value> &values) {
          auto type = cast<MemRefType>(tileBuffer.getType());
          Type element = type.getElementType();
          int64_t bytes = V * type.getElementTypeBitWidth() / 8;
          for (int64_t i = 0; i < T; i += V) {
            Value run = vector::LoadOp::create(b, loc, VectorType::get({V}, element), tileBuffer,
                                               ValueRange{inStage(kk, stage), inTile(offset, i)},
                                               /*nontemporal=*/false, llvm::MaybeAlign(bytes));
            for (int64_t v = 0; v < V; ++v)
              values.push_back(vector::ExtractOp::create(b, loc, run, ArrayRef<int64_t>{v}));
          }
        };
        runs(rowTile, rowOffset, rowValues);
        runs(colTile, colOffset, colValues);
        for (int64_t i = 0; i < T; ++i)
          for (int64_t j = 0; j < T; ++j) {
            Value slot = c(i * T + j);
            Value sum = payload(rowValues[i], colValues[j],
                                memref::LoadOp::create(b, loc, acc, ValueRange{slot}));
            memref::StoreOp::create(b, loc, sum, acc, ValueRange{slot});
          }
      }
      scf::YieldOp::create(b, loc, next);
    }

    // Each result stored (with the caller's epilogue) where it is inside the output.
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) {
        Value row, col;
        std::tie(row, col) = elementAt(i, j);
        where(insideOutput(row, col), [&] {
          Value result = memref::LoadOp::create(b, loc, acc, ValueRange{c(i * T + j)});
          store(b, dimsAt(row, col), result);
        });
      }
  }
};
} // namespace

std::optional<ContractionTiling> infc::classifyContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 || op.hasDynamicShape() ||
      op.getNumReductionLoops() == 0 || !isMultiplyAdd(op))
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (!isa<ShapedType>(operand.get().getType()))
      return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  AffineMap maps[2] = {op.getMatchingIndexingMap(op.getDpsInputOperand(0)),
                       op.getMatchingIndexingMap(op.getDpsInputOperand(1))};
  if (!outMap.isProjectedPermutation() || outMap.getNumResults() == 0)
    return std::nullopt;
  ContractionTiling t;
  // The column input owns the output's innermost dimension (coalesced stores).
  unsigned innermost = cast<AffineDimExpr>(outMap.getResults().back()).getPosition();
  if (maps[0].isFunctionOfDim(innermost) && !maps[1].isFunctionOfDim(innermost)) {
    t.colInput = 0;
    t.rowInput = 1;
  }
  // Parallel dimensions in the output's order, the reduction's in loop order.
  for (AffineExpr expr : outMap.getResults()) {
    unsigned d = cast<AffineDimExpr>(expr).getPosition();
    bool inRow = maps[t.rowInput].isFunctionOfDim(d), inCol = maps[t.colInput].isFunctionOfDim(d);
    if (inRow && inCol)
      t.batchDims.push_back(d);
    else if (inRow)
      t.rowDims.push_back(d);
    else if (inCol)
      t.colDims.push_back(d);
    else
      return std::nullopt; // an output dimension neither input reads (a broadcast)
  }
  for (auto [d, type] : llvm::enumerate(op.getIteratorTypesArray()))
    if (type == utils::IteratorType::reduction) {
      if (outMap.isFunctionOfDim(d))
        return std::nullopt;
      t.reductionDims.push_back(d);
    }
  if (t.rowDims.size() + t.colDims.size() + t.batchDims.size() + t.reductionDims.size() !=
      op.getNumLoops())
    return std::nullopt;
  auto product = [&](ArrayRef<unsigned> dims) {
    int64_t p = 1;
    for (unsigned d : dims)
      p *= ranges[d];
    return p;
  };
  t.rows = product(t.rowDims);
  t.cols = product(t.colDims);
  t.batch = product(t.batchDims);
  t.depth = product(t.reductionDims);
  if (t.rowDims.empty() || t.colDims.empty() || t.rows < 32 || t.cols < 32 || t.depth < 16 ||
      t.batch > 65535)
    return std::nullopt;
  return t;
}

std::optional<ContractionTiling::TensorCoreKind> infc::tensorCoreKind(linalg::LinalgOp op,
                                                                      bool tf32) {
  // f16 or bf16 inputs summed in f32, f32 inputs and sums as TF32 when allowed, and bytes
  // (either signedness each) summed in i32.
  using Kind = ContractionTiling::TensorCoreKind;
  Type elementA = tensorCoreElement(op, 0, tf32), elementB = tensorCoreElement(op, 1, tf32);
  if (elementA && elementB && elementA.isInteger(8) && elementB.isInteger(8))
    return Kind::Int8;
  if (!elementA || elementA != elementB || !isa<FloatType>(elementA))
    return std::nullopt;
  return elementA.isF32() ? Kind::Tf32 : elementA.isBF16() ? Kind::Bf16 : Kind::F16;
}

std::optional<ContractionTiling> infc::planTiledContraction(linalg::LinalgOp op, int64_t minBlocks,
                                                            bool tensorCores, bool tf32) {
  if (!op.hasPureBufferSemantics() ||
      llvm::any_of(op->getOperandTypes(), [](Type type) { return !isa<MemRefType>(type); }))
    return std::nullopt;
  std::optional<ContractionTiling> classified = classifyContraction(op);
  if (!classified)
    return std::nullopt;
  ContractionTiling t = *classified;
  // The largest tile of 128, 64 and 32 whose grid has `minBlocks` blocks (else 32), but
  // 128 only where its tiles are nearly as full as 64's: a conv of 64 filters (ResNet-50's
  // first stage at batch 32) would compute as many zero rows in 128 x 128 tiles as real
  // ones.
  auto filled = [&](int64_t tile) {
    return double(t.rows * t.cols) /
           double(llvm::alignTo(t.rows, tile) * llvm::alignTo(t.cols, tile));
  };
  t.tile = t.blocks(128) >= minBlocks && filled(128) >= 0.9 * filled(64) ? 128
           : t.blocks(64) >= minBlocks                                   ? 64
                                                                         : 32;
  std::optional<ContractionTiling::TensorCoreKind> kind = tensorCoreKind(op, tf32);
  if (tensorCores && kind) {
    t.tensorCores = true;
    t.kind = *kind;
    // The same tiles: 128 x 128 of 8 warps (a big GEMM: a warp's 64 x 32 takes 6 ldmatrix
    // for 16 mma.syncs where 32 x 32 takes 4 for 8, and the block's global loads serve twice
    // the products), 64 x 64 of 4 warps, or 32 x 32 where those would leave SMs idle (a
    // batch-1 conv's late layers: 2048 filters x 49 pixels is 32 blocks of 64, 128 of 32).
    t.threads = t.tile == 128 ? 256 : 128;
    t.tileDepth = 32;
  } else {
    int64_t threads = ContractionTiling::kThreadsPerSide * ContractionTiling::kThreadsPerSide;
    t.tileDepth = 4 * threads / t.tile; // four staged elements an input a thread
    t.threadTile = t.tile / ContractionTiling::kThreadsPerSide;
  }
  if (llvm::divideCeil(t.rows, t.tile) > 65535) // a grid's y limit
    return std::nullopt;
  return t;
}

SmallVector<Value> infc::indexingMapAt(OpBuilder &b, Location loc, AffineMap map,
                                       ArrayRef<Value> dims) {
  SmallVector<Value> result;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      result.push_back(dims[dim.getPosition()]);
      continue;
    }
    AffineMap single = AffineMap::get(map.getNumDims(), 0, expr);
    result.push_back(affine::AffineApplyOp::create(b, loc, single, dims));
  }
  return result;
}

void infc::emitTiledContraction(OpBuilder &b, linalg::LinalgOp op, const ContractionTiling &tiling,
                                Value initialValue, InputLoad load, InputSources sources,
                                InputVectorLoad loadVector,
                                function_ref<void(OpBuilder &, ArrayRef<Value>, Value)> store) {
  if (tiling.tensorCores) {
    KernelBuilder builder{b, op, tiling, op.getLoc(), tiling.threads, load, sources, loadVector};
    builder.buildMmaSync(initialValue, store);
    return;
  }
  KernelBuilder builder{b, op, tiling, op.getLoc(), tiling.threads, load, sources, loadVector};
  builder.build(initialValue, store);
}
