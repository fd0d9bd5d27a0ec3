//===- RowKernels.cpp - a row group as one kernel, a block per row --------===//
#include "RowKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace infc {
namespace {
constexpr int64_t kMaxThreads = 256;
constexpr int64_t kWarp = 32;

/// Whether a reduction's partial results go through warp shuffles (32-bit values, which
/// NVVM shuffles in one instruction) rather than a tree over shared memory.
bool shufflesCombine(Type element) { return element.getIntOrFloatBitWidth() == 32; }

/// Loop ranges of `op` after the rows' (a row's points).
ArrayRef<int64_t> innerRanges(ArrayRef<int64_t> ranges, size_t rowRank) {
  return ranges.drop_front(rowRank);
}

struct RowKernelBuilder {
  OpBuilder &b;
  const RowGroup &group;
  Location loc;
  int64_t threads;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// Linear index `linear` over `ranges` (row-major) as one index a range; size-1 ranges 0.
  SmallVector<Value> delinearize(Value linear, ArrayRef<int64_t> ranges) {
    SmallVector<Value> at(ranges.size());
    int64_t stride = 1;
    for (int64_t d = ranges.size() - 1; d >= 0; --d) {
      if (ranges[d] == 1) {
        at[d] = c(0);
        continue;
      }
      Value v = stride == 1 ? linear : arith::DivUIOp::create(b, loc, linear, c(stride));
      bool outermost = llvm::all_of(ranges.take_front(d), [](int64_t r) { return r == 1; });
      at[d] = outermost ? v : arith::RemUIOp::create(b, loc, v, c(ranges[d])).getResult();
      stride *= ranges[d];
    }
    return at;
  }

  /// `combine` (a clone of the reduction's combining op) on x and y.
  Value combine(Operation *combiner, Value x, Value y) {
    IRMapping mapping;
    mapping.map(combiner->getOperand(0), x);
    mapping.map(combiner->getOperand(1), y);
    return b.clone(*combiner, mapping)->getResult(0);
  }

  /// The block's total of the threads' `partial`s in every thread: each warp's by a
  /// butterfly of shuffles (every lane ends with it), the warps' through `shared` (one
  /// element a warp), summed by every thread in the same order. One barrier.
  Value combineByShuffles(Operation *combiner, Value partial, Value tid, Value shared) {
    for (int32_t offset = kWarp / 2; offset >= 1; offset /= 2) {
      auto shuffle = gpu::ShuffleOp::create(b, loc, partial, offset, kWarp, gpu::ShuffleMode::XOR);
      partial = combine(combiner, partial, shuffle.getShuffleResult());
    }
    if (threads == kWarp)
      return partial;
    Value lane = arith::RemUIOp::create(b, loc, tid, c(kWarp));
    Value isLeader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0));
    auto ifOp = scf::IfOp::create(b, loc, isLeader, /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inIf(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value warp = arith::DivUIOp::create(b, loc, tid, c(kWarp));
      memref::StoreOp::create(b, loc, partial, shared, warp);
    }
    gpu::BarrierOp::create(b, loc);
    Value total = memref::LoadOp::create(b, loc, shared, ValueRange{c(0)});
    for (int64_t warp = 1; warp < threads / kWarp; ++warp)
      total = combine(combiner, total, memref::LoadOp::create(b, loc, shared, ValueRange{c(warp)}));
    return total;
  }

  /// The block's total of the threads' `partial`s: a tree over `shared` (one element a
  /// thread), each step halving the threads holding a partial result. Read by thread 0.
  Value combineInSharedMemory(Operation *combiner, Value partial, Value tid, Value shared) {
    memref::StoreOp::create(b, loc, partial, shared, tid);
    gpu::BarrierOp::create(b, loc);
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid, c(half));
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inIf(b);
        b.setInsertionPointToStart(ifOp.thenBlock());
        Value mine = memref::LoadOp::create(b, loc, shared, tid);
        Value other = memref::LoadOp::create(
            b, loc, shared, ValueRange{arith::AddIOp::create(b, loc, tid, c(half))});
        memref::StoreOp::create(b, loc, combine(combiner, mine, other), shared, tid);
      }
      gpu::BarrierOp::create(b, loc);
    }
    return memref::LoadOp::create(b, loc, shared, ValueRange{c(0)});
  }

  /// for p = tid; p < points; p += threads, `body(dims)` at the row's point p.
  scf::ForOp overRow(Value tid, ArrayRef<Value> rowDims, ArrayRef<int64_t> inner,
                     ValueRange iterArgs,
                     function_ref<SmallVector<Value>(ArrayRef<Value>, ValueRange)> body) {
    int64_t points = 1;
    for (int64_t r : inner)
      points *= r;
    auto loop = scf::ForOp::create(b, loc, tid, c(points), c(threads), iterArgs);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> dims(rowDims);
    llvm::append_range(dims, delinearize(loop.getInductionVar(), inner));
    SmallVector<Value> yielded = body(dims, loop.getRegionIterArgs());
    if (iterArgs.empty()) // the loop came with its (empty) yield
      loop.getBody()->getTerminator()->moveAfter(&loop.getBody()->back());
    else
      scf::YieldOp::create(b, loc, yielded);
    return loop;
  }
};

/// The fill at `i` if it only starts the reduction right after it (same buffer, same type):
/// its value is the reduction's starting value, and it is not run.
linalg::FillOp foldedFill(const RowGroup &group, size_t i) {
  linalg::LinalgOp op = group.ops[i];
  auto fill = dyn_cast<linalg::FillOp>(op.getOperation());
  if (!fill || i + 1 >= group.ops.size())
    return {};
  linalg::LinalgOp next = group.ops[i + 1];
  Value out = fill.getOutputs()[0];
  if (!next.getNumReductionLoops() || next.getDpsInits()[0] != out ||
      fill.getInputs()[0].getType() != getElementTypeOrSelf(out.getType()))
    return {};
  return fill;
}
} // namespace

int64_t rowKernelThreads(const RowGroup &group) {
  int64_t most = 1;
  for (linalg::LinalgOp op : group.ops) {
    int64_t points = 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges(); // outlives the loop (C++17)
    for (int64_t r : innerRanges(ranges, group.rows.size()))
      points *= r;
    most = std::max(most, points);
  }
  return std::clamp<int64_t>(llvm::PowerOf2Ceil(most), 32, kMaxThreads);
}

void emitRowKernel(OpBuilder &b, const RowGroup &group, RowPoint point, RowPartial partial) {
  linalg::LinalgOp seed =
      *llvm::find_if(group.ops, [](linalg::LinalgOp op) { return op.getNumReductionLoops() > 0; });
  RowKernelBuilder k{b, group, seed.getLoc(), rowKernelThreads(group)};
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(group.ops.front());
  MLIRContext *ctx = b.getContext();

  // One shared buffer of partial results a reduction: a warp's each, or a thread's.
  SmallVector<Type> workgroup;
  for (linalg::LinalgOp op : group.ops) {
    if (!op.getNumReductionLoops())
      continue;
    Type element = getElementTypeOrSelf(op.getDpsInits()[0].getType());
    workgroup.push_back(
        MemRefType::get({shufflesCombine(element) ? k.threads / kWarp : k.threads}, element,
                        MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
  }
  int64_t rows = 1;
  for (int64_t r : group.rows)
    rows *= r;
  Value one = k.c(1);
  auto launch = gpu::LaunchOp::create(
      b, k.loc, k.c(rows), one, one, k.c(k.threads), one, one,
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr, ValueRange{}, workgroup,
      TypeRange{}, nullptr, nullptr, nullptr, FlatSymbolRefAttr::get(ctx, "infc_kernels"),
      FlatSymbolRefAttr::get(ctx, "kernel")); // infc-map-to-gpu names it
  b.setInsertionPointToStart(&launch.getBody().front());
  gpu::TerminatorOp::create(b, k.loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  SmallVector<Value> rowDims = k.delinearize(launch.getBlockIds().x, group.rows);
  size_t rowRank = group.rows.size();

  unsigned nextShared = 0;
  bool first = true;
  for (size_t i = 0; i < group.ops.size(); ++i) {
    linalg::LinalgOp op = group.ops[i];
    // A fill that only starts the next op's reduction is its starting value instead.
    if (foldedFill(group, i))
      continue;
    // The ops before may have written (or read) what this one reads (or writes) in
    // other threads' elements of the row.
    if (!first)
      gpu::BarrierOp::create(b, k.loc);
    first = false;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    ArrayRef<int64_t> inner = innerRanges(ranges, rowRank);
    if (!op.getNumReductionLoops()) {
      k.overRow(tid, rowDims, inner, {}, [&](ArrayRef<Value> dims, ValueRange) {
        point(b, op, dims);
        return SmallVector<Value>();
      });
      continue;
    }
    Operation *combiner = rowReductionCombiner(op);
    auto neutral = cast<TypedAttr>(*arith::getNeutralElement(combiner));
    Value start = arith::ConstantOp::create(b, k.loc, neutral);
    scf::ForOp loop =
        k.overRow(tid, rowDims, inner, start, [&](ArrayRef<Value> dims, ValueRange acc) {
          return SmallVector<Value>{partial(b, op, dims, acc[0])};
        });
    Value shared = launch.getWorkgroupAttributions()[nextShared++];
    Value total = shufflesCombine(start.getType())
                      ? k.combineByShuffles(combiner, loop.getResult(0), tid, shared)
                      : k.combineInSharedMemory(combiner, loop.getResult(0), tid, shared);
    // Thread 0 adds the starting value (the fill's, or the output's) and stores the row's.
    Value isFirst = arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::eq, tid, k.c(0));
    auto ifOp = scf::IfOp::create(b, k.loc, isFirst, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard inIf(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value out = op.getDpsInits()[0];
    Value init;
    if (linalg::FillOp fill = i > 0 ? foldedFill(group, i - 1) : linalg::FillOp())
      init = fill.getInputs()[0];
    else
      init = memref::LoadOp::create(b, k.loc, out, rowDims);
    memref::StoreOp::create(b, k.loc, k.combine(combiner, total, init), out, rowDims);
  }
}

} // namespace infc
