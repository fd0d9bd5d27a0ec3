//===- LaunchToLoops.cpp - gpu.launch as loops on the CPU (the emulator) --===//
//
// Tests the GPU lowering without a GPU: every block and thread of a launch an iteration,
// the kernel split at barriers, shuffles and mma.syncs so that every thread reaches one
// before any passes it. The design is in docs/cuda.md, "The emulator".
//
//===----------------------------------------------------------------------===//
#include "infc/Codegen/CUDA/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/NVGPU/Utils/MMAUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/SaveAndRestore.h"

namespace infc {
#define GEN_PASS_DEF_INFCGPULAUNCHTOLOOPS
#include "infc/Codegen/CUDA/Passes.h.inc"
} // namespace infc

using namespace mlir;

namespace {
/// The values a warp-level op (a shuffle, an mma.sync) reads from other lanes: each thread
/// leaves them in a buffer before the op runs. Empty for any other op.
SmallVector<Value> exchangedValues(Operation *op) {
  if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op))
    return {shuffle.getValue()};
  if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(op))
    return {mma.getMatrixA(), mma.getMatrixB(), mma.getMatrixC()};
  if (auto mma = dyn_cast<NVVM::MmaOp>(op))
    return SmallVector<Value>(mma->getOperands());
  return {};
}

/// Whether `op` is or holds a barrier or a warp-level op (a point where threads exchange).
bool containsBarrier(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<gpu::BarrierOp, gpu::ShuffleOp, nvgpu::MmaSyncOp, NVVM::MmaOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

struct Emulation {
  gpu::LaunchOp launch;
  OpBuilder b;
  Location loc;
  /// Blocks and threads run last first, shared and private memory poisoned at each block's
  /// start (the pass's race-check option).
  bool raceCheck = false;
  Value zero, one;
  /// Block size operands (z, y, x) and the private attributions' per-thread buffers.
  Value blockZ, blockY, blockX;
  SmallVector<std::pair<BlockArgument, Value>> privates;
  /// Loop values (and results) of loops with barriers: a buffer of one value per thread.
  DenseMap<Value, Value> spills;
  /// A loop value a warp-level op reads from other lanes, copied at the op (the loop's own
  /// buffer gets the next step's values while the lanes still read): the copy.
  DenseMap<Value, Value> exchangeCopies;
  /// The buffer where the lanes left `v` for a warp-level op.
  Value exchanged(Value v) {
    Value copy = exchangeCopies.lookup(v);
    return copy ? copy : spills.lookup(v);
  }
  /// The thread's index in its block, inside a per-thread loop, and the mapping of the
  /// block-level values there (no thread's).
  Value currentThread;
  const IRMapping *blockMapping = nullptr;
  /// Whether values are being computed for another lane than currentThread's own.
  bool forAnotherLane = false;
  Value threadCount;

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  /// The current thread's lane in its 32-thread warp (by linear thread index) and the
  /// index of the warp's lane 0.
  std::pair<Value, Value> laneAndWarp() {
    Value lane = arith::RemUIOp::create(b, loc, currentThread, index(32));
    return {lane, arith::SubIOp::create(b, loc, currentThread, lane)};
  }

  /// A buffer [threads][shape] of `element` (one `shape` a thread), allocated before the
  /// blocks' loops and freed after them.
  Value perThreadBuffer(ArrayRef<int64_t> shape, Type element) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(threadCount.getDefiningOp());
    SmallVector<int64_t> bufferShape = {ShapedType::kDynamic};
    llvm::append_range(bufferShape, shape);
    Value buffer = memref::AllocOp::create(b, loc, MemRefType::get(bufferShape, element),
                                           ValueRange{threadCount});
    buffers.push_back(buffer);
    return buffer;
  }
  SmallVector<Value> buffers;

  /// A buffer of one value of `type` (a scalar or a vector) a thread.
  Value spillBuffer(Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      return perThreadBuffer(vector.getShape(), vector.getElementType());
    return perThreadBuffer({}, type);
  }

  /// A whole vector of `type` read from, or written to, `memref` at `indices`.
  Value readWhole(VectorType type, Value memref, ValueRange indices) {
    SmallVector<bool> inBounds(type.getRank(), true);
    Value pad = arith::ConstantOp::create(b, loc, type.getElementType(),
                                          b.getZeroAttr(type.getElementType()));
    return vector::TransferReadOp::create(b, loc, type, memref, indices, pad, inBounds).getResult();
  }
  void writeWhole(Value value, Value memref, ValueRange indices) {
    SmallVector<bool> inBounds(cast<VectorType>(value.getType()).getRank(), true);
    vector::TransferWriteOp::create(b, loc, value, memref, indices, inBounds);
  }

  SmallVector<Value> spillIndices(Value buffer) {
    SmallVector<Value> indices = {currentThread};
    indices.append(cast<MemRefType>(buffer.getType()).getRank() - 1, zero);
    return indices;
  }

  Value loadSpill(Value buffer, Type type) {
    if (auto vector = dyn_cast<VectorType>(type))
      return readWhole(vector, buffer, spillIndices(buffer));
    return memref::LoadOp::create(b, loc, buffer, spillIndices(buffer)).getResult();
  }

  void storeSpill(Value value, Value buffer) {
    if (isa<VectorType>(value.getType()))
      return writeWhole(value, buffer, spillIndices(buffer));
    memref::StoreOp::create(b, loc, value, buffer, spillIndices(buffer));
  }

  /// A shuffle: the value its source lane left in the shuffle's buffer (the thread's own
  /// when the source is outside the `width` lanes, as the GPU's `valid` false says). Lanes
  /// are a 32-thread warp's, by linear thread index.
  void emulateShuffle(gpu::ShuffleOp shuffle, IRMapping &mapping) {
    auto asIndex = [&](Value i32) {
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), mapping.lookupOrDefault(i32))
          .getResult();
    };
    Value offset = asIndex(shuffle.getOffset()), width = asIndex(shuffle.getWidth());
    auto [lane, warp] = laneAndWarp();
    Value source, valid;
    switch (shuffle.getMode()) {
    case gpu::ShuffleMode::XOR:
      source = arith::XOrIOp::create(b, loc, lane, offset);
      break;
    case gpu::ShuffleMode::DOWN:
      source = arith::AddIOp::create(b, loc, lane, offset);
      break;
    case gpu::ShuffleMode::UP:
      source = arith::SubIOp::create(b, loc, lane, offset);
      valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane, offset);
      break;
    case gpu::ShuffleMode::IDX:
      source = offset;
      break;
    }
    if (!valid)
      valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, source, width);
    Value from =
        arith::AddIOp::create(b, loc, warp, arith::SelectOp::create(b, loc, valid, source, lane));
    Value buffer = exchanged(shuffle.getValue());
    SmallVector<Value> indices = spillIndices(buffer);
    indices[0] = from;
    mapping.map(shuffle.getShuffleResult(),
                memref::LoadOp::create(b, loc, buffer, indices).getResult());
    mapping.map(shuffle.getValid(), valid);
  }

  /// A buffer of `shape` x `element` for one thread at a time, allocated before the
  /// blocks' loops and freed after them.
  Value scratchBuffer(ArrayRef<int64_t> shape, Type element) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(threadCount.getDefiningOp());
    Value buffer = memref::AllocOp::create(b, loc, MemRefType::get(shape, element));
    buffers.push_back(buffer);
    return buffer;
  }

  /// A warp's mma.sync as the lanes see it: `read(thread, operand, value)` gives element
  /// `value` (nvgpu's numbering; bytes signless) of A (operand 0) or B (1) from the
  /// fragment `thread` left. The warp's A [m][k] and B [n][k] are gathered where the layout
  /// puts them, once a warp (by the lane that runs first: the lanes run in turn, the gathered
  /// matrices stay for the others) and once a piece for the same fragment (`fragments`:
  /// its first value, A's and B's), then this lane's 4 elements of C + A B^T (f32, or i32
  /// for bytes, which wrap).
  struct WarpMma {
    int64_t m, n, k;
    Type element[2]; // of A and B (bytes: si8 or ui8, how they widen)
    Type layoutOf;   // the element type whose layout the fragments have (bf16: f16's)
    bool tf32;       // the low 13 bits of an f32 operand are ignored
    function_ref<Value(Value thread, unsigned operand, int64_t value)> read;
    Value fragments[2];
  };
  /// The warp's A or B gathered in the piece being written, by (fragment, operand);
  /// cleared at each piece.
  DenseMap<std::pair<Value, unsigned>, Value> gatheredFragments;
  FailureOr<SmallVector<Value>> emulateWarpMma(Operation *mma, const WarpMma &w,
                                               ArrayRef<Value> c) {
    bool integers = w.element[0].isInteger(8);
    Type acc = integers ? Type(b.getI32Type()) : Type(b.getF32Type());
    auto layout = [&](ArrayRef<int64_t> warpShape, Type type, nvgpu::MatMulOperandRole role) {
      return nvgpu::getLaneIdAndValueIdToOperandCoord(
          b, loc, nvgpu::WarpMatrixInfo{VectorType::get(warpShape, type), role});
    };
    FailureOr<AffineMap> mapA = layout({w.m, w.k}, w.layoutOf, nvgpu::MatMulOperandRole::A);
    FailureOr<AffineMap> mapB = layout({w.n, w.k}, w.layoutOf, nvgpu::MatMulOperandRole::B);
    FailureOr<AffineMap> mapC = layout({w.m, w.n}, acc, nvgpu::MatMulOperandRole::C);
    if (failed(mapA) || failed(mapB) || failed(mapC))
      return mma->emitError("infc-gpu-launch-to-loops: no nvgpu layout for this mma.sync");
    auto coords = [&](AffineMap map, Value lane, int64_t value) {
      SmallVector<Value> at;
      for (unsigned r = 0; r < 2; ++r)
        at.push_back(affine::AffineApplyOp::create(b, loc, map.getSubMap({r}),
                                                   ValueRange{lane, index(value)}));
      return at;
    };
    auto signless = [&](Type type) -> Type { return type.isInteger(8) ? b.getI8Type() : type; };
    auto [lane, warp] = laneAndWarp();
    // Each lane holds m k / 32 elements of A and n k / 32 of B.
    int64_t rows[2] = {w.m, w.n}, values[2] = {w.m * w.k / 32, w.n * w.k / 32};
    AffineMap maps[2] = {*mapA, *mapB};
    Value whole[2];
    SmallVector<unsigned> missing;
    for (unsigned operand = 0; operand < 2; ++operand) {
      std::pair<Value, unsigned> key = {w.fragments[operand], operand};
      whole[operand] = gatheredFragments.lookup(key);
      if (!whole[operand]) {
        whole[operand] = scratchBuffer({rows[operand], w.k}, signless(w.element[operand]));
        gatheredFragments[key] = whole[operand];
        missing.push_back(operand);
      }
    }
    if (!missing.empty()) {
      // The warp's lane that runs first gathers: lane 0, or with raceCheck the last one
      // (lane 31 of a whole warp).
      Value firstLane = zero;
      if (raceCheck) {
        Value last =
            arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, threadCount, one), warp);
        firstLane = arith::MinUIOp::create(b, loc, last, index(31));
      }
      Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, firstLane);
      auto once = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(once.thenBlock());
      auto loop = scf::ForOp::create(b, loc, zero, index(32), one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      Value source = loop.getInductionVar();
      Value thread = arith::AddIOp::create(b, loc, warp, source);
      for (unsigned operand : missing)
        for (int64_t v = 0; v < values[operand]; ++v)
          memref::StoreOp::create(b, loc, w.read(thread, operand, v), whole[operand],
                                  coords(maps[operand], source, v));
    }
    // A row of A or B (k elements) as the tensor cores read it, in the sums' type.
    auto wide = VectorType::get({w.k}, acc);
    auto operand = [&](unsigned which, Value row) -> Value {
      Type element = w.element[which];
      Value x =
          readWhole(VectorType::get({w.k}, signless(element)), whole[which], ValueRange{row, zero});
      if (integers && element.isUnsignedInteger())
        return arith::ExtUIOp::create(b, loc, wide, x);
      if (integers)
        return arith::ExtSIOp::create(b, loc, wide, x);
      if (!w.tf32)
        return arith::ExtFOp::create(b, loc, wide, x);
      auto bitsType = VectorType::get({w.k}, b.getI32Type());
      Value bits = arith::BitcastOp::create(b, loc, bitsType, x);
      Value mask = arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(bitsType, b.getI32IntegerAttr(0xFFFFE000)));
      return arith::BitcastOp::create(b, loc, wide, arith::AndIOp::create(b, loc, bits, mask));
    };
    // Each sum: C plus the products of its row of A and column of B (row of B^T).
    SmallVector<Value> d;
    for (auto [v, start] : llvm::enumerate(c)) {
      SmallVector<Value> at = coords(*mapC, lane, v);
      Value x = operand(0, at[0]), y = operand(1, at[1]);
      Value products = integers ? arith::MulIOp::create(b, loc, x, y).getResult()
                                : arith::MulFOp::create(b, loc, x, y).getResult();
      d.push_back(vector::ReductionOp::create(b, loc, vector::CombiningKind::ADD, products, start));
    }
    return d;
  }

  /// An nvgpu.mma.sync (m16n8k8 TF32, or m16n8k16 f16): its fragments are vectors, each
  /// lane's in a buffer [threads][registers][elements]. The result is also left in a buffer
  /// for later pieces.
  LogicalResult emulateMmaSync(nvgpu::MmaSyncOp mma, IRMapping &mapping) {
    auto shape = llvm::map_to_vector(mma.getMmaShape(),
                                     [](Attribute a) { return cast<IntegerAttr>(a).getInt(); });
    auto typeA = cast<VectorType>(mma.getMatrixA().getType());
    auto typeB = cast<VectorType>(mma.getMatrixB().getType());
    auto typeC = cast<VectorType>(mma.getMatrixC().getType());
    Type element = typeA.getElementType(), acc = typeC.getElementType();
    bool tf32 = mma.getTf32Enabled().has_value();
    if (!acc.isF32() || !(tf32 ? element.isF32() : element.isF16()) || typeC.getNumElements() != 4)
      return mma.emitError("infc-gpu-launch-to-loops: an mma.sync other than TF32 or f16 "
                           "operands summed in f32");
    auto read = [&](Value thread, unsigned operand, int64_t v) -> Value {
      Value fragment = operand ? mma.getMatrixB() : mma.getMatrixA();
      int64_t perRegister = (operand ? typeB : typeA).getDimSize(1);
      return memref::LoadOp::create(
          b, loc, exchanged(fragment),
          ValueRange{thread, index(v / perRegister), index(v % perRegister)});
    };
    Value c = mapping.lookupOrDefault(mma.getMatrixC());
    SmallVector<Value> start;
    for (int64_t v = 0; v < 4; ++v)
      start.push_back(vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{v / 2, v % 2}));
    FailureOr<SmallVector<Value>> sums =
        emulateWarpMma(mma,
                       WarpMma{shape[0],
                               shape[1],
                               shape[2],
                               {element, element},
                               element,
                               tf32,
                               read,
                               {mma.getMatrixA(), mma.getMatrixB()}},
                       start);
    if (failed(sums))
      return failure();
    Value d = vector::FromElementsOp::create(b, loc, typeC, *sums);
    mapping.map(mma.getRes(), d);
    Value buffer = spillBuffer(typeC);
    storeSpill(d, buffer);
    spills[mma.getRes()] = buffer;
    return success();
  }

  /// An nvvm.mma.sync row.col: m16n8k16 of f16 or bf16 summed in f32, or m16n8k32 of bytes
  /// (s8 or u8 each) summed in i32. A's and B's registers are vector<2xf16>s or i32s
  /// holding 2 bf16 or 4 bytes (the first in the low bits), a buffer [threads] each. The
  /// result is an LLVM struct of the 4 sums (its llvm.extractvalue users must follow it
  /// before the next warp-level op: a struct has no buffer).
  LogicalResult emulateNvvmMma(NVVM::MmaOp mma, IRMapping &mapping) {
    MLIRContext *ctx = b.getContext();
    auto elementOf = [&](std::optional<NVVM::MMATypes> type) -> Type {
      if (!type)
        return Type();
      switch (*type) {
      case NVVM::MMATypes::f16:
        return b.getF16Type();
      case NVVM::MMATypes::bf16:
        return b.getBF16Type();
      case NVVM::MMATypes::s8:
        return IntegerType::get(ctx, 8, IntegerType::Signed);
      case NVVM::MMATypes::u8:
        return IntegerType::get(ctx, 8, IntegerType::Unsigned);
      default:
        return Type();
      }
    };
    Type elementA = elementOf(mma.getMultiplicandAPtxType());
    Type elementB = elementOf(mma.getMultiplicandBPtxType());
    bool bytes = elementA && elementA.isInteger(8);
    bool pair = elementA && elementB && (bytes ? elementB.isInteger(8) : elementA == elementB);
    Type acc = bytes ? Type(b.getI32Type()) : Type(b.getF32Type());
    int64_t k = bytes ? 32 : 16;
    NVVM::MMAShapeAttr shape = mma.getShapeAttr();
    auto result = dyn_cast<LLVM::LLVMStructType>(mma.getRes().getType());
    if (!pair || shape.getM() != 16 || shape.getN() != 8 || shape.getK() != k ||
        mma.getLayoutA() != NVVM::MMALayout::row || mma.getLayoutB() != NVVM::MMALayout::col ||
        mma.getOperandC().size() != 4 || mma.getOperandC()[0].getType() != acc || !result ||
        result.getBody().size() != 4)
      return mma.emitError("infc-gpu-launch-to-loops: an nvvm.mma.sync other than row.col "
                           "m16n8k16 of f16 or bf16 summed in f32 or m16n8k32 of bytes "
                           "summed in i32");
    int64_t bits = bytes ? 8 : 16, perRegister = 32 / bits;
    Type narrow = b.getIntegerType(bits);
    auto read = [&](Value thread, unsigned operand, int64_t v) -> Value {
      Value reg = operand ? mma.getOperandB()[v / perRegister] : mma.getOperandA()[v / perRegister];
      Value buffer = exchanged(reg);
      if (isa<VectorType>(reg.getType())) // f16 pairs
        return memref::LoadOp::create(b, loc, buffer, ValueRange{thread, index(v % perRegister)});
      Value word = memref::LoadOp::create(b, loc, buffer, ValueRange{thread});
      if (int64_t shift = v % perRegister * bits)
        word =
            arith::ShRUIOp::create(b, loc, word, arith::ConstantIntOp::create(b, loc, shift, 32));
      Value element = arith::TruncIOp::create(b, loc, narrow, word);
      if (bytes)
        return element;
      return arith::BitcastOp::create(b, loc, b.getBF16Type(), element);
    };
    SmallVector<Value> start =
        llvm::map_to_vector(mma.getOperandC(), [&](Value v) { return mapping.lookupOrDefault(v); });
    Type layoutOf = bytes ? Type(b.getI8Type()) : Type(b.getF16Type());
    FailureOr<SmallVector<Value>> sums =
        emulateWarpMma(mma,
                       WarpMma{16,
                               8,
                               k,
                               {elementA, elementB},
                               layoutOf,
                               /*tf32=*/false,
                               read,
                               {mma.getOperandA()[0], mma.getOperandB()[0]}},
                       start);
    if (failed(sums))
      return failure();
    Value d = LLVM::UndefOp::create(b, loc, result);
    for (auto [i, sum] : llvm::enumerate(*sums))
      d = LLVM::InsertValueOp::create(b, loc, d, sum, ArrayRef<int64_t>{(int64_t)i});
    mapping.map(mma.getRes(), d);
    return success();
  }

  /// An nvgpu.ldmatrix: lane l's register r holds the 32 bits at 4 (l % 4) bytes into the
  /// row whose address lane 8 r + l / 4 gives; transposed (16-bit elements), its two
  /// elements are those at element l / 4 of the rows lanes 8 r + 2 (l % 4) and
  /// 8 r + 2 (l % 4) + 1 give (matrix r's column l / 4). The lanes' addresses are index
  /// arithmetic on the thread id, computed again here for each source lane (no piece of
  /// its own: what it reads is shared memory, complete since the last barrier).
  LogicalResult emulateLdMatrix(nvgpu::LdMatrixOp ld, IRMapping &mapping) {
    auto type = cast<VectorType>(ld.getRes().getType());
    if (type.getRank() != 2 || (ld.getTranspose() && type.getDimSize(1) != 2))
      return ld.emitError("infc-gpu-launch-to-loops: a transposed ldmatrix of other than "
                          "16-bit elements");
    // (Inside a per-thread loop: emit() runs for a thread, and resolve() refuses it, a
    // read of memory, at block level.)
    assert(blockMapping && "an ldmatrix outside a per-thread loop");
    int64_t tiles = type.getDimSize(0), perRegister = type.getDimSize(1);
    // Plain locals: the lambda below captures warp (structured bindings need C++20).
    Value lane, warp;
    std::tie(lane, warp) = laneAndWarp();
    Value group = arith::DivUIOp::create(b, loc, lane, index(4));
    Value column = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, index(4)),
                                         index(perRegister));
    Value src = mapping.lookupOrDefault(ld.getSrcMemref());
    Value result = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    gpu::KernelDim3 ids = launch.getThreadIds();
    auto rowType = VectorType::get({perRegister}, type.getElementType());
    Value plane = arith::MulIOp::create(b, loc, blockX, blockY);
    // The indices lane `row` (of the warp's) gives, from its thread ids (z, y, x).
    auto indicesOf = [&](Value row) -> FailureOr<SmallVector<Value>> {
      Value source = arith::AddIOp::create(b, loc, warp, row);
      IRMapping other = *blockMapping;
      other.map(ids.x, arith::RemUIOp::create(b, loc, source, blockX));
      other.map(ids.y, arith::RemUIOp::create(
                           b, loc, arith::DivUIOp::create(b, loc, source, blockX), blockY));
      other.map(ids.z, arith::DivUIOp::create(b, loc, source, plane));
      SmallVector<Value> indices;
      llvm::SaveAndRestore<Value> asSource(currentThread, source);
      llvm::SaveAndRestore<bool> noSpills(forAnotherLane, true);
      for (Value index : ld.getIndices()) {
        if (failed(resolve(index, other)))
          return failure();
        indices.push_back(other.lookupOrDefault(index));
      }
      return indices;
    };
    for (int64_t r = 0; r < tiles; ++r) {
      if (!ld.getTranspose()) {
        FailureOr<SmallVector<Value>> indices =
            indicesOf(arith::AddIOp::create(b, loc, group, index(8 * r)));
        if (failed(indices))
          return failure();
        indices->back() = arith::AddIOp::create(b, loc, indices->back(), column);
        Value row = readWhole(rowType, src, *indices);
        result = vector::InsertOp::create(b, loc, row, result, ArrayRef<int64_t>{r});
        continue;
      }
      // column = 2 (l % 4): the first of the two rows.
      for (int64_t e = 0; e < 2; ++e) {
        int64_t first = 8 * r + e;
        FailureOr<SmallVector<Value>> indices = indicesOf(
            first ? arith::AddIOp::create(b, loc, column, index(first)).getResult() : column);
        if (failed(indices))
          return failure();
        indices->back() = arith::AddIOp::create(b, loc, indices->back(), group);
        Value element = memref::LoadOp::create(b, loc, src, *indices);
        result = vector::InsertOp::create(b, loc, element, result, ArrayRef<int64_t>{r, e});
      }
    }
    mapping.map(ld.getRes(), result);
    return success();
  }

  /// Asserts (cf.assert: an abort at run time) that the element at `indices` of `memref`
  /// is `op`'s alignment bytes from its buffer's start, the alignment dropped.
  void checkAlignment(Operation *op, Value memref, ValueRange indices) {
    auto alignment = op->getAttrOfType<IntegerAttr>("alignment");
    op->removeAttr("alignment");
    auto type = cast<MemRefType>(memref.getType());
    if (!alignment || !type.getElementType().isIntOrFloat())
      return;
    int64_t bytes = type.getElementTypeBitWidth() / 8;
    if (alignment.getInt() <= bytes || bytes == 0)
      return;
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value offset = metadata.getOffset();
    for (auto [index, stride] : llvm::zip(indices, metadata.getStrides()))
      offset = arith::AddIOp::create(b, loc, offset, arith::MulIOp::create(b, loc, index, stride));
    Value aligned = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq,
        arith::RemUIOp::create(b, loc, offset, index(alignment.getInt() / bytes)), zero);
    cf::AssertOp::create(b, loc, aligned,
                         "infc-gpu-launch-to-loops: a misaligned vector load or store");
  }

  /// Emits `op` under `mapping`: shuffles and mma.syncs from their buffers, ldmatrix from
  /// its lanes' addresses, anything else cloned.
  LogicalResult emit(Operation &op, IRMapping &mapping) {
    SmallVector<Value> exchanged = exchangedValues(&op);
    if (!exchanged.empty() &&
        (!currentThread || llvm::any_of(exchanged, [&](Value v) { return !spills.count(v); })))
      return op.emitError("infc-gpu-launch-to-loops: a warp-level op outside the kernel's "
                          "body or a loop with barriers");
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      emulateShuffle(shuffle, mapping);
      return success();
    }
    if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(op))
      return emulateMmaSync(mma, mapping);
    if (auto mma = dyn_cast<NVVM::MmaOp>(op))
      return emulateNvvmMma(mma, mapping);
    if (auto ld = dyn_cast<nvgpu::LdMatrixOp>(op))
      return emulateLdMatrix(ld, mapping);
    Operation *copy = b.clone(op, mapping);
    // A vector load or store promises the GPU's alignment; the caller's host memory here
    // need not have it (the device buffers' starts do), so the promise goes, and what the
    // GPU relies on is checked instead: the element's offset from the buffer's start.
    // The ones inside a cloned region (a guarded load's scf.if) too.
    copy->walk([&](Operation *inner) {
      if (auto load = dyn_cast<vector::LoadOp>(inner))
        checkAlignment(load, load.getBase(), load.getIndices());
      if (auto store = dyn_cast<vector::StoreOp>(inner))
        checkAlignment(store, store.getBase(), store.getIndices());
    });
    return success();
  }

  Emulation(gpu::LaunchOp launch, bool raceCheck)
      : launch(launch), b(launch), loc(launch.getLoc()), raceCheck(raceCheck) {}

  /// The id an iteration `iv` of a loop over `bound` blocks or threads stands for: `iv`,
  /// or with raceCheck `bound - 1 - iv` (last first).
  Value orderedId(Value iv, Value bound) {
    if (!raceCheck)
      return iv;
    return arith::SubIOp::create(b, loc, arith::SubIOp::create(b, loc, bound, one), iv);
  }

  /// What every element of a poisoned buffer of `element` holds: a NaN (it survives most
  /// arithmetic into the outputs), integers and indices the bytes 0xA5, vectors of those.
  TypedAttr poisonOf(Type element) {
    if (auto vectorType = dyn_cast<VectorType>(element))
      return SplatElementsAttr::get(vectorType, poisonOf(vectorType.getElementType()));
    if (auto floatType = dyn_cast<FloatType>(element))
      return b.getFloatAttr(element, APFloat::getQNaN(floatType.getFloatSemantics()));
    unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
    APInt pattern(8, 0xA5);
    return b.getIntegerAttr(element,
                            width < 8 ? pattern.trunc(width) : APInt::getSplat(width, pattern));
  }

  /// Fills the static buffer `memref` with poisonOf its elements, a loop per dimension.
  void poison(Value memref) {
    auto type = cast<MemRefType>(memref.getType());
    OpBuilder::InsertionGuard guard(b);
    Value value = arith::ConstantOp::create(b, loc, poisonOf(type.getElementType()));
    SmallVector<Value> ivs;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      Value size = type.isDynamicDim(d) ? memref::DimOp::create(b, loc, memref, d).getResult()
                                        : index(type.getDimSize(d));
      auto loop = scf::ForOp::create(b, loc, zero, size, one);
      ivs.push_back(loop.getInductionVar());
      b.setInsertionPoint(loop.getBody()->getTerminator());
    }
    memref::StoreOp::create(b, loc, value, memref, ivs);
  }

  /// Makes `v` available under `mapping` at b's insertion point: a pure op of the kernel
  /// computed earlier (perhaps before a barrier) is computed again here.
  LogicalResult resolve(Value v, IRMapping &mapping) {
    if (mapping.contains(v) || !launch->isAncestor(v.getParentBlock()->getParentOp()))
      return success(); // mapped, or from outside the kernel
    if (Value buffer = spills.lookup(v)) {
      if (!currentThread)
        return launch.emitError("infc-gpu-launch-to-loops: a loop value used where all "
                                "threads must agree");
      // Another lane's loop value may already be its next step's (the lanes run in turn).
      if (forAnotherLane)
        return launch.emitError("infc-gpu-launch-to-loops: an ldmatrix address computed "
                                "from a loop value");
      mapping.map(v, loadSpill(buffer, v.getType()));
      return success();
    }
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumRegions() || !isMemoryEffectFree(def))
      return launch.emitError("infc-gpu-launch-to-loops: a value crosses a barrier or a "
                              "thread id is used where all threads must agree: ")
             << v;
    for (Value operand : def->getOperands())
      if (failed(resolve(operand, mapping)))
        return failure();
    return emit(*def, mapping);
  }

  /// Clones `op` under `mapping`, first making every value it uses from outside available.
  LogicalResult cloneWithOperands(Operation &op, IRMapping &mapping) {
    WalkResult walk = op.walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!op.isAncestor(operand.getParentBlock()->getParentOp()) &&
            failed(resolve(operand, mapping)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
    return emit(op, mapping);
  }

  /// The ops between two barriers, for every thread of the block in turn; then, per
  /// thread, `values` stored into `buffers` (a loop's values for its next step).
  LogicalResult runForEachThread(ArrayRef<Operation *> segment, const IRMapping &blockLevel,
                                 ValueRange values = {}, ArrayRef<Value> into = {}) {
    if (segment.empty() && values.empty())
      return success();
    OpBuilder::InsertionGuard guard(b);
    gpu::KernelDim3 threadIds = launch.getThreadIds();
    Value bounds[3] = {blockZ, blockY, blockX};
    Value ivs[3];
    for (int i = 0; i < 3; ++i) {
      auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      ivs[i] = orderedId(loop.getInductionVar(), bounds[i]);
    }
    IRMapping mapping = blockLevel;
    mapping.map(threadIds.z, ivs[0]);
    mapping.map(threadIds.y, ivs[1]);
    mapping.map(threadIds.x, ivs[2]);
    // The thread's index in its block, (z * blockY + y) * blockX + x.
    Value zy = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, ivs[0], blockY), ivs[1]);
    Value linear = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, zy, blockX), ivs[2]);
    llvm::SaveAndRestore<Value> thread(currentThread, linear);
    llvm::SaveAndRestore<const IRMapping *> atBlockLevel(blockMapping, &blockLevel);
    gatheredFragments.clear();
    // The private buffers this segment touches, sliced at the thread.
    SmallVector<std::pair<BlockArgument, Value>> used;
    for (auto [attribution, buffer] : privates)
      if (llvm::any_of(attribution.getUsers(), [&](Operation *user) {
            return llvm::any_of(segment, [&](Operation *op) { return op->isAncestor(user); });
          }))
        used.push_back({attribution, buffer});
    for (auto [attribution, buffer] : used) {
      auto type = cast<MemRefType>(attribution.getType());
      auto bufferType = cast<MemRefType>(buffer.getType());
      SmallVector<OpFoldResult> offsets(bufferType.getRank(), b.getIndexAttr(0)), sizes,
          strides(bufferType.getRank(), b.getIndexAttr(1));
      offsets[0] = linear;
      sizes.push_back(b.getIndexAttr(1));
      for (int64_t size : type.getShape())
        sizes.push_back(b.getIndexAttr(size));
      auto sliceType = memref::SubViewOp::inferRankReducedResultType(type.getShape(), bufferType,
                                                                     offsets, sizes, strides);
      mapping.map(attribution, memref::SubViewOp::create(b, loc, cast<MemRefType>(sliceType),
                                                         buffer, offsets, sizes, strides)
                                   .getResult());
    }
    for (Operation *op : segment)
      if (failed(cloneWithOperands(*op, mapping)))
        return failure();
    // All values first: a buffer may hold a loop value another of them is computed from
    // (or that moves to another position: yield %b, %a).
    for (Value value : values)
      if (failed(resolve(value, mapping)))
        return failure();
    for (auto [value, buffer] : llvm::zip(values, into))
      storeSpill(mapping.lookupOrDefault(value), buffer);
    return success();
  }

  /// The ops of `block` (the kernel's body or a loop with barriers in it) at block level;
  /// `yieldInto`: the loop's buffers, where each thread leaves the values it yields.
  LogicalResult emitBlock(Block &block, IRMapping &blockLevel, ArrayRef<Value> yieldInto = {}) {
    SmallVector<Operation *> segment;
    // The warp-level ops already placed (with a run of mma.syncs before them).
    DenseSet<Operation *> placed;
    for (Operation &op : block.without_terminator()) {
      if (placed.contains(&op))
        continue;
      if (isa<gpu::BarrierOp>(op)) {
        if (failed(runForEachThread(segment, blockLevel)))
          return failure();
        segment.clear();
        continue;
      }
      // A warp-level op: the code before it runs for every thread, each leaving the
      // values it shares in buffers; the op itself opens the next piece. So do the
      // mma.syncs right after it that use none of the run's results (a warp's fragment
      // products of one reduction step): what they share is in buffers before the run.
      if (SmallVector<Value> shared = exchangedValues(&op); !shared.empty()) {
        if (isa<gpu::ShuffleOp>(op) && isa<VectorType>(shared[0].getType()))
          return op.emitError("infc-gpu-launch-to-loops: a shuffle of a vector");
        SmallVector<Operation *> run = {&op};
        auto isMma = [](Operation *o) { return isa<nvgpu::MmaSyncOp, NVVM::MmaOp>(o); };
        for (Operation *next = op.getNextNode(); isMma(&op) && next && isMma(next);
             next = next->getNextNode()) {
          if (llvm::any_of(next->getOperands(),
                           [&](Value v) { return llvm::is_contained(run, v.getDefiningOp()); }))
            break;
          run.push_back(next);
          placed.insert(next);
          llvm::append_range(shared, exchangedValues(next));
        }
        // Those not in a buffer already (shared before), and whatever else the piece
        // computes for later (the next mma's fragments; views are recomputed instead).
        SmallVector<Value> values, into, copied, copies;
        Value unbuffered; // a value no buffer can hold (an LLVM struct)
        auto keep = [&](Value v) {
          if (isa<LLVM::LLVMStructType>(v.getType())) {
            unbuffered = v;
            return;
          }
          if (!spills.count(v) && !llvm::is_contained(values, v)) {
            values.push_back(v);
            into.push_back(spillBuffer(v.getType()));
          }
        };
        for (Value v : shared) {
          // A loop value: copied, its buffer is rewritten by this step's yield.
          if (isa<BlockArgument>(v) && spills.count(v) && !llvm::is_contained(copied, v)) {
            copied.push_back(v);
            copies.push_back(spillBuffer(v.getType()));
          }
          keep(v);
        }
        DenseSet<Operation *> inPiece(segment.begin(), segment.end());
        for (Operation *piece : segment)
          for (Value result : piece->getResults())
            if (!isa<MemRefType>(result.getType()) &&
                llvm::any_of(result.getUsers(), [&](Operation *user) {
                  Operation *top = block.findAncestorOpInBlock(*user);
                  return top && !inPiece.contains(top);
                }))
              keep(result);
        if (unbuffered)
          return op.emitError("infc-gpu-launch-to-loops: a struct value (")
                 << unbuffered << ") used past a warp-level op";
        SmallVector<Value> stored(values), storedInto(into);
        llvm::append_range(stored, copied);
        llvm::append_range(storedInto, copies);
        if (failed(runForEachThread(segment, blockLevel, stored, storedInto)))
          return failure();
        for (auto [v, buffer] : llvm::zip(values, into))
          spills[v] = buffer;
        for (auto [v, buffer] : llvm::zip(copied, copies))
          exchangeCopies[v] = buffer;
        segment.assign(run.begin(), run.end());
        continue;
      }
      if (!containsBarrier(&op)) {
        segment.push_back(&op);
        continue;
      }
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop)
        return op.emitError("infc-gpu-launch-to-loops: a barrier or shuffle inside '")
               << op.getName() << "' (only in the kernel's body or an scf.for there)";
      // Loop values: a buffer each, where every thread leaves its starting values at the
      // end of the piece before the loop (which may compute them).
      SmallVector<Value> loopBuffers;
      for (auto [arg, result] : llvm::zip(loop.getRegionIterArgs(), loop.getResults())) {
        loopBuffers.push_back(spillBuffer(arg.getType()));
        // Two statements: a chained assignment would read the first entry through a
        // reference the second insertion may have moved.
        spills[arg] = loopBuffers.back();
        spills[result] = loopBuffers.back();
      }
      if (failed(runForEachThread(segment, blockLevel, loop.getInitArgs(), loopBuffers)))
        return failure();
      segment.clear();
      for (Value bound : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
        if (failed(resolve(bound, blockLevel)))
          return failure();
      auto steps = scf::ForOp::create(b, loc, blockLevel.lookupOrDefault(loop.getLowerBound()),
                                      blockLevel.lookupOrDefault(loop.getUpperBound()),
                                      blockLevel.lookupOrDefault(loop.getStep()));
      // What is computed for the body stays in it.
      IRMapping inLoop = blockLevel;
      inLoop.map(loop.getInductionVar(), steps.getInductionVar());
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(steps.getBody()->getTerminator());
      if (failed(emitBlock(*loop.getBody(), inLoop, loopBuffers)))
        return failure();
    }
    // The last piece also leaves the values a loop body yields (they must be computed
    // there, or be recomputable).
    ValueRange yielded;
    if (!yieldInto.empty())
      yielded = block.getTerminator()->getOperands();
    return runForEachThread(segment, blockLevel, yielded, yieldInto);
  }

  LogicalResult run() {
    Region &body = launch.getBody();
    if (!body.hasOneBlock() || launch.getAsyncToken() || launch.getDynamicSharedMemorySize())
      return launch.emitError("infc-gpu-launch-to-loops: only synchronous single-block "
                              "launches without dynamic shared memory run on the CPU");
    zero = index(0);
    one = index(1);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    blockZ = block.z;
    blockY = block.y;
    blockX = block.x;
    IRMapping mapping;
    gpu::KernelDim3 gridSize = launch.getGridSize(), blockSize = launch.getBlockSize();
    mapping.map(gridSize.x, grid.x);
    mapping.map(gridSize.y, grid.y);
    mapping.map(gridSize.z, grid.z);
    mapping.map(blockSize.x, block.x);
    mapping.map(blockSize.y, block.y);
    mapping.map(blockSize.z, block.z);
    // Shared memory: one buffer the blocks use in turn; private memory: one per thread.
    SmallVector<Value> blockMemory; // both, poisoned at each block's start with raceCheck
    for (BlockArgument attribution : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(attribution.getType());
      blockMemory.push_back(memref::AllocaOp::create(
          b, loc, MemRefType::get(type.getShape(), type.getElementType())));
      mapping.map(attribution, blockMemory.back());
    }
    threadCount =
        arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, block.z, block.y), block.x);
    for (BlockArgument attribution : launch.getPrivateAttributions()) {
      auto type = cast<MemRefType>(attribution.getType());
      privates.push_back({attribution, perThreadBuffer(type.getShape(), type.getElementType())});
      blockMemory.push_back(privates.back().second);
    }
    // Outermost first: block z, y, x; then the threads, per segment between barriers.
    Value bounds[3] = {grid.z, grid.y, grid.x};
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    Value ids[3] = {blockIds.z, blockIds.y, blockIds.x};
    {
      OpBuilder::InsertionGuard guard(b);
      for (int i = 0; i < 3; ++i) {
        auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        mapping.map(ids[i], orderedId(loop.getInductionVar(), bounds[i]));
      }
      // What a block reads of its shared or private memory before writing it would be
      // another block's leftovers here, garbage on a GPU: poisoned, it shows in the outputs.
      if (raceCheck)
        for (Value memory : blockMemory)
          poison(memory);
      if (failed(emitBlock(body.front(), mapping)))
        return failure();
    }
    for (Value buffer : buffers) // the private and loop-value buffers
      memref::DeallocOp::create(b, loc, buffer);
    launch.erase();
    return success();
  }
};

struct InfcGpuLaunchToLoopsPass
    : public infc::impl::InfcGpuLaunchToLoopsBase<InfcGpuLaunchToLoopsPass> {
  using InfcGpuLaunchToLoopsBase::InfcGpuLaunchToLoopsBase;
  void runOnOperation() override {
    if (raceCheck)
      poisonWorkspace();
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
    for (gpu::LaunchOp launch : launches)
      if (failed(Emulation(launch, raceCheck).run()))
        return signalPassFailure();
    if (raceCheck)
      checkVectorAccesses();
  }

  /// Asserts before every 1-D vector.load and vector.store that its elements lie inside
  /// the footprint of its memref (static layouts): the staging's chunks may run across
  /// the innermost dimension, so the check is on the linear offset, not per dimension (a
  /// vector over the gap between rows of a strided view passes; it stays in the buffer).
  /// (Upstream's runtime verification, which the pipeline adds, covers memref ops only.)
  /// Past the footprint, a GPU faults or reads another buffer; the CPU reads on.
  void checkVectorAccesses() {
    SmallVector<Operation *> accesses;
    getOperation().walk([&](Operation *op) {
      if (isa<vector::LoadOp, vector::StoreOp>(op))
        accesses.push_back(op);
    });
    for (Operation *op : accesses) {
      auto load = dyn_cast<vector::LoadOp>(op);
      auto store = dyn_cast<vector::StoreOp>(op);
      Value memref = load ? load.getBase() : store.getBase();
      ValueRange indices = load ? load.getIndices() : store.getIndices();
      VectorType vectorType = load ? load.getVectorType() : store.getVectorType();
      auto type = cast<MemRefType>(memref.getType());
      SmallVector<int64_t> strides;
      int64_t offset;
      if (vectorType.getRank() != 1 || isa<VectorType>(type.getElementType()) ||
          !type.hasStaticShape() || type.getNumElements() == 0 ||
          failed(type.getStridesAndOffset(strides, offset)) ||
          llvm::any_of(strides, ShapedType::isDynamic) || strides.empty())
        continue;
      // The largest offset from the view's start in the view, and the largest the
      // vector's first element may have so that its last one is inside.
      int64_t footprint = 0;
      for (auto [size, stride] : llvm::zip(type.getShape(), strides))
        footprint += (size - 1) * stride;
      int64_t lastFirst = footprint - (vectorType.getNumElements() - 1) * strides.back();
      Location loc = op->getLoc();
      OpBuilder b(op);
      auto constant = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
      Value inside;
      if (lastFirst < 0) {
        inside = arith::ConstantIntOp::create(b, loc, 0, 1); // the vector never fits
      } else {
        Value first = constant(0);
        for (auto [index, stride] : llvm::zip(indices, strides))
          first = arith::AddIOp::create(b, loc, first,
                                        arith::MulIOp::create(b, loc, index, constant(stride)));
        // Unsigned: a first offset before the view's start is as wrong as one past its end.
        inside =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, first, constant(lastFirst));
      }
      std::string message;
      llvm::raw_string_ostream os(message);
      os << "infc emulator: " << op->getName() << " of " << vectorType << " past the end of "
         << type << " at " << loc;
      cf::AssertOp::create(b, loc, inside, message);
    }
  }

  /// Fills the workspace (the entry's `infc.workspace` argument) with the bytes 0xFF when
  /// a run starts (a NaN in every float type, -1 in every integer one): a kernel that reads
  /// a buffer of it before any kernel of the run wrote it reads what the last run or the
  /// allocator left there, on a GPU too.
  void poisonWorkspace() {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!func.getArgAttr(arg.getArgNumber(), "infc.workspace") || !type || type.getRank() != 1 ||
          !type.hasStaticShape() || !type.getElementType().isInteger(8))
        continue;
      Location loc = func.getLoc();
      auto b = OpBuilder::atBlockBegin(&func.getBody().front());
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value size = arith::ConstantIndexOp::create(b, loc, type.getDimSize(0));
      Value ones = arith::ConstantIntOp::create(b, loc, 0xFF, 8);
      auto loop = scf::ForOp::create(b, loc, zero, size, one);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      memref::StoreOp::create(b, loc, ones, arg, loop.getInductionVar());
    }
  }
};
} // namespace
