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

} // namespace infc::cwriter
