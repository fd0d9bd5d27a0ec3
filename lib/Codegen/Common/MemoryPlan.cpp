//===- MemoryPlan.cpp - static arena for all intermediate buffers ---------===//
#include "infc/Codegen/Common/KernelGroups.h"
#include "infc/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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

#include <functional>
#include <limits>

namespace infc {
#define GEN_PASS_DEF_INFCMEMORYPLAN
#include "infc/Codegen/Common/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
constexpr int64_t kAlignment = 64;
/// The static size of a workspace sized at each run (its type only carries the pointer).
constexpr int64_t kUnboundedWorkspaceBytes = int64_t(1) << 48;

/// A size of the generic code whose symbolic dim has no largest size (`infc compile` with
/// no flag for it), as a polynomial in the dim's run-time size: coefficients of d^0, d^1,
/// ... Sizes are products and sums of it and constants, so the coefficients are never
/// negative, and one polynomial at least another's in every coefficient is at least it at
/// every size: offsets placed that way never overlap at any size.
struct Polynomial {
  SmallVector<int64_t, 3> c;

  static std::optional<Polynomial> constant(int64_t v) {
    if (v < 0)
      return std::nullopt;
    return Polynomial{{v}};
  }
  bool isConstant() const { return c.size() <= 1; }
  int64_t at(size_t k) const { return k < c.size() ? c[k] : 0; }
  std::optional<Polynomial> operator+(const Polynomial &o) const {
    Polynomial r;
    for (size_t k = 0; k < std::max(c.size(), o.c.size()); ++k) {
      int64_t v;
      if (llvm::AddOverflow(at(k), o.at(k), v))
        return std::nullopt;
      r.c.push_back(v);
    }
    return r;
  }
  std::optional<Polynomial> operator*(const Polynomial &o) const {
    if (c.empty() || o.c.empty())
      return Polynomial{{0}};
    Polynomial r;
    r.c.assign(c.size() + o.c.size() - 1, 0);
    for (size_t i = 0; i < c.size(); ++i)
      for (size_t j = 0; j < o.c.size(); ++j) {
        int64_t term;
        if (llvm::MulOverflow(c[i], o.c[j], term) ||
            llvm::AddOverflow(r.c[i + j], term, r.c[i + j]))
          return std::nullopt;
      }
    return r;
  }
  /// Coefficient by coefficient: at least either at every size.
  Polynomial max(const Polynomial &o) const {
    Polynomial r;
    for (size_t k = 0; k < std::max(c.size(), o.c.size()); ++k)
      r.c.push_back(std::max(at(k), o.at(k)));
    return r;
  }
};

/// `v` as a polynomial in one run-time size (`symbol`, set by the first leaf met): through
/// constants, index casts, additions, products and affine maps of those; a minimum by any
/// of its operands (an upper bound), a maximum by their coefficient-wise maximum. None for
/// anything else (a division, a second symbol).
std::optional<Polynomial> polynomialOf(Value v, Value &symbol) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return Polynomial::constant(*c);
  // The leaf: an entry of the dims argument (infc-bound-dynamic-entry's), which the
  // runtime knows the size of at each run.
  auto isDimsArgument = [](Value a) {
    auto arg = dyn_cast<BlockArgument>(a);
    auto func = arg ? dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp()) : nullptr;
    return func && arg.getOwner()->isEntryBlock() &&
           func.getArgAttr(arg.getArgNumber(), "infc.dims_arg");
  };
  Operation *def = v.getDefiningOp();
  auto load = dyn_cast_or_null<memref::LoadOp>(def);
  if (load && isDimsArgument(load.getMemRef())) {
    if (!symbol)
      symbol = v;
    if (symbol != v)
      return std::nullopt;
    return Polynomial{{0, 1}};
  }
  if (!def)
    return std::nullopt; // (an argument: no size the runtime knows)
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp, arith::ExtUIOp>(def))
    return polynomialOf(def->getOperand(0), symbol);
  if (isa<arith::MulIOp, arith::AddIOp>(def)) {
    auto a = polynomialOf(def->getOperand(0), symbol), b = polynomialOf(def->getOperand(1), symbol);
    if (!a || !b)
      return std::nullopt;
    return isa<arith::MulIOp>(def) ? *a * *b : *a + *b;
  }
  if (isa<arith::MinSIOp, arith::MinUIOp>(def)) {
    if (auto a = polynomialOf(def->getOperand(0), symbol))
      return a;
    return polynomialOf(def->getOperand(1), symbol);
  }
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(def)) {
    auto a = polynomialOf(def->getOperand(0), symbol), b = polynomialOf(def->getOperand(1), symbol);
    if (!a || !b)
      return std::nullopt;
    return a->max(*b);
  }
  // Affine maps: each result of sums and products of the operands and constants.
  auto evaluate = [&](AffineMap map, ValueRange operands,
                      AffineExpr expr) -> std::optional<Polynomial> {
    std::function<std::optional<Polynomial>(AffineExpr)> eval =
        [&](AffineExpr e) -> std::optional<Polynomial> {
      if (auto k = dyn_cast<AffineConstantExpr>(e))
        return Polynomial::constant(k.getValue());
      if (auto d = dyn_cast<AffineDimExpr>(e))
        return polynomialOf(operands[d.getPosition()], symbol);
      if (auto s = dyn_cast<AffineSymbolExpr>(e))
        return polynomialOf(operands[map.getNumDims() + s.getPosition()], symbol);
      auto bin = dyn_cast<AffineBinaryOpExpr>(e);
      if (!bin || (e.getKind() != AffineExprKind::Add && e.getKind() != AffineExprKind::Mul))
        return std::nullopt;
      auto l = eval(bin.getLHS()), r = eval(bin.getRHS());
      if (!l || !r)
        return std::nullopt;
      return e.getKind() == AffineExprKind::Add ? *l + *r : *l * *r;
    };
    return eval(expr);
  };
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def))
    return evaluate(apply.getAffineMap(), apply.getMapOperands(),
                    apply.getAffineMap().getResult(0));
  if (auto min = dyn_cast<affine::AffineMinOp>(def)) {
    for (AffineExpr e : min.getAffineMap().getResults())
      if (auto p = evaluate(min.getAffineMap(), min.getMapOperands(), e))
        return p;
    return std::nullopt;
  }
  if (auto max = dyn_cast<affine::AffineMaxOp>(def)) {
    std::optional<Polynomial> all;
    for (AffineExpr e : max.getAffineMap().getResults()) {
      auto p = evaluate(max.getAffineMap(), max.getMapOperands(), e);
      if (!p)
        return std::nullopt;
      all = all ? all->max(*p) : *p;
    }
    return all;
  }
  return std::nullopt;
}

struct Buffer {
  memref::AllocOp alloc;
  int64_t bytes = 0, first = 0, last = 0, offset = 0;
  /// With no constant bound: its bytes and offset as polynomials in the run's size.
  std::optional<Polynomial> polynomialBytes, polynomialOffset;
};

int64_t alignUp(int64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

/// `p` at `size`, rounded up to the alignment, in index arithmetic built at `b`.
Value emitAlignedPolynomial(OpBuilder &b, Location loc, const Polynomial &p, Value size) {
  if (p.isConstant())
    return arith::ConstantIndexOp::create(b, loc, alignUp(p.at(0)));
  if (!size.getType().isIndex()) // (the dims argument's i64 entry)
    size = arith::IndexCastOp::create(b, loc, b.getIndexType(), size);
  Value sum = arith::ConstantIndexOp::create(b, loc, p.at(0) + kAlignment - 1), power;
  for (size_t k = 1; k < p.c.size(); ++k) {
    power = power ? arith::MulIOp::create(b, loc, power, size).getResult() : size;
    if (p.c[k] == 0)
      continue;
    Value term =
        arith::MulIOp::create(b, loc, power, arith::ConstantIndexOp::create(b, loc, p.c[k]));
    sum = arith::AddIOp::create(b, loc, sum, term);
  }
  Value mask = arith::ConstantIndexOp::create(b, loc, ~(kAlignment - 1));
  return arith::AndIOp::create(b, loc, sum, mask);
}

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
  /// whole loop. So does a serial loop on the CPU (`serialLoops`: none of its iterations runs
  /// beside another; a loop marked `infc.parallel` may, each iteration then needing its own):
  /// bufferization leaves a copy of a loop-carried tile inside the loop when two tiles of one
  /// row are carried (a 24-channel global average pool in 16 + 8 lanes on AVX-512). Only when
  /// what the loop yields is its own iter_args' buffers (the images' results written in
  /// place) or from outside: a body buffer reaching the next iteration otherwise (through a
  /// nested loop's result, a select) stays, and is refused.
  static void hoistLoopBuffers(Block &block, bool serialLoops) {
    for (auto loop : block.getOps<scf::ForOp>()) {
      if (!loop->hasAttr("infc.by_image") && (!serialLoops || loop->hasAttr("infc.parallel")))
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
    // (The CUDA pipeline maps loops to kernels after the plan: only its loops over images.)
    hoistLoopBuffers(block, /*serialLoops=*/!kernelGroups);
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
    // In a buffer's size, (x * c) / c is x (a collapse and the expand after it make such
    // sizes): the bounds and polynomials below take no division (a Relu that is also an
    // output, between the row blocks of two matmuls of generic code, was refused as
    // unbounded). Sizes are far from overflowing, where the two would differ.
    SmallVector<Value> sizes;
    func.walk([&](memref::AllocOp alloc) { llvm::append_range(sizes, alloc.getDynamicSizes()); });
    DenseSet<Value> seen;
    while (!sizes.empty()) {
      Value v = sizes.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !seen.insert(v).second ||
          !isa<arith::ArithDialect, affine::AffineDialect>(def->getDialect()))
        continue;
      if (isa<arith::DivSIOp, arith::DivUIOp>(def)) {
        std::optional<int64_t> divisor = getConstantIntValue(def->getOperand(1));
        auto mul = def->getOperand(0).getDefiningOp<arith::MulIOp>();
        for (unsigned i = 0; mul && divisor && *divisor > 0 && i < 2; ++i)
          if (getConstantIntValue(mul.getOperand(i)) == divisor) {
            def->getResult(0).replaceAllUsesWith(mul.getOperand(1 - i));
            break;
          }
      }
      llvm::append_range(sizes, def->getOperands());
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
    Value symbol; // the run-time size the buffers of no largest size are polynomials in
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
      int64_t bits = type.getElementType().getIntOrFloatBitWidth(), bytes = 0;
      Buffer buf;
      if (!bounded) {
        // A size of no largest value: its bytes as a polynomial in the run's size, placed
        // by polynomial offsets after the sized buffers.
        std::optional<Polynomial> count = Polynomial::constant((bits + 7) / 8);
        unsigned k = 0;
        for (int64_t size : type.getShape()) {
          std::optional<Polynomial> factor =
              ShapedType::isDynamic(size) ? polynomialOf(alloc.getDynamicSizes()[k++], symbol)
                                          : Polynomial::constant(size);
          count = count && factor ? *count * *factor : std::nullopt;
        }
        if (!count)
          continue;                // reported below
        if (count->isConstant()) { // (bounded after all: a minimum with a constant)
          bytes = count->at(0);
        } else {
          // Its offset is aligned at run time (below): 63 bytes more hold that.
          auto padded = *count + Polynomial{{kAlignment - 1}};
          if (!padded)
            continue; // reported below
          buf.polynomialBytes = padded;
        }
      } else if (llvm::MulOverflow(elements, (bits + 7) / 8, bytes)) {
        continue; // reported below
      }
      if (!buf.polynomialBytes && bytes > (int64_t(1) << 48))
        continue; // reported below
      buf.alloc = alloc;
      buf.bytes = buf.polynomialBytes ? 0 : alignUp(std::max<int64_t>(1, bytes));
      buf.first = order[alloc];
      buf.last = std::max({buf.first, lastUse(alloc.getResult(), block, order),
                           extendedLast.lookup(alloc.getResult())});
      buffers.push_back(buf);
    }

    // Greedy by size: each buffer takes the lowest offset that clears every placed buffer
    // whose live range overlaps its own.
    SmallVector<Buffer *> bySize;
    for (Buffer &b : buffers)
      if (!b.polynomialBytes)
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

    // The buffers of no largest size, after the others: each at the coefficient-wise
    // maximum of the ends of those placed before it whose live ranges overlap its own
    // (the largest first, by degree then leading coefficient), so at every size.
    std::optional<Polynomial> perRun;
    SmallVector<Buffer *> byPolynomial;
    for (Buffer &b : buffers)
      if (b.polynomialBytes)
        byPolynomial.push_back(&b);
    if (!byPolynomial.empty()) {
      llvm::stable_sort(byPolynomial, [](Buffer *a, Buffer *b) {
        const auto &p = a->polynomialBytes->c, &q = b->polynomialBytes->c;
        if (p.size() != q.size())
          return p.size() > q.size();
        return std::lexicographical_compare(q.rbegin(), q.rend(), p.rbegin(), p.rend());
      });
      perRun = Polynomial{{total}};
      SmallVector<Buffer *> placedHere;
      for (Buffer *buf : byPolynomial) {
        Polynomial offset{{total}};
        for (Buffer *other : placedHere)
          if (other->first <= buf->last && buf->first <= other->last) {
            auto end = *other->polynomialOffset + *other->polynomialBytes;
            if (!end) {
              buf->alloc.emitError("infc-memory-plan: the workspace's size overflows");
              return signalPassFailure();
            }
            offset = offset.max(*end);
          }
        buf->polynomialOffset = offset;
        auto end = offset + *buf->polynomialBytes;
        if (!end) {
          buf->alloc.emitError("infc-memory-plan: the workspace's size overflows");
          return signalPassFailure();
        }
        perRun = perRun->max(*end);
        placedHere.push_back(buf);
      }
    }

    MLIRContext *ctx = &getContext();
    // With buffers of no largest size the workspace is sized at each run (the runtime
    // reads the polynomial from the module's attributes): its type only carries the
    // pointer, as large as any buffer may be.
    auto wsType =
        MemRefType::get({perRun ? kUnboundedWorkspaceBytes : total}, IntegerType::get(ctx, 8));
    if (failed(func.insertArgument(0, wsType, {}, func.getLoc()))) {
      func.emitError("infc-memory-plan: cannot add the workspace argument");
      return signalPassFailure();
    }
    func.setArgAttr(0, "infc.workspace", UnitAttr::get(ctx));
    Value workspace = func.getArgument(0);
    for (Buffer &buf : buffers) {
      OpBuilder b(buf.alloc);
      Value offset =
          buf.polynomialOffset
              ? emitAlignedPolynomial(b, buf.alloc.getLoc(), *buf.polynomialOffset, symbol)
              : arith::ConstantIndexOp::create(b, buf.alloc.getLoc(), buf.offset).getResult();
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
    if (perRun) {
      // The bytes at a run's size d: sum of c[k] * d^k, d the dims argument's entry
      // `infc.workspace_dim`.
      auto load = symbol.getDefiningOp<memref::LoadOp>();
      std::optional<int64_t> dim =
          load.getIndices().size() == 1 ? getConstantIntValue(load.getIndices()[0]) : std::nullopt;
      if (!dim) {
        load.emitError("infc-memory-plan: the workspace is sized by an entry of the dims "
                       "argument at no constant index");
        return signalPassFailure();
      }
      module->setAttr("infc.workspace_polynomial", DenseI64ArrayAttr::get(ctx, perRun->c));
      module->setAttr("infc.workspace_dim", IntegerAttr::get(IntegerType::get(ctx, 64), *dim));
    }
  }
};
} // namespace
