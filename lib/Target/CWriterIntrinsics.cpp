//===- CWriterIntrinsics.cpp - the LLVM intrinsics of a model in C --------===//
//
// CWriter::intrinsic: each intrinsic the pipeline's IR uses as a C expression, a lane
// loop or a libc call; false for one C output cannot print (the caller names it).
//
//===----------------------------------------------------------------------===//
#include "CWriter.h"

#include "llvm/IR/IntrinsicInst.h"

namespace infc::cwriter {

bool CWriter::intrinsic(CallInst &c, Intrinsic::ID id) {
  Type *t = c.getType();
  Type *e = t->getScalarType();
  std::string r = name(&c);
  auto arg = [&](unsigned k) { return value(c.getArgOperand(k)); };
  bool isFloat = e->isFloatTy();
  auto libm = [&](const char *base) { return std::string(base) + (isFloat ? "f" : ""); };
  auto unaryMath = [&](const char *base) {
    if (t->isVectorTy())
      laneLoop(c, [&](const std::string &k) { return libm(base) + "(" + arg(0) + "[" + k + "])"; });
    else
      line(r + " = " + libm(base) + "(" + arg(0) + ");");
    return true;
  };
  auto binaryMath = [&](const char *base) {
    if (t->isVectorTy())
      laneLoop(c, [&](const std::string &k) {
        return libm(base) + "(" + arg(0) + "[" + k + "], " + arg(1) + "[" + k + "])";
      });
    else
      line(r + " = " + libm(base) + "(" + arg(0) + ", " + arg(1) + ");");
    return true;
  };
  // A lane select by a mask of the operands' width: `m ? a : b`.
  auto blend = [&](const std::string &mask, const std::string &a, const std::string &b) {
    blendLanes(t, r, mask, a, b);
  };
  // Arithmetic intrinsics on the types held as bits (f16, bf16, i2, i4, masks): refused.
  auto heldAsBits = [&](Type *x) {
    Type *xe = x->getScalarType();
    return xe->isHalfTy() || xe->isBFloatTy() || oddWidth(xe) || isMask(x);
  };
  bool memoryOrNothing = id == Intrinsic::memcpy || id == Intrinsic::memmove ||
                         id == Intrinsic::memset || id == Intrinsic::prefetch ||
                         id == Intrinsic::masked_load || id == Intrinsic::masked_store ||
                         id == Intrinsic::masked_gather || id == Intrinsic::masked_scatter ||
                         t->isVoidTy() || t->isPointerTy();
  if (!memoryOrNothing &&
      (heldAsBits(t) || (c.arg_size() && heldAsBits(c.getArgOperand(0)->getType()))))
    return false;
  switch (id) {
  case Intrinsic::fmuladd:
    line(r + " = " + arg(0) + " * " + arg(1) + " + " + arg(2) + ";");
    return true;
  case Intrinsic::fma:
    if (t->isVectorTy())
      line("INFC_VFMA(" + r + ", " + arg(0) + ", " + arg(1) + ", " + arg(2) + ", " +
           std::to_string(lanes(t)) + ", " + libm("fma") + ");");
    else
      line(r + " = " + libm("fma") + "(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ");");
    return true;
  case Intrinsic::maximum:
  case Intrinsic::minimum: {
    // NaN if either is; +0 above -0.
    bool max = id == Intrinsic::maximum;
    std::string a = arg(0), b = arg(1);
    if (!t->isVectorTy()) {
      line(r + " = infc_" + (max ? "maximum" : "minimum") + (isFloat ? "f" : "") + "(" + a + ", " +
           b + ");");
      return true;
    }
    std::string I = laneIntType(t);
    std::string mask = "(" + a + (max ? " > " : " < ") + b + ") | (" + a + " != " + a + ") | ((" +
                       a + " == " + b + ") & ((" + I + ")" + (max ? b : a) + " < 0))";
    blend(mask, a, b);
    return true;
  }
  case Intrinsic::maxnum:
  case Intrinsic::minnum: {
    bool max = id == Intrinsic::maxnum;
    if (!t->isVectorTy())
      return binaryMath(max ? "fmax" : "fmin"), true;
    std::string a = arg(0), b = arg(1);
    blend("(" + a + (max ? " > " : " < ") + b + ") | (" + b + " != " + b + ")", a, b);
    return true;
  }
  case Intrinsic::umin:
  case Intrinsic::umax:
  case Intrinsic::smin:
  case Intrinsic::smax: {
    bool isSigned = id == Intrinsic::smin || id == Intrinsic::smax;
    const char *sym = id == Intrinsic::umin || id == Intrinsic::smin ? " < " : " > ";
    std::string cast = isSigned ? "(" + type(t, true) + ")" : "";
    std::string a = arg(0), b = arg(1);
    if (t->isVectorTy())
      blend(cast + a + sym + cast + b, a, b);
    else
      line(r + " = " + cast + a + sym + cast + b + " ? " + a + " : " + b + ";");
    return true;
  }
  case Intrinsic::abs:
    if (t->isVectorTy())
      laneLoop(c, [&](const std::string &k) {
        std::string x = arg(0) + "[" + k + "]";
        return "(" + type(e, true) + ")" + x + " < 0 ? (" + type(e) + ")(0u - " + x + ") : " + x;
      });
    else
      line(r + " = (" + type(t, true) + ")" + arg(0) + " < 0 ? (" + type(t) + ")(0u - " + arg(0) +
           ") : " + arg(0) + ";");
    return true;
  case Intrinsic::floor:
    return unaryMath("floor");
  case Intrinsic::ceil:
    return unaryMath("ceil");
  case Intrinsic::trunc:
    return unaryMath("trunc");
  case Intrinsic::round:
    return unaryMath("round");
  case Intrinsic::roundeven: // in the default rounding mode, to nearest even
  case Intrinsic::nearbyint:
    return unaryMath("nearbyint");
  case Intrinsic::rint:
    return unaryMath("rint");
  case Intrinsic::sqrt:
    return unaryMath("sqrt");
  case Intrinsic::fabs:
    return unaryMath("fabs");
  case Intrinsic::exp:
    return unaryMath("exp");
  case Intrinsic::exp2:
    return unaryMath("exp2");
  case Intrinsic::log:
    return unaryMath("log");
  case Intrinsic::log2:
    return unaryMath("log2");
  case Intrinsic::log10:
    return unaryMath("log10");
  case Intrinsic::sin:
    return unaryMath("sin");
  case Intrinsic::cos:
    return unaryMath("cos");
  case Intrinsic::tan:
    return unaryMath("tan");
  case Intrinsic::tanh:
    return unaryMath("tanh");
  case Intrinsic::asin:
    return unaryMath("asin");
  case Intrinsic::acos:
    return unaryMath("acos");
  case Intrinsic::atan:
    return unaryMath("atan");
  case Intrinsic::sinh:
    return unaryMath("sinh");
  case Intrinsic::cosh:
    return unaryMath("cosh");
  case Intrinsic::atan2:
    return binaryMath("atan2");
  case Intrinsic::pow:
    return binaryMath("pow");
  case Intrinsic::copysign:
    return binaryMath("copysign");
  case Intrinsic::prefetch:
    line("__builtin_prefetch(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ");");
    return true;
  case Intrinsic::memcpy:
  case Intrinsic::memmove:
  case Intrinsic::memset:
    line(std::string(id == Intrinsic::memcpy    ? "memcpy("
                     : id == Intrinsic::memmove ? "memmove("
                                                : "memset(") +
         arg(0) + ", " + (id == Intrinsic::memset ? "(int)" : "") + arg(1) + ", (size_t)" + arg(2) +
         ");");
    return true;
  case Intrinsic::lifetime_start:
  case Intrinsic::lifetime_end:
  case Intrinsic::assume:
  case Intrinsic::experimental_noalias_scope_decl:
  case Intrinsic::donothing:
  case Intrinsic::stackrestore:
  case Intrinsic::dbg_declare:
  case Intrinsic::dbg_value:
  case Intrinsic::dbg_label:
    return true;
  case Intrinsic::stacksave:
    if (!r.empty())
      line(r + " = (uint8_t *)0;");
    return true;
  case Intrinsic::vector_reduce_fadd:
  case Intrinsic::vector_reduce_fmul: {
    // In lane order from the start value (LLVM's order without reassoc).
    std::string v = arg(1), sym = id == Intrinsic::vector_reduce_fadd ? " + " : " * ";
    line(r + " = " + arg(0) + ";");
    line("for (int k = 0; k < " + std::to_string(lanes(c.getArgOperand(1)->getType())) + "; ++k) " +
         r + " = " + r + sym + v + "[k];");
    return true;
  }
  case Intrinsic::vector_reduce_add:
  case Intrinsic::vector_reduce_fmax:
  case Intrinsic::vector_reduce_fmin:
  case Intrinsic::vector_reduce_fmaximum:
  case Intrinsic::vector_reduce_fminimum: {
    std::string v = arg(0);
    std::string step =
        id == Intrinsic::vector_reduce_add    ? r + " + " + v + "[k]"
        : id == Intrinsic::vector_reduce_fmax ? libm("fmax") + "(" + r + ", " + v + "[k])"
        : id == Intrinsic::vector_reduce_fmin ? libm("fmin") + "(" + r + ", " + v + "[k])"
        : id == Intrinsic::vector_reduce_fmaximum
            ? std::string("infc_maximum") + (isFloat ? "f" : "") + "(" + r + ", " + v + "[k])"
            : std::string("infc_minimum") + (isFloat ? "f" : "") + "(" + r + ", " + v + "[k])";
    line(r + " = " + v + "[0];");
    line("for (int k = 1; k < " + std::to_string(lanes(c.getArgOperand(0)->getType())) + "; ++k) " +
         r + " = " + step + ";");
    return true;
  }
  case Intrinsic::masked_gather:
  case Intrinsic::masked_scatter:
  case Intrinsic::masked_load:
  case Intrinsic::masked_store: {
    // Lane by lane, only the lanes the mask selects: from or to a pointer's consecutive
    // lanes (load, store) or each lane's own address (gather, scatter).
    bool reads = id == Intrinsic::masked_load || id == Intrinsic::masked_gather;
    bool perLane = id == Intrinsic::masked_gather || id == Intrinsic::masked_scatter;
    // (load/gather: pointers, [align,] mask, passthru; store/scatter: value, pointers, ...)
    Value *ptr = c.getArgOperand(reads ? 0 : 1), *mask = nullptr,
          *other = reads ? c.getArgOperand(c.arg_size() - 1) : c.getArgOperand(0);
    for (Value *op : c.args())
      if (isMask(op->getType()))
        mask = op;
    if (!mask || !other->getType()->isVectorTy())
      return false;
    Type *vt = other->getType();
    std::string size = std::to_string(dl.getTypeStoreSize(vt->getScalarType()));
    std::string p = perLane ? "(uint8_t *)(uintptr_t)" + value(ptr) + "[k]"
                            : value(ptr) + " + k * " + size,
                mk = value(mask), o = value(other);
    if (reads)
      line(r + " = " + o + ";");
    line("for (int k = 0; k < " + std::to_string(lanes(vt)) + "; ++k) if (" + mk + "[k]) " +
         (reads ? "memcpy((uint8_t *)&" + r + " + k * " + size + ", " + p + ", " + size + ");"
                : "{ " + type(vt->getScalarType()) + " infc_e = " + o + "[k]; memcpy(" + p +
                      ", &infc_e, " + size + "); }"));
    return true;
  }
  default:
    return false;
  }
}

/// CUDA mode: the NVVM intrinsics the kernels use, as CUDA's built-in variables and
/// functions, or calls of device helpers (defined once each, before the types) that run the
/// one PTX instruction each stands for. Built with -DINFC_CUDA_EMULATION, a helper calls
/// the emulation's function instead (test/e2e/cuda_emulation.h runs the kernels on a CPU).
bool CWriter::nvvmIntrinsic(CallInst &c, StringRef intrinsicName) {
  std::string r = name(&c);
  auto arg = [&](unsigned k) { return value(c.getArgOperand(k)); };
  auto helper = [&](const std::string &fn, const std::string &definition) {
    if (definedHelpers.insert(fn).second)
      cudaHelpers += definition;
  };
  StringRef n = intrinsicName;
  n.consume_front("llvm.nvvm.");
  if (n.consume_front("read.ptx.sreg.")) {
    static const StringMap<const char *> registers = {
        {"tid", "threadIdx"}, {"ntid", "blockDim"}, {"ctaid", "blockIdx"}, {"nctaid", "gridDim"}};
    auto [reg, dim] = n.split('.');
    auto it = registers.find(reg);
    if (it == registers.end() || (dim != "x" && dim != "y" && dim != "z"))
      return false;
    if (!r.empty())
      line(r + " = (uint32_t)" + it->second + "." + dim.str() + ";");
    return true;
  }
  if (n == "barrier0" || n == "barrier.cta.sync.aligned.all") {
    auto *id = c.arg_size() ? dyn_cast<ConstantInt>(c.getArgOperand(0)) : nullptr;
    if (!id || !id->isZero())
      return false; // (the kernels synchronize whole blocks only)
    line("__syncthreads();");
    return true;
  }
  // shfl.sync.{bfly,idx,up,down}.{f32,i32}(mask, value, lane or offset, clamp)
  if (n.consume_front("shfl.sync.")) {
    auto [mode, kind] = n.split('.');
    if (!(mode == "bfly" || mode == "idx" || mode == "up" || mode == "down") ||
        !(kind == "f32" || kind == "i32") || r.empty())
      return false;
    std::string T = kind == "f32" ? "float" : "uint32_t", reg = kind == "f32" ? "f" : "r";
    std::string fn = "infc_shfl_sync_" + mode.str() + "_" + kind.str();
    helper(fn, "INFC_HELPER " + T + " " + fn + "(uint32_t mask, " + T +
                   " v, uint32_t lane, uint32_t clamp) {\n#ifdef INFC_CUDA_EMULATION\n  " + T +
                   " r;\n  infc_emulate_shfl(\"" + mode.str() +
                   "\", mask, &v, &r, lane, clamp);\n#else\n  " + T +
                   " r;\n  asm volatile(\"shfl.sync." + mode.str() +
                   ".b32 %0, %1, %2, %3, %4;\" : \"=" + reg + "\"(r) : \"" + reg +
                   "\"(v), \"r\"(lane), \"r\"(clamp), \"r\"(mask));\n#endif\n  return r;\n}\n");
    line(r + " = " + fn + "(" + arg(0) + ", " + arg(1) + ", " + arg(2) + ", " + arg(3) + ");");
    return true;
  }
  // ldmatrix.sync.aligned.m8n8.x4[.trans].b16[.p3](shared pointer): {i32 x 4}
  if (n.consume_front("ldmatrix.sync.aligned.m8n8.x4.")) {
    n.consume_back(".p3");
    bool trans = n.consume_front("trans.");
    auto *result = dyn_cast<StructType>(c.getType());
    if (n != "b16" || r.empty() || !result || result->getNumElements() != 4)
      return false;
    std::string fn = std::string("infc_ldmatrix_x4") + (trans ? "_trans" : "");
    helper(fn, "INFC_HELPER void " + fn +
                   "(uint32_t *r, const void *p) {\n#ifdef INFC_CUDA_EMULATION\n"
                   "  infc_emulate_ldmatrix_x4(" +
                   (trans ? "1" : "0") +
                   ", r, p);\n#else\n  asm volatile(\"ldmatrix.sync.aligned.m8n8.x4" +
                   (trans ? ".trans" : "") +
                   ".shared.b16 {%0,%1,%2,%3}, [%4];\" : \"=r\"(r[0]), \"=r\"(r[1]), "
                   "\"=r\"(r[2]), \"=r\"(r[3]) : \"r\"((uint32_t)__cvta_generic_to_shared(p)));"
                   "\n#endif\n}\n");
    line("{ uint32_t infc_r[4]; " + fn + "(infc_r, " + arg(0) + "); " + r + ".f0 = infc_r[0]; " +
         r + ".f1 = infc_r[1]; " + r + ".f2 = infc_r[2]; " + r + ".f3 = infc_r[3]; }");
    return true;
  }
  // mma.<shape>.row.col[.satfinite].<types>(A..., B..., C...): {D...}, one mma.sync. The
  // name's types: f16 operands name D and C (f32.f32), the others A and B (bf16, tf32; s8.u8
  // with s32 sums).
  if (n.consume_front("mma.")) {
    SmallVector<StringRef> parts;
    n.split(parts, '.');
    auto *result = dyn_cast<StructType>(c.getType());
    if (parts.size() < 4 || parts[1] != "row" || parts[2] != "col" || !result || r.empty())
      return false;
    StringRef shape = parts[0];
    bool satfinite = parts[3] == "satfinite";
    ArrayRef<StringRef> types = ArrayRef(parts).drop_front(satfinite ? 4 : 3);
    std::string ptxTypes; // D.A.B.C
    Type *a0 = c.getArgOperand(0)->getType();
    bool f16 = a0->isVectorTy() && a0->getScalarType()->isHalfTy();
    if (f16 && types.size() == 2)
      ptxTypes = types[0].str() + ".f16.f16." + types[1].str();
    else if (types.size() == 1 && (types[0] == "bf16" || types[0] == "tf32"))
      ptxTypes = "f32." + types[0].str() + "." + types[0].str() + ".f32";
    else if (types.size() == 2 && types[0].size() == 2 && types[1].size() == 2) // s8.u8
      ptxTypes = "s32." + types[0].str() + "." + types[1].str() + ".s32";
    else
      return false;
    unsigned d = result->getNumElements(), ab = c.arg_size() - d;
    if (c.arg_size() <= d || ab % 3)
      return false;
    unsigned a = ab / 3 * 2, b = ab / 3;
    bool floatSums = result->getElementType(0)->isFloatTy();
    std::string S = floatSums ? "float" : "uint32_t", reg = floatSums ? "f" : "r";
    std::string op = "mma.sync.aligned." + shape.str() + ".row.col" +
                     (satfinite ? ".satfinite." : ".") + ptxTypes;
    std::string fn = "infc_" + op;
    for (char &ch : fn)
      if (ch == '.')
        ch = '_';
    std::string operands, outs, ins;
    unsigned k = 0;
    auto group = [&](unsigned count) {
      std::string g = "{";
      for (unsigned j = 0; j < count; ++j)
        g += (j ? ",%" : "%") + std::to_string(k++);
      return g + "}";
    };
    operands = group(d) + ", " + group(a) + ", " + group(b) + ", " + group(d);
    for (unsigned j = 0; j < d; ++j)
      outs += (j ? ", \"=" : "\"=") + reg + "\"(d[" + std::to_string(j) + "])";
    for (unsigned j = 0; j < a + b; ++j)
      ins += (j ? ", \"r\"(ab[" : "\"r\"(ab[") + std::to_string(j) + "])";
    for (unsigned j = 0; j < d; ++j)
      ins += ", \"" + reg + "\"(c[" + std::to_string(j) + "])";
    helper(fn, "INFC_HELPER void " + fn + "(" + S + " *d, const uint32_t *ab, const " + S +
                   " *c) {\n#ifdef INFC_CUDA_EMULATION\n  infc_emulate_mma(\"" + shape.str() +
                   "\", \"" + ptxTypes + "\", " + (satfinite ? "1" : "0") +
                   ", d, ab, c);\n#else\n  asm volatile(\"" + op + " " + operands +
                   ";\" : " + outs + " : " + ins + ");\n#endif\n}\n");
    // A and B are 32-bit registers whatever their IR type (<2 x half>: two halves).
    std::string packs, sums;
    for (unsigned j = 0; j < a + b; ++j) {
      Value *v = c.getArgOperand(j);
      if (dl.getTypeStoreSize(v->getType()) != 4)
        return false;
      std::string slot = "&infc_ab[" + std::to_string(j) + "]";
      packs += isa<Constant>(v) ? " { " + type(v->getType()) + " infc_c = " + value(v) +
                                      "; memcpy(" + slot + ", &infc_c, 4); }"
                                : " memcpy(" + slot + ", &" + value(v) + ", 4);";
    }
    for (unsigned j = 0; j < d; ++j)
      sums += (j ? ", " : "") + arg(a + b + j);
    line("{ uint32_t infc_ab[" + std::to_string(a + b) + "];" + packs);
    line("  " + S + " infc_c[" + std::to_string(d) + "] = {" + sums + "}, infc_d[" +
         std::to_string(d) + "];");
    std::string store;
    for (unsigned j = 0; j < d; ++j)
      store += " " + r + ".f" + std::to_string(j) + " = infc_d[" + std::to_string(j) + "];";
    line("  " + fn + "(infc_d, infc_ab, infc_c);" + store + " }");
    return true;
  }
  return false;
}

} // namespace infc::cwriter
