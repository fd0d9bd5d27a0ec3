//===- MemoryPlan.cpp - static arena for all intermediate buffers ---------===//
#include "infc/Codegen/Common/KernelGroups.h"
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace infc {
#define GEN_PASS_DEF_INFCMEMORYPLAN
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kAlignment = 64;

struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0, first = 0, last = 0, offset = 0;
};

int64_t alignUp(int64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

/// Index (in `block`) of the last op that uses `value` or any view of it.
int64_t lastUse(Value value, Block &block, const DenseMap<Operation *, int64_t> &order) {
  int64_t last = -1;
  SmallVector<Value> worklist = {value};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = block.findAncestorOpInBlock(*use.getOwner());
      if (!user)
        continue;
      last = std::max(last, order.lookup(user));
      if (isa<ViewLikeOpInterface>(use.getOwner()))
        llvm::append_range(worklist, use.getOwner()->getResults());
    }
  }
  return last;
}

bool allParallel(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() && op.getNumReductionLoops() == 0 && !isa<linalg::FillOp>(op);
}

/// The linalg op before (`step` -1) or after (+1) `op`, past memory-effect-free ops,
/// allocations and deallocations (views of the workspace once planned) and, backwards,
/// fills (of the reduction's output).
linalg::LinalgOp neighbour(Operation *op, int step) {
  for (Operation *o = step < 0 ? op->getPrevNode() : op->getNextNode(); o;
       o = step < 0 ? o->getPrevNode() : o->getNextNode()) {
    if ((isMemoryEffectFree(o) && !o->getNumRegions()) ||
        isa<memref::AllocOp, memref::DeallocOp>(o))
      continue;
    if (step < 0 && isa<linalg::FillOp>(o))
      continue;
    return dyn_cast<linalg::LinalgOp>(o);
  }
  return {};
}

/// For each reduction, its possible kernel group (see the pass's description): the
/// memrefs the group reads, and the position of its last op.
void collectKernelGroups(Block &block, const DenseMap<Operation *, int64_t> &order,
                         SmallVectorImpl<std::pair<Value, int64_t>> &readUntil) {
  for (Operation &o : block) {
    auto op = dyn_cast<linalg::LinalgOp>(&o);
    if (!op || !op.hasPureBufferSemantics() || op.getNumReductionLoops() == 0)
      continue;
    SmallVector<linalg::LinalgOp> group = {op};
    DenseSet<Value> inputs;
    for (OpOperand *input : op.getDpsInputOperands())
      inputs.insert(infc::viewRoot(input->get()));
    Operation *at = op;
    while (linalg::LinalgOp prev = neighbour(at, -1)) {
      if (!allParallel(prev) || prev.getNumDpsInits() != 1 ||
          !inputs.contains(infc::viewRoot(prev.getDpsInits()[0])))
        break;
      group.push_back(prev);
      at = prev;
    }
    // Epilogues: each op after that reads the output of the one before (a bias add, then
    // a transpose).
    int64_t last = order.lookup(op);
    for (linalg::LinalgOp tail = op, next = neighbour(op, +1);
         next && allParallel(next) &&
         llvm::any_of(next.getDpsInputOperands(),
                      [&](OpOperand *input) {
                        return llvm::any_of(tail.getDpsInits(), [&](Value out) {
                          return infc::viewRoot(out) == infc::viewRoot(input->get());
                        });
                      });
         tail = next, next = neighbour(next, +1)) {
      group.push_back(next);
      last = order.lookup(next);
    }
    if (group.size() == 1)
      continue;
    for (linalg::LinalgOp member : group) {
      for (Value read : infc::memrefsRead(member))
        readUntil.push_back({infc::viewRoot(read), last});
      for (Value written : member.getDpsInits())
        readUntil.push_back({infc::viewRoot(written), last});
    }
  }
  // A row group is one kernel of a block per row: every buffer its ops touch stays live to
  // its last op (a buffer written there must not take the bytes of one read or written
  // before, which other blocks may still be using).
  for (const infc::RowGroup &group : infc::findRowGroups(block, infc::kRowReductionMin)) {
    int64_t last = order.lookup(group.ops.back());
    for (linalg::LinalgOp member : group.ops) {
      for (Value read : infc::memrefsRead(member))
        readUntil.push_back({infc::viewRoot(read), last});
      readUntil.push_back({infc::viewRoot(member.getDpsInits()[0]), last});
    }
  }
  // A point group is one kernel of a thread a point: likewise. (The ops it moves before its
  // first op need nothing more: every buffer live there and dead before their old place is
  // a member's, kept live.)
  auto touched = [](linalg::LinalgOp op) {
    DenseSet<Value> roots;
    for (Value v : infc::memrefsRead(op))
      roots.insert(infc::viewRoot(v));
    roots.insert(infc::viewRoot(op.getDpsInits()[0]));
    return roots;
  };
  // An op moves before the members when it reads nothing they write and writes nothing
  // they touch (buffers are distinct allocations here).
  auto independent = [&](linalg::LinalgOp op, ArrayRef<linalg::LinalgOp> members) {
    DenseSet<Value> mine = touched(op);
    Value written = infc::viewRoot(op.getDpsInits()[0]);
    return llvm::none_of(members, [&](linalg::LinalgOp member) {
      return touched(member).contains(written) ||
             mine.contains(infc::viewRoot(member.getDpsInits()[0]));
    });
  };
  for (const infc::PointGroup &group :
       infc::findPointGroups(block, [](linalg::LinalgOp) { return true; }, independent)) {
    int64_t last = order.lookup(group.ops.back());
    for (linalg::LinalgOp member : group.ops) {
      for (Value read : infc::memrefsRead(member))
        readUntil.push_back({infc::viewRoot(read), last});
      readUntil.push_back({infc::viewRoot(member.getDpsInits()[0]), last});
    }
  }
}

struct InfcMemoryPlanPass : public infc::impl::InfcMemoryPlanBase<InfcMemoryPlanPass> {
  using InfcMemoryPlanBase::InfcMemoryPlanBase;

  /// A loop over images (`infc.by_image`: a batch's convolution one image at a time,
  /// InfcToLinalg's convByImage) allocates its scratch buffers once an image; one set serves
  /// every image in turn, so they move before the loop, where they are planned live for the
  /// whole loop. Only when what the loop yields is its own iter_args' buffers (the images'
  /// results written in place) or from outside: a body buffer reaching the next image
  /// otherwise (through a nested loop's result, a select) stays, and is refused.
  static void hoistImageBuffers(Block &block) {
    for (auto loop : block.getOps<scf::ForOp>()) {
      if (!loop->hasAttr("infc.by_image"))
        continue;
      bool carriesNothing =
          llvm::all_of(loop.getBody()->getTerminator()->getOperands(), [&](Value v) {
            Value root = infc::viewRoot(v);
            return llvm::is_contained(loop.getRegionIterArgs(), root) ||
                   !loop->isAncestor(root.getParentBlock()->getParentOp());
          });
      if (!carriesNothing)
        continue;
      for (auto alloc : llvm::make_early_inc_range(loop.getBody()->getOps<memref::AllocOp>()))
        if (alloc.getDynamicSizes().empty() && alloc.getSymbolOperands().empty())
          alloc->moveBefore(loop);
    }
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(entryName);
    if (!func || func.isExternal()) {
      module.emitError("infc-memory-plan: no entry function '") << entryName << "'";
      return signalPassFailure();
    }
    Block &block = func.getBody().front();
    if (!func.getBody().hasOneBlock()) {
      func.emitError("infc-memory-plan expects a single-block entry function");
      return signalPassFailure();
    }
    hoistImageBuffers(block);
    // The generic code's sizes as arithmetic on the entry's dims: a memref.dim of a view or
    // of another buffer becomes that buffer's size expression, so each bound below reads a
    // short expression instead of walking the chain of buffers before it (quadratic on a
    // 12-layer encoder: 100 s).
    // (Only the dims and what they become: nothing else is touched, an unused alloc left.)
    SmallVector<Operation *> dims;
    func.walk([&](memref::DimOp dim) { dims.push_back(dim); });
    if (!dims.empty()) {
      RewritePatternSet patterns(&getContext());
      memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
      memref::populateResolveShapedTypeResultDimsPatterns(patterns);
      memref::DimOp::getCanonicalizationPatterns(patterns, &getContext());
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      if (failed(applyOpPatternsGreedily(dims, std::move(patterns), config)))
        return signalPassFailure();
    }
    DenseMap<Operation *, int64_t> order;
    int64_t index = 0;
    for (Operation &op : block)
      order[&op] = index++;

    SmallVector<std::pair<Value, int64_t>> readUntil;
    if (kernelGroups)
      collectKernelGroups(block, order, readUntil);
    DenseMap<Value, int64_t> extendedLast;
    for (auto [root, last] : readUntil)
      extendedLast[root] = std::max(extendedLast.lookup(root), last);

    SmallVector<Buffer> buffers;
    // (one bound per size value: the generic code's allocs share a few sizes, and each
    // bound walks the function)
    DenseMap<Value, FailureOr<int64_t>> upperBounds;
    auto upperBound = [&](Value size) {
      auto [it, inserted] = upperBounds.try_emplace(size, failure());
      if (inserted)
        it->second = ValueBoundsConstraintSet::computeConstantBound(
            presburger::BoundType::UB, ValueBoundsConstraintSet::Variable(size),
            /*stopCondition=*/nullptr, /*closedUB=*/true);
      return it->second;
    };
    for (Operation &op : block) {
      auto alloc = dyn_cast<memref::AllocOp>(op);
      if (!alloc)
        continue;
      MemRefType type = alloc.getType();
      if (!type.getLayout().isIdentity() || !type.getElementType().isIntOrFloat())
        continue;
      // A dynamic size counts at its constant upper bound (the generic code of a model with
      // a --dim range: infc-bound-dynamic-entry clamps the dims); without one the buffer is
      // left, and reported below.
      int64_t elements = 1;
      unsigned dynamic = 0;
      bool bounded = true;
      for (int64_t size : type.getShape()) {
        if (!ShapedType::isDynamic(size)) {
          if (llvm::MulOverflow(elements, size, elements)) {
            bounded = false;
            break;
          }
          continue;
        }
        FailureOr<int64_t> ub = upperBound(alloc.getDynamicSizes()[dynamic++]);
        if (failed(ub) || *ub < 0 || llvm::MulOverflow(elements, *ub, elements)) {
          bounded = false;
          break;
        }
      }
      if (!bounded)
        continue;
      int64_t bits = type.getElementType().getIntOrFloatBitWidth(), bytes = 0;
      if (llvm::MulOverflow(elements, (bits + 7) / 8, bytes) || bytes > (int64_t(1) << 48))
        continue; // reported below
      Buffer buf;
      buf.alloc = alloc;
      buf.bytes = alignUp(std::max<int64_t>(1, bytes));
      buf.first = order[alloc];
      buf.last = std::max({buf.first, lastUse(alloc.getResult(), block, order),
                           extendedLast.lookup(alloc.getResult())});
      buffers.push_back(buf);
    }

    // Greedy by size: each buffer takes the lowest offset that clears every placed buffer
    // whose live range overlaps its own.
    SmallVector<Buffer *> bySize;
    for (Buffer &b : buffers)
      bySize.push_back(&b);
    llvm::stable_sort(bySize, [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
    SmallVector<Buffer *> placed;
    int64_t total = 0;
    for (Buffer *buf : bySize) {
      SmallVector<std::pair<int64_t, int64_t>> busy;
      for (Buffer *other : placed)
        if (other->first <= buf->last && buf->first <= other->last)
          busy.push_back({other->offset, other->offset + other->bytes});
      llvm::sort(busy);
      int64_t offset = 0;
      for (auto [begin, end] : busy) {
        if (offset + buf->bytes <= begin)
          break;
        offset = std::max(offset, end);
      }
      buf->offset = offset;
      total = std::max(total, offset + buf->bytes);
      placed.push_back(buf);
    }

    MLIRContext *ctx = &getContext();
    auto wsType = MemRefType::get({total}, IntegerType::get(ctx, 8));
    if (failed(func.insertArgument(0, wsType, {}, func.getLoc()))) {
      func.emitError("infc-memory-plan: cannot add the workspace argument");
      return signalPassFailure();
    }
    func.setArgAttr(0, "infc.workspace", UnitAttr::get(ctx));
    Value workspace = func.getArgument(0);
    for (Buffer &buf : buffers) {
      OpBuilder b(buf.alloc);
      Value offset = arith::ConstantIndexOp::create(b, buf.alloc.getLoc(), buf.offset);
      Value view = memref::ViewOp::create(b, buf.alloc.getLoc(), buf.alloc.getType(), workspace,
                                          offset, buf.alloc.getDynamicSizes());
      // The arena outlives every use; drop deallocations of the replaced buffers.
      for (Operation *user : llvm::make_early_inc_range(buf.alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      buf.alloc.replaceAllUsesWith(view);
      buf.alloc.erase();
    }
    // Nothing else may allocate: a buffer left inside a loop (or of a dynamic shape) would be
    // malloc'ed on every run and never freed.
    WalkResult leftover = func.walk([&](memref::AllocOp alloc) {
      alloc.emitError("infc-memory-plan: buffer ")
          << alloc.getType() << " is not in the workspace (allocated inside a loop or of a "
          << "dynamic shape); the model would leak it on every run";
      return WalkResult::interrupt();
    });
    if (leftover.wasInterrupted())
      return signalPassFailure();
    module->setAttr("infc.workspace_bytes", IntegerAttr::get(IntegerType::get(ctx, 64), total));
  }
};
} // namespace
