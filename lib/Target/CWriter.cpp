//===- CWriter.cpp - a model's LLVM IR as one C translation unit ----------===//
//
// `infc compile --emit=c` prints the model as the pipeline left it, before LLVM optimizes
// it: the same register tiles, packed weights, memory plan and parallel regions as the .so,
// written as C99 with the GNU vector extensions gcc and clang share (`vector_size`,
// `__builtin_shufflevector`, `__builtin_convertvector`). No intrinsics: a vector is a C
// vector type, which the C compiler maps to the SIMD registers of whatever CPU it targets.
//
// The translation is instruction by instruction. Every LLVM value is a C variable declared
// at the top of its function; blocks are labels, branches gotos; a phi is a variable its
// predecessors assign (through `<name>_in`, so phis of one block read the old values).
// Integers are unsigned C types (signed casts where an instruction is signed); a pointer
// is `uint8_t *`; an <N x T> vector is T[P] with P = N rounded up to a power of two (the
// lanes past N are never stored); <N x i1> is int32 lanes of 0 or -1, as vector compares
// give them. Loads and stores are memcpy of the store size (no aliasing or alignment
// assumptions beyond LLVM's: the model's IR carries no TBAA either).
//
//===----------------------------------------------------------------------===//
#include "CWriter.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace infc::cwriter {
namespace {
/// The functions of <math.h> and <string.h> the model's IR may call: declared by those
/// headers, never by the printed prototypes (which would clash with theirs).
const StringSet<> kLibcFunctions = {
    "memcpy", "memmove",    "memset", "expf",   "exp",       "exp2f",   "logf",   "log",
    "log2f",  "log10f",     "log1pf", "expm1f", "sqrtf",     "sqrt",    "powf",   "pow",
    "tanhf",  "tanh",       "sinf",   "cosf",   "tanf",      "asinf",   "acosf",  "atanf",
    "atan2f", "sinhf",      "coshf",  "asinhf", "acoshf",    "atanhf",  "erff",   "erf",
    "erfcf",  "cbrtf",      "fmodf",  "fmod",   "floorf",    "ceilf",   "roundf", "truncf",
    "rintf",  "nearbyintf", "fabsf",  "fabs",   "copysignf", "fmaf",    "fma",    "fmaxf",
    "fminf",  "sin",        "cos",    "log2",   "log10",     "expm1",   "log1p",  "atan",
    "atan2",  "floor",      "ceil",   "round",  "trunc",     "tgammaf", "lgammaf"};
} // namespace

std::string CWriter::globalName(const GlobalValue *g) {
  auto it = globalNames.find(g);
  if (it != globalNames.end())
    return it->second;
  std::string n;
  for (char c : g->getName())
    n += isAlnum(c) || c == '_' ? c : '_';
  // Never a C keyword's, the prelude's or a local's name (v0, v0_in, v0_mem, a0, L0, k).
  static const StringSet<> reserved = {
      "auto",     "break",  "case",   "char",     "const",    "continue", "default",  "do",
      "double",   "else",   "enum",   "extern",   "float",    "for",      "goto",     "if",
      "inline",   "int",    "long",   "register", "restrict", "return",   "short",    "signed",
      "sizeof",   "static", "struct", "switch",   "typedef",  "union",    "unsigned", "void",
      "volatile", "while",  "k",      "main",     "memcpy",   "memset",   "memmove"};
  StringRef local = StringRef(n);
  local.consume_back("_in") || local.consume_back("_mem");
  // (An external symbol keeps its name: libc's, libm's, the runtime's.)
  if (n.empty() || isDigit(n[0]) ||
      (g->hasLocalLinkage() && (reserved.contains(n) || StringRef(n).starts_with("infc_t") ||
                                StringRef(n).starts_with("infc_v") ||
                                (local.size() > 1 && StringRef("vaL").contains(local[0]) &&
                                 llvm::all_of(local.drop_front(), isDigit)))))
    n = "g_" + n;
  // The runtime's OpenMP entry points under names of their own, so a program that links
  // libgomp or libomp beside the model keeps that library's (CSource.cpp renames the
  // runtime's definitions alike).
  if (!g->hasLocalLinkage() && StringRef(n).starts_with("__kmpc_"))
    n = "infc" + n;
  // Symbols other objects see keep their names; local ones are made unique.
  if (!g->hasLocalLinkage() && n == g->getName()) {
    usedGlobalNames.insert(n);
    return globalNames[g] = n;
  }
  std::string unique = n;
  for (unsigned k = 1; !usedGlobalNames.insert(unique).second; ++k)
    unique = n + "_" + std::to_string(k);
  return globalNames[g] = unique;
}

std::string CWriter::type(Type *t, bool isSigned) {
  if (auto *v = dyn_cast<FixedVectorType>(t))
    return vectorType(v, isSigned);
  auto it = typeNames[isSigned].find(t);
  if (it != typeNames[isSigned].end())
    return it->second;
  std::string n;
  if (t->isVoidTy()) {
    n = "void";
  } else if (auto *i = dyn_cast<IntegerType>(t)) {
    switch (i->getBitWidth()) {
    case 1:
    case 8:
      n = isSigned ? "int8_t" : "uint8_t";
      break;
    case 16:
      n = isSigned ? "int16_t" : "uint16_t";
      break;
    case 32:
      n = isSigned ? "int32_t" : "uint32_t";
      break;
    case 64:
      n = isSigned ? "int64_t" : "uint64_t";
      break;
    case 128:
      n = isSigned ? "__int128" : "unsigned __int128";
      break;
    default: // i2, i4, i33, ...: the next C width, kept zero-extended (see oddWidth)
      if (i->getBitWidth() > 64) {
        fail("C output: no C type for i" + Twine(i->getBitWidth()));
        n = "uint64_t";
        break;
      }
      n = type(IntegerType::get(m.getContext(), containerBits(i->getBitWidth())), isSigned);
    }
  } else if (t->isHalfTy() || t->isBFloatTy()) {
    n = "uint16_t"; // the bits; arithmetic happens in f32 (fpext/fptrunc)
  } else if (t->isFloatTy()) {
    n = "float";
  } else if (t->isDoubleTy()) {
    n = "double";
  } else if (t->isPointerTy()) {
    n = "uint8_t *";
  } else if (auto *a = dyn_cast<ArrayType>(t)) {
    std::string element = type(a->getElementType());
    n = "infc_t" + std::to_string(numTypes++);
    typedefs += "typedef struct { " + element + " a[" +
                std::to_string(std::max<uint64_t>(1, a->getNumElements())) + "]; } " + n + ";\n";
  } else if (auto *s = dyn_cast<StructType>(t)) {
    if (s->isPacked() || s->isOpaque())
      fail("C output: a packed or opaque struct type");
    std::string fields;
    for (auto [k, e] : llvm::enumerate(s->elements()))
      fields += type(e) + " f" + std::to_string(k) + "; ";
    n = "infc_t" + std::to_string(numTypes++);
    typedefs += "typedef struct { " + (fields.empty() ? std::string("char f0; ") : fields) + "} " +
                n + ";\n";
  } else {
    std::string text;
    raw_string_ostream(text) << *t;
    fail("C output: no C type for " + text);
    n = "void";
  }
  return typeNames[isSigned][t] = n;
}

std::string CWriter::vectorType(VectorType *vt, bool isSigned) {
  auto it = typeNames[isSigned].find(vt);
  if (it != typeNames[isSigned].end())
    return it->second;
  auto *t = cast<FixedVectorType>(vt);
  Type *e = t->getElementType();
  std::string element;
  unsigned bytes;
  if (e->isIntegerTy(1)) {
    element = "int32_t";
    bytes = 4;
  } else if (e->isPointerTy()) { // addresses as 64-bit lanes (64-bit targets)
    element = isSigned ? "int64_t" : "uint64_t";
    bytes = 8;
  } else if (oddWidth(e)) {
    fail("C output: a vector of i" + Twine(e->getIntegerBitWidth()));
    return "void";
  } else if (!(e->isIntegerTy() || e->isFloatingPointTy())) {
    fail("C output: a vector of a non-number");
    return "void";
  } else {
    element = type(e, isSigned);
    bytes = e->getPrimitiveSizeInBits() / 8;
  }
  unsigned padded = PowerOf2Ceil(t->getNumElements());
  std::string n = "infc_v" + std::to_string(padded) + (isSigned ? "s" : "") +
                  (e->isIntegerTy(1)  ? std::string("m")
                   : e->isPointerTy() ? std::string("p")
                   : e->isHalfTy()    ? std::string("h")
                   : e->isBFloatTy()  ? std::string("b")
                   : e->isFloatTy()   ? std::string("f32")
                   : e->isDoubleTy()  ? std::string("f64")
                                      : "i" + std::to_string(e->getIntegerBitWidth()));
  if (options.cuda) // lanes of a struct (nvcc's device code has no vector types)
    typedefs += "struct __align__(" + std::to_string(std::min(16u, padded * bytes)) + ") " + n +
                " {\n  " + element + " v[" + std::to_string(padded) + "];\n  __device__ " +
                element + " &operator[](unsigned k) { return v[k]; }\n  __device__ const " +
                element + " &operator[](unsigned k) const { return v[k]; }\n};\n";
  else
    typedefs += "typedef " + element + " " + n + " __attribute__((vector_size(" +
                std::to_string(padded * bytes) + ")));\n";
  return typeNames[isSigned][vt] = n;
}

std::string CWriter::floatLiteral(const APFloat &f, Type *t, bool initializer) {
  bool isFloat = t->isFloatTy();
  if (t->isHalfTy() || t->isBFloatTy())
    return "((uint16_t)" + hex(f.bitcastToAPInt().getZExtValue()) + ")";
  if (f.isInfinity())
    return std::string(f.isNegative() ? "-" : "") +
           (isFloat ? "__builtin_inff()" : "__builtin_inf()");
  if (f.isNaN()) {
    if (initializer) // a constant expression; the payload is lost
      return std::string(f.isNegative() ? "-" : "") +
             (isFloat ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")");
    return std::string(isFloat ? "infc_f32_bits(" : "infc_f64_bits(") +
           hex(f.bitcastToAPInt().getZExtValue()) + ")";
  }
  double d = isFloat ? (double)f.convertToFloat() : f.convertToDouble();
  char text[64];
  snprintf(text, sizeof text, "%a", d);
  return std::string(text) + (isFloat ? "f" : "");
}

std::string CWriter::constant(Constant *c, bool initializer) {
  Type *t = c->getType();
  if (auto *g = dyn_cast<GlobalValue>(c)) {
    auto w = weightOffset.find(g->getName());
    if (w != weightOffset.end()) {
      if (options.weightsFromFile && options.weightsArray)
        return "(infc__wstore + " + std::to_string(w->second) + ")";
      if (options.weightsFromFile) {
        if (initializer)
          fail("C output: a weight's address in a constant initializer");
        return "(infc__wbase + " + std::to_string(w->second) + ")";
      }
      return "((uint8_t *)" + globalName(g) + ")";
    }
    return "((uint8_t *)&" + globalName(g) + ")";
  }
  if (isa<UndefValue>(c) || isa<ConstantAggregateZero>(c) || isa<ConstantPointerNull>(c) ||
      isa<ConstantTokenNone>(c)) {
    if (t->isPointerTy())
      return "((uint8_t *)0)";
    if (t->isIntegerTy() || t->isFloatingPointTy())
      return t->isHalfTy() || t->isBFloatTy() ? "((uint16_t)0)"
             : t->isIntegerTy()               ? "((" + type(t) + ")0)"
                                              : "((" + type(t) + ")0.0)";
    return initializer ? zeroInitializer(t) : compound(type(t), "0");
  }
  if (auto *i = dyn_cast<ConstantInt>(c)) {
    unsigned bits = i->getBitWidth();
    if (bits == 1)
      return i->isZero() ? "0" : "1";
    if (bits == 128) {
      APInt v = i->getValue();
      return "(((unsigned __int128)" + hex(v.lshr(64).getZExtValue()) + "ull << 64) | " +
             hex(v.trunc(64).getZExtValue()) + "ull)";
    }
    uint64_t v = i->getZExtValue();
    if (bits == 64)
      return "UINT64_C(" + hex(v) + ")";
    if (bits == 32)
      return hex(v) + "u";
    return "((" + type(t) + ")" + hex(v) + ")";
  }
  if (auto *f = dyn_cast<ConstantFP>(c))
    return floatLiteral(f->getValueAPF(), t, initializer);
  if (isa<ConstantDataSequential>(c) || isa<ConstantVector>(c) || isa<ConstantArray>(c) ||
      isa<ConstantStruct>(c))
    return aggregate(c, initializer);
  if (auto *e = dyn_cast<ConstantExpr>(c)) {
    if (auto *g = dyn_cast<GEPOperator>(e))
      return gep(g);
    switch (e->getOpcode()) {
    case Instruction::PtrToInt:
      return "((" + type(t) + ")(uintptr_t)" + constant(e->getOperand(0), initializer) + ")";
    case Instruction::IntToPtr:
      return "((uint8_t *)(uintptr_t)" + constant(e->getOperand(0), initializer) + ")";
    case Instruction::BitCast:
      if (t->isPointerTy())
        return constant(e->getOperand(0), initializer);
      break;
    default:
      break;
    }
  }
  std::string s;
  raw_string_ostream(s) << *c;
  fail("C output: cannot print the constant " + StringRef(s).take_front(200));
  return "0";
}

/// A zero initializer braced as the C type nests (gcc's -Wmissing-braces and
/// -Wmissing-field-initializers accept a lone `{0}` only at the top).
std::string CWriter::zeroInitializer(Type *t) {
  if (auto *s = dyn_cast<StructType>(t)) {
    std::string fields;
    for (Type *e : s->elements())
      fields += (fields.empty() ? "" : ", ") + zeroInitializer(e);
    return "{" + (fields.empty() ? std::string("0") : fields) + "}";
  }
  if (auto *a = dyn_cast<ArrayType>(t))
    return "{{" + zeroInitializer(a->getElementType()) + "}}";
  if (t->isVectorTy())
    return "{0}";
  return "0";
}

std::string CWriter::aggregate(Constant *c, bool initializer) {
  Type *t = c->getType();
  std::string elements;
  unsigned n = 0;
  if (auto *s = dyn_cast<ConstantDataSequential>(c))
    n = s->getNumElements();
  else
    n = c->getNumOperands();
  for (unsigned k = 0; k < n; ++k) {
    Constant *e = c->getAggregateElement(k);
    std::string text = constant(e, initializer);
    if (isMask(t)) // an i1 lane: 0 or -1
      text = e->isNullValue() ? "0" : "-1";
    elements += (k ? ", " : "") + text;
  }
  if (t->isArrayTy())
    elements = "{" + elements + "}";
  if (n == 0)
    elements = "0";
  return initializer ? "{" + elements + "}" : compound(type(t), elements);
}

/// `base + offset` in bytes, with C's sizeof and offsetof (the C types' layout is LLVM's
/// for the types the pipeline emits).
std::string CWriter::gep(GEPOperator *g) {
  if (g->getType()->isVectorTy())
    return vectorGep(g);
  // Offsets from a null pointer (MLIR's sizeof idiom) as integers: C has no such pointer
  // arithmetic. Elsewhere offsets stay pointer arithmetic, which the compiler tracks.
  bool fromNull = isa<ConstantPointerNull>(g->getPointerOperand());
  std::string expr = fromNull ? "((uint8_t *)((uintptr_t)0" : "(" + value(g->getPointerOperand());
  for (gep_type_iterator it = gep_type_begin(g), end = gep_type_end(g); it != end; ++it) {
    Value *index = it.getOperand();
    if (StructType *s = it.getStructTypeOrNull()) {
      unsigned field = cast<ConstantInt>(index)->getZExtValue();
      expr += " + offsetof(" + type(s) + ", f" + std::to_string(field) + ")";
      continue;
    }
    if (index->getType()->isVectorTy()) {
      fail("C output: a getelementptr over vectors of pointers");
      break;
    }
    Type *element = it.getIndexedType();
    if (auto *ci = dyn_cast<ConstantInt>(index)) {
      if (ci->isZero())
        continue;
      expr += " + (int64_t)" + std::to_string(ci->getSExtValue()) + " * (int64_t)sizeof(" +
              type(element) + ")";
      continue;
    }
    std::string signedIndex = oddWidth(index->getType())
                                  ? signExtendOdd(index->getType(), value(index))
                                  : "(" + type(index->getType(), true) + ")" + value(index);
    expr += " + (int64_t)" + signedIndex + " * (int64_t)sizeof(" + type(element) + ")";
  }
  return expr + (fromNull ? "))" : ")");
}

/// A getelementptr giving a vector of pointers (a gather's addresses): 64-bit lanes.
std::string CWriter::vectorGep(GEPOperator *g) {
  Value *base = g->getPointerOperand();
  std::string P = type(g->getType());
  std::string expr = base->getType()->isVectorTy()
                         ? "(" + value(base)
                         : "((" + P + "){0} + (uint64_t)(uintptr_t)" + value(base);
  for (gep_type_iterator it = gep_type_begin(g), end = gep_type_end(g); it != end; ++it) {
    Value *index = it.getOperand();
    if (StructType *s = it.getStructTypeOrNull()) {
      unsigned field =
          cast<ConstantInt>(index->getType()->isVectorTy() ? cast<Constant>(index)->getSplatValue()
                                                           : index)
              ->getZExtValue();
      expr += " + (uint64_t)offsetof(" + type(s) + ", f" + std::to_string(field) + ")";
      continue;
    }
    std::string size = "(uint64_t)sizeof(" + type(it.getIndexedType()) + ")";
    if (index->getType()->isVectorTy()) {
      Type *wide =
          FixedVectorType::get(IntegerType::get(m.getContext(), 64), lanes(index->getType()));
      expr += " + (" + P + ")__builtin_convertvector((" + type(index->getType(), true) + ")" +
              value(index) + ", " + type(wide, true) + ") * " + size;
    } else {
      expr += " + (uint64_t)(int64_t)(" + type(index->getType(), true) + ")" + value(index) +
              " * " + size;
    }
  }
  return expr + ")";
}

std::string CWriter::value(Value *v) {
  if (auto *c = dyn_cast<Constant>(v))
    return constant(c);
  std::string n = name(v);
  if (n.empty())
    fail("C output: a value with no name");
  return n;
}

std::string CWriter::prototype(Function &f, bool withNames) {
  std::string params;
  for (Argument &a : f.args())
    params += (a.getArgNo() ? ", " : "") + type(a.getType()) +
              (withNames ? " " + name(&a) : std::string());
  if (f.isVarArg())
    params += f.arg_empty() ? "..." : ", ...";
  if (params.empty())
    params = "void";
  return type(f.getReturnType()) + " " + globalName(&f) + "(" + params + ")";
}

/// A lane loop: `r[k] = lane("a[k]"-style text)` for the real lanes of `i`'s result, the
/// padded ones copied from the first operand (never read).
void CWriter::laneLoop(Instruction &i,
                       const std::function<std::string(const std::string &k)> &lane) {
  // Through an array: gcc takes a vector's lanes assigned one by one for uninitialized.
  Type *t = i.getType();
  std::string r = name(&i), n = std::to_string(lanes(t));
  std::string element = isMask(t) ? "int32_t" : type(t->getScalarType());
  line("{ " + element + " infc_l[" + n + "]; for (int k = 0; k < " + n +
       "; ++k) infc_l[k] = " + lane("k") + "; " + r + " = " + compound(type(t), "0") +
       "; memcpy(&" + r + ", infc_l, sizeof infc_l); }");
}

/// `r = mask ? a : b` lane by lane, `mask` of t's lane width (0 or -1 a lane): as bits, since
/// gcc's C has no `?:` on vectors.
void CWriter::blendLanes(Type *t, const std::string &r, const std::string &mask,
                         const std::string &a, const std::string &b) {
  std::string I = laneIntType(t);
  line("{ " + I + " infc_m = " + mask + "; " + r + " = (" + type(t) + ")(((" + I + ")" + a +
       " & infc_m) | ((" + I + ")" + b + " & ~infc_m)); }");
}

void CWriter::binary(BinaryOperator &b) {
  if (!vectorOpAllowed(b))
    return;
  Type *t = b.getType();
  std::string a = value(b.getOperand(0)), c = value(b.getOperand(1)), r = name(&b);
  unsigned op = b.getOpcode();
  const char *sym = nullptr;
  switch (op) {
  case Instruction::Add:
  case Instruction::FAdd:
    sym = "+";
    break;
  case Instruction::Sub:
  case Instruction::FSub:
    sym = "-";
    break;
  case Instruction::Mul:
  case Instruction::FMul:
    sym = "*";
    break;
  case Instruction::UDiv:
  case Instruction::SDiv:
  case Instruction::FDiv:
    sym = "/";
    break;
  case Instruction::URem:
  case Instruction::SRem:
    sym = "%";
    break;
  case Instruction::Shl:
    sym = "<<";
    break;
  case Instruction::LShr:
  case Instruction::AShr:
    sym = ">>";
    break;
  case Instruction::And:
    sym = "&";
    break;
  case Instruction::Or:
    sym = "|";
    break;
  case Instruction::Xor:
    sym = "^";
    break;
  case Instruction::FRem:
    break;
  default:
    fail("C output: unknown binary operator");
    return;
  }
  bool isSignedOp = op == Instruction::SDiv || op == Instruction::SRem || op == Instruction::AShr;
  Type *e = t->getScalarType();
  // A shift by the width or more is poison in LLVM and undefined in C: keep C's in range.
  if ((op == Instruction::Shl || op == Instruction::LShr || op == Instruction::AShr) &&
      e->isIntegerTy() && !e->isIntegerTy(1))
    c = "(" + c + " & " +
        std::to_string((e->isIntegerTy(128) ? 128 : containerBits(e->getIntegerBitWidth())) - 1) +
        ")";
  if (e->isHalfTy() || e->isBFloatTy()) // held as bits: arithmetic happens in f32
    return fail("C output: arithmetic on f16 or bf16");
  if (t->isVectorTy() && oddWidth(e))
    return fail("C output: vector arithmetic on i" + Twine(e->getIntegerBitWidth()));
  if (t->isVectorTy()) {
    std::string T = type(t);
    if (op == Instruction::FRem) {
      const char *fn = e->isFloatTy() ? "fmodf" : "fmod";
      laneLoop(b, [&](const std::string &k) {
        return std::string(fn) + "(" + a + "[" + k + "], " + c + "[" + k + "])";
      });
      return;
    }
    if (isMask(t) && !(op == Instruction::And || op == Instruction::Or || op == Instruction::Xor)) {
      fail("C output: arithmetic on a vector of i1");
      return;
    }
    // The padded lanes of a division hold anything: divide the real ones only.
    if (op == Instruction::UDiv || op == Instruction::SDiv || op == Instruction::URem ||
        op == Instruction::SRem) {
      std::string cast = isSignedOp ? "(" + type(e, true) + ")" : "";
      laneLoop(b, [&](const std::string &k) {
        return "(" + type(e) + ")(" + cast + a + "[" + k + "] " + sym + " " + cast + c + "[" + k +
               "])";
      });
      return;
    }
    if (isSignedOp) {
      std::string S = type(t, true);
      line(r + " = (" + T + ")((" + S + ")" + a + " " + sym + " (" + S + ")" + c + ");");
      return;
    }
    line(r + " = " + a + " " + sym + " " + c + ";");
    return;
  }
  if (e->isFloatingPointTy()) {
    if (e->isHalfTy() || e->isBFloatTy()) {
      fail("C output: arithmetic on f16 or bf16");
      return;
    }
    if (op == Instruction::FRem)
      line(r + " = " + (e->isFloatTy() ? "fmodf(" : "fmod(") + a + ", " + c + ");");
    else
      line(r + " = " + a + " " + sym + " " + c + ";");
    return;
  }
  unsigned bits = e->getIntegerBitWidth();
  std::string U = type(e), S = type(e, true);
  // Below 32 bits C promotes to int: compute in uint32_t where that could overflow.
  std::string wide = bits < 32 ? "uint32_t" : U;
  std::string expr;
  switch (op) {
  case Instruction::Add:
  case Instruction::Sub:
  case Instruction::Mul:
  case Instruction::Shl:
    expr = "(" + wide + ")" + a + " " + sym + " " +
           (op == Instruction::Shl ? "" : "(" + wide + ")") + c;
    break;
  case Instruction::SDiv:
  case Instruction::SRem:
  case Instruction::AShr:
    expr = "(" + S + ")" + a + " " + sym + " " + (op == Instruction::AShr ? "" : "(" + S + ")") + c;
    break;
  default:
    expr = a + " " + sym + " " + c;
  }
  if (oddWidth(e)) {
    if (op == Instruction::SDiv || op == Instruction::SRem || op == Instruction::AShr)
      expr = signExtendOdd(e, a) + " " + sym + " " +
             (op == Instruction::AShr ? c : signExtendOdd(e, c));
    line(r + " = (" + U + ")((" + expr + ") & " + lowBits(e) + ");");
    return;
  }
  if (bits == 1)
    line(r + " = (uint8_t)((" + expr + ") & 1u);");
  else
    line(r + " = (" + U + ")(" + expr + ");");
}

void CWriter::compare(CmpInst &c) {
  if (!vectorOpAllowed(c))
    return;
  Type *t = c.getOperand(0)->getType();
  std::string a = value(c.getOperand(0)), b = value(c.getOperand(1)), r = name(&c);
  bool vector = t->isVectorTy();
  std::string expr;
  if (auto *i = dyn_cast<ICmpInst>(&c)) {
    std::string ca, cb;
    if (t->getScalarType()->isPointerTy()) {
      ca = cb = vector ? "" : "(uintptr_t)"; // (a vector's lanes are integers already)
    } else if (i->isSigned()) {
      // A signed i1 is 0 or -1.
      ca = cb = t->getScalarType()->isIntegerTy(1) && !vector ? std::string("-(int8_t)")
                                                              : "(" + type(t, true) + ")";
      if (oddWidth(t)) {
        a = signExtendOdd(t, a);
        b = signExtendOdd(t, b);
        ca = cb = "";
      }
    } else if (isMask(t)) { // unsigned: a mask lane's value is its low bit, not 0/-1
      a = "(" + a + " & 1)";
      b = "(" + b + " & 1)";
    }
    const char *sym = "==";
    switch (i->getUnsignedPredicate()) {
    case CmpInst::ICMP_EQ:
      sym = "==";
      break;
    case CmpInst::ICMP_NE:
      sym = "!=";
      break;
    case CmpInst::ICMP_UGT:
      sym = ">";
      break;
    case CmpInst::ICMP_UGE:
      sym = ">=";
      break;
    case CmpInst::ICMP_ULT:
      sym = "<";
      break;
    case CmpInst::ICMP_ULE:
      sym = "<=";
      break;
    default:
      fail("C output: unknown icmp predicate");
    }
    expr = "(" + ca + a + " " + sym + " " + cb + b + ")";
  } else {
    const char *notOp = vector ? "~" : "!", *andOp = vector ? " & " : " && ",
               *orOp = vector ? " | " : " || ";
    auto cmp = [&](const char *sym) { return "(" + a + " " + sym + " " + b + ")"; };
    switch (c.getPredicate()) {
    case CmpInst::FCMP_FALSE:
      expr = vector ? "(" + laneIntType(t) + "){0}" : "0";
      break;
    case CmpInst::FCMP_TRUE:
      expr = vector ? "~(" + laneIntType(t) + "){0}" : "1";
      break;
    case CmpInst::FCMP_OEQ:
      expr = cmp("==");
      break;
    case CmpInst::FCMP_OGT:
      expr = cmp(">");
      break;
    case CmpInst::FCMP_OGE:
      expr = cmp(">=");
      break;
    case CmpInst::FCMP_OLT:
      expr = cmp("<");
      break;
    case CmpInst::FCMP_OLE:
      expr = cmp("<=");
      break;
    case CmpInst::FCMP_ONE:
      expr = "(" + cmp("<") + orOp + cmp(">") + ")";
      break;
    case CmpInst::FCMP_ORD:
      expr = "((" + a + " == " + a + ")" + andOp + "(" + b + " == " + b + "))";
      break;
    case CmpInst::FCMP_UNO:
      expr = "((" + a + " != " + a + ")" + orOp + "(" + b + " != " + b + "))";
      break;
    case CmpInst::FCMP_UEQ:
      expr = std::string(notOp) + "(" + cmp("<") + orOp + cmp(">") + ")";
      break;
    case CmpInst::FCMP_UGT:
      expr = notOp + cmp("<=");
      break;
    case CmpInst::FCMP_UGE:
      expr = notOp + cmp("<");
      break;
    case CmpInst::FCMP_ULT:
      expr = notOp + cmp(">=");
      break;
    case CmpInst::FCMP_ULE:
      expr = notOp + cmp(">");
      break;
    case CmpInst::FCMP_UNE:
      expr = cmp("!=");
      break;
    default:
      fail("C output: unknown fcmp predicate");
    }
    if (t->getScalarType()->isHalfTy() || t->getScalarType()->isBFloatTy())
      fail("C output: a compare of f16 or bf16");
  }
  if (!vector) {
    line(r + " = (uint8_t)" + expr + ";");
    return;
  }
  // A vector compare gives lanes of its operands' width; a mask is int32 lanes.
  std::string M = maskType(lanes(t));
  if (isMask(t) || t->getScalarSizeInBits() == 32)
    line(r + " = (" + M + ")" + expr + ";");
  else
    line(r + " = __builtin_convertvector(" + expr + ", " + M + ");");
}

void CWriter::castInst(CastInst &c) {
  Type *from = c.getSrcTy(), *to = c.getDestTy();
  std::string a = value(c.getOperand(0)), r = name(&c), T = type(to);
  unsigned op = c.getOpcode();
  Type *fe = from->getScalarType(), *te = to->getScalarType();
  auto half = [](Type *t) { return t->isHalfTy() || t->isBFloatTy(); };
  auto halfFn = [](Type *t, bool toHalf) {
    return std::string(t->isHalfTy() ? (toHalf ? "infc_f32_to_f16" : "infc_f16_to_f32")
                                     : (toHalf ? "infc_f32_to_bf16" : "infc_bf16_to_f32"));
  };
  // To f16 or bf16 from a double or an integer: rounded once, from the double (through a
  // float it would be rounded twice, and a halfway case could land on the wrong side).
  bool fromWide = !fe->isFloatTy() && !half(fe);
  auto toHalf = [&](const std::string &x) {
    if (!fromWide)
      return halfFn(te, true) + "((float)" + x + ")";
    return std::string(te->isHalfTy() ? "infc_f64_to_f16" : "infc_f64_to_bf16") + "((double)" + x +
           ")";
  };
  if (op == Instruction::BitCast) {
    if (from == to || (from->isPointerTy() && to->isPointerTy())) {
      line(r + " = " + a + ";");
      return;
    }
    if (isMask(from) || isMask(to)) {
      // <N x i1> <-> iN: one bit a lane.
      if (isMask(from) && to->isIntegerTy()) {
        line(r + " = 0;");
        line("for (int k = 0; k < " + std::to_string(lanes(from)) + "; ++k) " + r + " |= (" + T +
             ")((" + T + ")(" + a + "[k] & 1) << k);");
      } else if (isMask(to) && from->isIntegerTy()) {
        laneLoop(c,
                 [&](const std::string &k) { return "-(int32_t)((" + a + " >> " + k + ") & 1u)"; });
      } else {
        fail("C output: a bitcast between vectors of i1 and others");
      }
      return;
    }
    if (from->isVectorTy() && to->isVectorTy() && !options.cuda) { // a GNU vector cast
      line(r + " = (" + T + ")" + a + ";");
      return;
    }
    // (A padded vector's store size, not its C size; an odd width's container zeroed.)
    if (oddWidth(to))
      line(r + " = 0;");
    line("{ " + type(from) + " infc_t = " + a + "; memcpy(&" + r + ", &infc_t, " +
         std::to_string(dl.getTypeStoreSize(from)) + "); }");
    if (oddWidth(to))
      line(r + " = (" + T + ")(" + r + " & " + lowBits(to) + ");");
    return;
  }
  // CUDA: every pointer is generic; shared memory's 32-bit addresses are its window's.
  if (op == Instruction::AddrSpaceCast && options.cuda && !to->isVectorTy()) {
    line(r + " = " + a + ";");
    return;
  }
  if (options.cuda && op == Instruction::PtrToInt && from->getPointerAddressSpace() == 3) {
    line(r + " = (" + T + ")__cvta_generic_to_shared(" + a + ");");
    return;
  }
  if (options.cuda && op == Instruction::IntToPtr && to->getPointerAddressSpace() == 3) {
    line(r + " = (uint8_t *)__cvta_shared_to_generic((size_t)" + a + ");");
    return;
  }
  if (from->isVectorTy() && !vectorOpAllowed(c))
    return;
  if ((op == Instruction::PtrToInt || op == Instruction::IntToPtr) && from->isVectorTy()) {
    line(r + " = __builtin_convertvector(" + a + ", " + T + ");"); // 64-bit lanes
    return;
  }
  if (op == Instruction::PtrToInt) {
    line(r + " = (" + T + ")(uintptr_t)" + a + (oddWidth(to) ? " & " + lowBits(to) : "") + ";");
    return;
  }
  if (op == Instruction::IntToPtr) {
    line(r + " = (uint8_t *)(uintptr_t)" + a + ";");
    return;
  }
  if (op == Instruction::AddrSpaceCast) {
    fail("C output: addrspacecast");
    return;
  }
  if (from->isVectorTy()) {
    if (isMask(from) || isMask(to) || half(fe) || half(te)) {
      bool isSigned = op == Instruction::SExt || op == Instruction::SIToFP;
      laneLoop(c, [&](const std::string &k) {
        // The source lane's value: a mask lane is 0/-1 (signed) or its low bit.
        std::string x = a + "[" + k + "]";
        if (isMask(from))
          x = isSigned ? "(int32_t)" + x : "(" + x + " & 1)";
        else if (half(fe))
          x = halfFn(fe, false) + "(" + x + ")";
        else if (isSigned)
          x = "(" + type(fe, true) + ")" + x;
        if (isMask(to)) // trunc, fptoui, fptosi to i1: the low bit of the integer
          return "-(int32_t)((int64_t)(" + x + ") & 1)";
        if (half(te))
          return toHalf(x);
        if (op == Instruction::FPToSI)
          x = "(" + type(te, true) + ")" + x;
        return "(" + type(te) + ")" + x;
      });
      return;
    }
    std::string S = type(from, true), TS = type(to, true);
    switch (op) {
    case Instruction::SExt:
      line(r + " = (" + T + ")__builtin_convertvector((" + S + ")" + a + ", " + TS + ");");
      return;
    case Instruction::SIToFP:
      line(r + " = __builtin_convertvector((" + S + ")" + a + ", " + T + ");");
      return;
    case Instruction::FPToSI:
      line(r + " = (" + T + ")__builtin_convertvector(" + a + ", " + TS + ");");
      return;
    default: // zext, trunc, uitofp, fptoui, fpext, fptrunc
      line(r + " = __builtin_convertvector(" + a + ", " + T + ");");
      return;
    }
  }
  // Scalars. An odd-width source is sign-extended where the cast is signed; an odd-width
  // result masked to its bits.
  std::string signedA = oddWidth(fe)         ? signExtendOdd(fe, a)
                        : fe->isIntegerTy(1) ? "(-(int8_t)" + a + ")" // true is -1
                                             : "(" + type(fe, true) + ")" + a;
  if (te->isIntegerTy(1) && (op == Instruction::FPToSI || op == Instruction::FPToUI)) {
    std::string x = half(fe) ? halfFn(fe, false) + "(" + a + ")" : a;
    line(r + " = (uint8_t)((int64_t)(" + x + ") & 1);");
    return;
  }
  std::string maskResult =
      oddWidth(te) ? r + " = (" + T + ")(" + r + " & " + lowBits(te) + ");" : std::string();
  if (half(fe) || half(te)) {
    std::string x = a;
    if (half(fe))
      x = halfFn(fe, false) + "(" + x + ")";
    if (op == Instruction::SIToFP)
      x = signedA;
    if (half(te))
      line(r + " = " + toHalf(x) + ";");
    else if (op == Instruction::FPToSI)
      line(r + " = (" + T + ")(" + type(te, true) + ")" + x + ";");
    else
      line(r + " = (" + T + ")" + x + ";");
    if (!maskResult.empty())
      line(maskResult);
    return;
  }
  switch (op) {
  case Instruction::Trunc:
    line(r + (te->isIntegerTy(1) ? " = (uint8_t)(" + a + " & 1u);" : " = (" + T + ")" + a + ";"));
    break;
  case Instruction::SExt:
    if (fe->isIntegerTy(1))
      line(r + " = (" + T + ")(-(" + type(te, true) + ")" + a + ");");
    else
      line(r + " = (" + T + ")(" + type(te, true) + ")" + signedA + ";");
    break;
  case Instruction::FPToSI:
    line(r + " = (" + T + ")(" + type(te, true) + ")" + a + ";");
    break;
  case Instruction::SIToFP:
    line(r + " = (" + T + ")" + signedA + ";");
    break;
  default: // zext, fptoui, uitofp, fpext, fptrunc
    line(r + " = (" + T + ")" + a + ";");
    break;
  }
  if (!maskResult.empty())
    line(maskResult);
}

void CWriter::branchTo(BasicBlock *from, BasicBlock *to) {
  for (PHINode &phi : to->phis())
    if (!name(&phi).empty())
      line(name(&phi) + "_in = " + value(phi.getIncomingValueForBlock(from)) + ";");
  line("goto " + name(to) + ";");
}

/// The intrinsics the pipeline's IR uses; false for one C output cannot print.
void CWriter::call(CallInst &c) {
  if (c.isInlineAsm()) {
    fail("C output: inline assembly in " + current->getName());
    return;
  }
  Function *callee = c.getCalledFunction();
  if (callee && callee->isIntrinsic() && !c.getType()->isVoidTy() && c.use_empty() &&
      !c.mayHaveSideEffects())
    return; // an unused pure result: nothing to print
  if (callee && options.cuda && callee->getName().starts_with("llvm.nvvm.")) {
    if (!nvvmIntrinsic(c, callee->getName()))
      fail("CUDA output: the NVVM intrinsic " + callee->getName() + " (in " + current->getName() +
           ") has no CUDA form");
    return;
  }
  if (callee && callee->isIntrinsic()) {
    if (!vectorOpAllowed(c))
      return;
    if (!intrinsic(c, callee->getIntrinsicID()))
      fail("C output: the LLVM intrinsic " + callee->getName() + " (in " + current->getName() +
           ") has no C form" +
           (callee->getName().starts_with("llvm.x86.") ||
                    callee->getName().starts_with("llvm.aarch64.")
                ? "; compile for a CPU without the instruction sets it needs (e.g. --cpu "
                  "x86-64-v3)"
                : ""));
    return;
  }
  std::string args;
  for (auto [k, a] : llvm::enumerate(c.args()))
    args += (k ? ", " : "") + value(a);
  std::string target;
  if (callee && options.cuda && callee->getName().starts_with("__nv_")) {
    // libdevice's functions are CUDA's math functions of the same names (expf: __nv_expf).
    target = callee->getName().drop_front(5).str();
  } else if (callee) {
    target = globalName(callee);
  } else {
    std::string params;
    FunctionType *ft = c.getFunctionType();
    for (auto [k, p] : llvm::enumerate(ft->params()))
      params += (k ? ", " : "") + type(p);
    if (ft->isVarArg())
      params += ft->getNumParams() ? ", ..." : "...";
    target = "((" + type(ft->getReturnType()) + " (*)(" + (params.empty() ? "void" : params) +
             "))" + value(c.getCalledOperand()) + ")";
  }
  std::string r = name(&c);
  line((r.empty() ? "" : r + " = ") + target + "(" + args + ");");
}

void CWriter::instruction(Instruction &i) {
  std::string r = name(&i);
  if (auto *b = dyn_cast<BinaryOperator>(&i))
    return binary(*b);
  if (auto *c = dyn_cast<CmpInst>(&i))
    return compare(*c);
  if (auto *c = dyn_cast<CastInst>(&i))
    return castInst(*c);
  if (auto *c = dyn_cast<CallInst>(&i))
    return call(*c);
  if (auto *g = dyn_cast<GetElementPtrInst>(&i)) {
    line(r + " = " + gep(cast<GEPOperator>(g)) + ";");
    return;
  }
  if (auto *l = dyn_cast<LoadInst>(&i)) {
    if (l->isAtomic() || l->isVolatile())
      return fail("C output: an atomic or volatile load");
    Type *t = l->getType();
    if (isMask(t)) // bit-packed in memory, int32 lanes in C
      return fail("C output: a load of a vector of i1");
    if (t->isVectorTy() && lanes(t) != paddedLanes(t))
      line(r + " = " + compound(type(t), "0") + ";");
    line("memcpy(&" + r + ", " + alignedPointer(l->getPointerOperand(), l->getAlign()) + ", " +
         std::to_string(dl.getTypeStoreSize(t)) + ");");
    if (oddWidth(t)) // (the bits above are not the value's)
      line(r + " = (" + type(t) + ")(" + r + " & " + lowBits(t) + ");");
    return;
  }
  if (auto *s = dyn_cast<StoreInst>(&i)) {
    if (s->isAtomic() || s->isVolatile())
      return fail("C output: an atomic or volatile store");
    Value *v = s->getValueOperand();
    if (isMask(v->getType()))
      return fail("C output: a store of a vector of i1");
    std::string size = std::to_string(dl.getTypeStoreSize(v->getType()));
    std::string p = alignedPointer(s->getPointerOperand(), s->getAlign());
    if (isa<Constant>(v))
      line("{ " + type(v->getType()) + " infc_t = " + value(v) + "; memcpy(" + p + ", &infc_t, " +
           size + "); }");
    else
      line("memcpy(" + p + ", &" + value(v) + ", " + size + ");");
    return;
  }
  if (auto *a = dyn_cast<AllocaInst>(&i)) {
    line(r + " = (uint8_t *)" + r + "_mem;");
    return;
  }
  if (auto *s = dyn_cast<SelectInst>(&i)) {
    std::string c = value(s->getCondition()), a = value(s->getTrueValue()),
                b = value(s->getFalseValue());
    Type *t = s->getType();
    if (s->getCondition()->getType()->isVectorTy() && !vectorOpAllowed(*s))
      return;
    if (!s->getCondition()->getType()->isVectorTy()) {
      line(r + " = " + c + " ? " + a + " : " + b + ";");
      return;
    }
    std::string I = laneIntType(t);
    blendLanes(t, r,
               t->getScalarSizeInBits() == 32 || isMask(t)
                   ? "(" + I + ")" + c
                   : "__builtin_convertvector(" + c + ", " + I + ")",
               a, b);
    return;
  }
  if (auto *e = dyn_cast<ExtractElementInst>(&i)) {
    std::string x = value(e->getVectorOperand()) + "[" + value(e->getIndexOperand()) + "]";
    if (e->getType()->isPointerTy())
      x = "(uint8_t *)(uintptr_t)" + x;
    line(r + " = " + (isMask(e->getVectorOperandType()) ? "(uint8_t)(" + x + " & 1)" : x) + ";");
    return;
  }
  if (auto *e = dyn_cast<InsertElementInst>(&i)) {
    // memcpy, not `r[k] = x` (see laneLoop).
    std::string x = value(e->getOperand(1));
    bool mask = isMask(e->getType()), pointer = e->getOperand(1)->getType()->isPointerTy();
    if (pointer)
      x = "(uint64_t)(uintptr_t)" + x;
    std::string element = mask      ? "int32_t"
                          : pointer ? "uint64_t"
                                    : type(e->getType()->getScalarType());
    line(r + " = " + value(e->getOperand(0)) + ";");
    line("{ " + element + " infc_e = " + (mask ? "-(int32_t)" + x : x) + "; memcpy((uint8_t *)&" +
         r + " + (size_t)" + value(e->getOperand(2)) +
         " * sizeof infc_e, &infc_e, sizeof infc_e); }");
    return;
  }
  if (auto *s = dyn_cast<ShuffleVectorInst>(&i)) {
    Type *in = s->getOperand(0)->getType();
    unsigned n = lanes(in), p = paddedLanes(in);
    ArrayRef<int> mask = s->getShuffleMask();
    if (options.cuda) { // lane by lane
      std::string a = value(s->getOperand(0)), b = value(s->getOperand(1));
      line(r + " = " + compound(type(s->getType()), "") + ";");
      for (unsigned k = 0; k < mask.size(); ++k)
        if (mask[k] >= 0)
          line(r + "[" + std::to_string(k) + "] = " +
               ((unsigned)mask[k] < n ? a + "[" + std::to_string(mask[k]) + "]"
                                      : b + "[" + std::to_string(mask[k] - n) + "]") +
               ";");
      return;
    }
    std::string indices;
    for (unsigned k = 0; k < PowerOf2Ceil(mask.size()); ++k) {
      int index = k < mask.size() ? mask[k] : 0;
      if (index < 0)
        index = 0;
      else if ((unsigned)index >= n)
        index = index - n + p;
      indices += ", " + std::to_string(index);
    }
    line(r + " = __builtin_shufflevector(" + value(s->getOperand(0)) + ", " +
         value(s->getOperand(1)) + indices + ");");
    return;
  }
  auto path = [&](Type *t, ArrayRef<unsigned> indices) {
    std::string p;
    for (unsigned k : indices) {
      if (auto *s = dyn_cast<StructType>(t)) {
        p += ".f" + std::to_string(k);
        t = s->getElementType(k);
      } else {
        p += ".a[" + std::to_string(k) + "]";
        t = cast<ArrayType>(t)->getElementType();
      }
    }
    return p;
  };
  if (auto *e = dyn_cast<ExtractValueInst>(&i)) {
    line(r + " = " + value(e->getAggregateOperand()) +
         path(e->getAggregateOperand()->getType(), e->getIndices()) + ";");
    return;
  }
  if (auto *e = dyn_cast<InsertValueInst>(&i)) {
    line(r + " = " + value(e->getAggregateOperand()) + ";");
    line(r + path(e->getType(), e->getIndices()) + " = " + value(e->getInsertedValueOperand()) +
         ";");
    return;
  }
  if (auto *f = dyn_cast<FreezeInst>(&i)) {
    line(r + " = " + value(f->getOperand(0)) + ";");
    return;
  }
  if (auto *u = dyn_cast<UnaryOperator>(&i)) {
    if (u->getOpcode() != Instruction::FNeg)
      return fail("C output: unknown unary operator");
    Type *e = u->getType()->getScalarType();
    if (e->isHalfTy() || e->isBFloatTy()) // the sign bit of the bits
      line(r + " = (" + type(u->getType()) + ")(" + value(u->getOperand(0)) + " ^ 0x8000);");
    else
      line(r + " = -" + value(u->getOperand(0)) + ";");
    return;
  }
  if (isa<PHINode>(&i))
    return; // assigned by the predecessors
  if (auto *b = dyn_cast<BranchInst>(&i)) {
    if (b->isUnconditional())
      return branchTo(i.getParent(), b->getSuccessor(0));
    line("if (" + value(b->getCondition()) + ") {");
    branchTo(i.getParent(), b->getSuccessor(0));
    line("} else {");
    branchTo(i.getParent(), b->getSuccessor(1));
    line("}");
    return;
  }
  if (auto *s = dyn_cast<SwitchInst>(&i)) {
    line("switch (" + value(s->getCondition()) + ") {");
    for (auto &kase : s->cases()) {
      line("case " + constant(kase.getCaseValue()) + ": {");
      branchTo(i.getParent(), kase.getCaseSuccessor());
      line("}");
    }
    line("default: {");
    branchTo(i.getParent(), s->getDefaultDest());
    line("}");
    line("}");
    return;
  }
  if (auto *ret = dyn_cast<ReturnInst>(&i)) {
    line(ret->getReturnValue() ? "return " + value(ret->getReturnValue()) + ";"
                               : std::string("return;"));
    return;
  }
  if (isa<UnreachableInst>(&i)) {
    line("__builtin_unreachable();");
    return;
  }
  std::string s;
  raw_string_ostream(s) << i;
  fail("C output: cannot print the instruction" + StringRef(s).take_front(200) + " in " +
       current->getName());
}

void CWriter::function(Function &f) {
  current = &f;
  names.clear();
  for (Argument &a : f.args())
    names[&a] = "a" + std::to_string(a.getArgNo());
  // Blocks no branch reaches are left out (their labels would be unused).
  SmallPtrSet<BasicBlock *, 32> reachable;
  SmallVector<BasicBlock *> work = {&f.getEntryBlock()};
  while (!work.empty()) {
    BasicBlock *b = work.pop_back_val();
    if (reachable.insert(b).second)
      for (BasicBlock *s : successors(b))
        work.push_back(s);
  }
  // A use counts where it is printed: not in a block left out, not by a call printed as
  // nothing (an unused variable would fail -Werror).
  auto printedUse = [&](Value *v) {
    return llvm::any_of(v->users(), [&](User *u) {
      auto *user = dyn_cast<Instruction>(u);
      if (!user || !reachable.count(user->getParent()))
        return false;
      auto *call = dyn_cast<IntrinsicInst>(user);
      return !call ||
             !(call->isAssumeLikeIntrinsic() || call->getIntrinsicID() == Intrinsic::stackrestore ||
               call->getIntrinsicID() == Intrinsic::donothing);
    });
  };
  unsigned numValues = 0, numBlocks = 0;
  std::string decls;
  for (BasicBlock &b : f) {
    if (!reachable.count(&b))
      continue;
    names[&b] = "L" + std::to_string(numBlocks++);
    for (Instruction &i : b) {
      // Unused results: not printed without side effects, dropped from calls.
      if (i.getType()->isVoidTy() || !printedUse(&i))
        continue;
      std::string n = "v" + std::to_string(numValues++);
      names[&i] = n;
      if (auto *a = dyn_cast<AllocaInst>(&i)) {
        auto *count = dyn_cast<ConstantInt>(a->getArraySize());
        if (!count) {
          fail("C output: an alloca of a run-time size in " + f.getName());
          continue;
        }
        decls += "  " + type(a->getAllocatedType()) + " " + n + "_mem[" +
                 std::to_string(std::max<uint64_t>(1, count->getZExtValue())) +
                 "] __attribute__((aligned(" + std::to_string(a->getAlign().value()) + ")));\n";
      }
      decls += "  " + type(i.getType()) + " " + n + ";\n";
      if (isa<PHINode>(i))
        decls += "  " + type(i.getType()) + " " + n + "_in;\n";
    }
  }
  body.clear();
  for (Argument &a : f.args())
    if (!printedUse(&a))
      line("(void)" + name(&a) + ";");
  for (BasicBlock &b : f) {
    if (!reachable.count(&b))
      continue;
    if (!b.isEntryBlock())
      body += name(&b) + ":;\n";
    for (PHINode &phi : b.phis())
      if (!name(&phi).empty())
        line(name(&phi) + " = " + name(&phi) + "_in;");
    for (Instruction &i : b) {
      if (!i.getType()->isVoidTy() && name(&i).empty() && !isa<CallInst>(i)) {
        if (i.mayHaveSideEffects()) // (an unused atomic or volatile result: printed or refused)
          instruction(i);
        continue;
      }
      instruction(i);
    }
  }
  bodies += qualifiers(f) + prototype(f, true) + " {\n" + decls + body + "}\n\n";
}

/// What precedes a function definition's prototype: its linkage, and in CUDA mode its
/// space (a kernel is `extern "C" __global__`, named as the host looks it up).
std::string CWriter::qualifiers(Function &f) {
  if (options.cuda) {
    if (f.getCallingConv() != CallingConv::PTX_Kernel)
      return "static __device__ __attribute__((unused)) ";
    std::string bounds;
    if (Attribute a = f.getFnAttribute("nvvm.maxntid"); a.isValid()) {
      unsigned threads = 1;
      SmallVector<StringRef> dims;
      a.getValueAsString().split(dims, ',');
      for (StringRef d : dims) {
        unsigned n = 0;
        if (!d.trim().getAsInteger(10, n))
          threads *= n;
      }
      bounds = "__launch_bounds__(" + std::to_string(threads) + ") ";
    }
    return "extern \"C\" __global__ " + bounds;
  }
  return std::string(f.hasLocalLinkage() ? "static __attribute__((unused)) " : "") +
         (f.hasHiddenVisibility() ? "__attribute__((visibility(\"hidden\"))) " : "");
}

void CWriter::global(GlobalVariable &g) {
  if (g.getName().starts_with("llvm.")) // llvm.used, llvm.global_ctors: no C meaning here
    return fail("C output: the special global " + g.getName());
  if (g.isThreadLocal())
    return fail("C output: the thread-local global " + g.getName());
  std::string n = globalName(&g);
  std::string quals = std::string(g.hasLocalLinkage() ? "static " : "") +
                      (g.hasHiddenVisibility() ? "__attribute__((visibility(\"hidden\"))) " : "");
  std::string align =
      g.getAlign() ? " __attribute__((aligned(" + std::to_string(g.getAlign()->value()) + ")))"
                   : "";
  std::string c = g.isConstant() ? "const " : "";
  if (g.isDeclaration()) {
    if (options.cuda)
      return fail("CUDA output: the kernels use the global " + g.getName() +
                  ", which they do not define");
    if (weightOffset.count(g.getName())) {
      if (!options.weightsFromFile)
        forward += "extern const uint8_t " + n + "[];\n";
      return;
    }
    forward += "extern " + c + type(g.getValueType()) + " " + n + ";\n";
    return;
  }
  std::string T = type(g.getValueType());
  if (options.cuda) {
    // Device globals in the order of the module (C++ has no tentative definitions): shared
    // memory uninitialized, constants in global memory.
    std::string a =
        g.getAlign() ? "__align__(" + std::to_string(g.getAlign()->value()) + ") " : std::string();
    if (g.getAddressSpace() == 3) {
      globals += "static __shared__ __attribute__((unused)) " + a + T + " " + n + ";\n";
      return;
    }
    globals += "static __device__ " + a + c + T + " " + n + " = " +
               constant(g.getInitializer(), true) + ";\n";
    return;
  }
  forward += (g.hasLocalLinkage() ? "static " : "extern ") + c + T + " " + n + align + ";\n";
  std::string init = constant(g.getInitializer(), true);
  if (!options.prepare.empty() && g.getName() == "infc__model_desc") {
    // The last field, `prepare`, is the weights loader's.
    size_t last = init.rfind("((uint8_t *)0)");
    if (last == std::string::npos) {
      fail("C output: the descriptor has no prepare field");
    } else {
      init.replace(last, strlen("((uint8_t *)0)"), "(uint8_t *)&" + options.prepare);
    }
  }
  // (A model's constant may have no use left: no -Wunused-const-variable for it.)
  std::string unused = g.hasLocalLinkage() ? " __attribute__((unused))" : "";
  globals += quals + c + T + " " + n + align + unused + " = " + init + ";\n";
}

static const char *kPrelude = R"c(#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* gcc takes SSA-form code's element stores into vectors (`v = a; v[k] = x`) for uses of
 * uninitialized values; every variable here is assigned before it is read. (Before the
 * macros: gcc applies the state where a macro is spelled.) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

/* r = a * b + c rounded once, lane by lane (LLVM's fma): clang's elementwise builtin, else
 * the libm function per lane (which gcc vectorizes where the target has FMA instructions).
 * A plain a*b+c is the multiply-add LLVM lets contract (fmuladd), printed as such. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_elementwise_fma)
#define INFC_VFMA(r, a, b, c, lanes, fn) (r) = __builtin_elementwise_fma(a, b, c)
#endif
#endif
#ifndef INFC_VFMA
#define INFC_VFMA(r, a, b, c, lanes, fn)                                                      \
  do {                                                                                       \
    (r) = (c);                                                                               \
    for (int infc_k = 0; infc_k < (lanes); ++infc_k)                                         \
      (r)[infc_k] = fn((a)[infc_k], (b)[infc_k], (c)[infc_k]);                               \
  } while (0)
#endif
/* Helpers a model may not need (clang warns of unused static inline functions). */
#define INFC_HELPER static inline __attribute__((unused))
)c";

/// The helpers C and CUDA output share (INFC_HELPER says where they run).
static const char *kHelpers = R"c(
INFC_HELPER float infc_f32_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
INFC_HELPER double infc_f64_bits(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
INFC_HELPER uint32_t infc_bits_f32(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
/* NaN if either is NaN; +0 above -0 (LLVM's maximum and minimum). */
INFC_HELPER float infc_maximumf(float a, float b) {
  return a != a ? a : b != b ? b : a > b ? a : b > a ? b : (infc_bits_f32(a) >> 31) ? b : a;
}
INFC_HELPER float infc_minimumf(float a, float b) {
  return a != a ? a : b != b ? b : a < b ? a : b < a ? b : (infc_bits_f32(a) >> 31) ? a : b;
}
INFC_HELPER double infc_maximum(double a, double b) {
  return a != a ? a : b != b ? b : a > b ? a : b > a ? b : signbit(a) ? b : a;
}
INFC_HELPER double infc_minimum(double a, double b) {
  return a != a ? a : b != b ? b : a < b ? a : b < a ? b : signbit(a) ? a : b;
}
/* IEEE half and bfloat16 bits, rounded to nearest even. */
INFC_HELPER float infc_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f)
    return infc_f32_bits(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float f = (float)m * 0x1p-24f;
    return sign ? -f : f;
  }
  return infc_f32_bits(sign | ((e + 112u) << 23) | (m << 13));
}
INFC_HELPER uint16_t infc_f32_to_f16(float f) {
  uint32_t x = infc_bits_f32(f), sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
  if (a > 0x7f800000u)
    return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
  if (a >= 0x477ff000u) /* rounds to infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (a < 0x38800000u) { /* subnormal: scale so the rounding is the FPU's */
    float s = infc_f32_bits(a) * 0x1p24f;
    return (uint16_t)(sign | (uint32_t)nearbyintf(s));
  }
  uint32_t r = a + 0xfffu + ((a >> 13) & 1u);
  return (uint16_t)(sign | ((r - 0x38000000u) >> 13));
}
/* From a double, rounded once (NaN quiet, its payload's top bits kept). */
INFC_HELPER uint16_t infc_f64_to_f16(double d) {
  uint64_t x, a;
  memcpy(&x, &d, 8);
  a = x & UINT64_C(0x7fffffffffffffff);
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
  if (a > UINT64_C(0x7ff0000000000000))
    return (uint16_t)(sign | 0x7e00u | ((a >> 42) & 0x3ffu));
  if (a >= UINT64_C(0x40effe0000000000)) /* 65520 and up: infinity */
    return (uint16_t)(sign | 0x7c00u);
  if (a < UINT64_C(0x3f10000000000000)) /* subnormal: in units of 2^-24, the FPU rounds */
    return (uint16_t)(sign | (uint16_t)nearbyint(fabs(d) * 0x1p24));
  uint64_t r = a + UINT64_C(0x1ffffffffff) + ((a >> 42) & 1u);
  return (uint16_t)(sign | ((r >> 42) - (UINT64_C(1008) << 10)));
}
INFC_HELPER uint16_t infc_f64_to_bf16(double d) {
  uint64_t x, a;
  memcpy(&x, &d, 8);
  a = x & UINT64_C(0x7fffffffffffffff);
  uint16_t sign = (uint16_t)((x >> 48) & 0x8000u);
  if (a > UINT64_C(0x7ff0000000000000))
    return (uint16_t)(sign | 0x7fc0u | ((a >> 45) & 0x7fu));
  if (a >= UINT64_C(0x47eff00000000000)) /* past the largest bf16's half step: infinity */
    return (uint16_t)(sign | 0x7f80u);
  if (a < UINT64_C(0x3810000000000000)) /* subnormal: in units of 2^-133 */
    return (uint16_t)(sign | (uint16_t)nearbyint(fabs(d) * 0x1p133));
  uint64_t r = a + UINT64_C(0xfffffffffff) + ((a >> 45) & 1u);
  return (uint16_t)(sign | ((r >> 45) - (UINT64_C(896) << 7)));
}
INFC_HELPER float infc_bf16_to_f32(uint16_t h) { return infc_f32_bits((uint32_t)h << 16); }
INFC_HELPER uint16_t infc_f32_to_bf16(float f) {
  uint32_t x = infc_bits_f32(f);
  if ((x & 0x7fffffffu) > 0x7f800000u)
    return (uint16_t)((x >> 16) | 0x40u);
  return (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
)c";

/// CUDA mode's prelude: nvcc compiles the file as C++, the helpers as device functions.
static const char *kCudaPrelude = R"c(#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define INFC_HELPER static __device__ __forceinline__ __attribute__((unused))
/* The IR compares as it stands: an unsigned value against 0 (an unsigned Mod's sign test). */
#ifdef __NVCC__
#pragma nv_diag_suppress 186
#endif
)c";

LogicalResult CWriter::write(raw_ostream &os, std::string &errorOut) {
  // The names other objects see first: a local renamed after them cannot take theirs.
  for (GlobalValue &g : m.global_values())
    if (!g.hasLocalLinkage() && !(isa<Function>(g) && cast<Function>(g).isIntrinsic()))
      globalName(&g);
  for (GlobalVariable &g : m.globals())
    global(g);
  for (Function &f : m) {
    if (f.isIntrinsic())
      continue;
    if (f.isDeclaration()) {
      if (options.cuda) {
        if (!f.getName().starts_with("__nv_") && !f.getName().starts_with("llvm.nvvm."))
          fail("CUDA output: a call of " + f.getName() + ", which the kernels do not define");
        continue;
      }
      if (!kLibcFunctions.contains(f.getName()))
        prototypes += "extern " + prototype(f, false) + ";\n";
      continue;
    }
    if (options.cuda) {
      if (f.getCallingConv() != CallingConv::PTX_Kernel) // (a kernel is no device's callee)
        prototypes += "static __device__ " + prototype(f, false) + ";\n";
    } else {
      prototypes += std::string(f.hasLocalLinkage() ? "static " : "") + prototype(f, false) + ";\n";
    }
    function(f);
  }
  if (!error.empty()) {
    errorOut = error;
    return failure();
  }
  if (options.cuda)
    os << "/* Generated by infc (infc compile --target cuda --emit=cuda): the kernels of "
       << m.getModuleIdentifier() << " as CUDA C++. Do not edit. */\n"
       << kCudaPrelude;
  else
    os << "/* Generated by infc (infc compile --emit=c): the model " << m.getModuleIdentifier()
       << " as C99 with GNU vector extensions. Do not edit. */\n"
       << kPrelude;
  os << kHelpers << "\n/* Types */\n"
     << typedefs << "\n"
     << cudaHelpers << "\n"
     << options.extraPrelude << "\n/* Declarations */\n"
     << forward << prototypes << "\n/* Constants */\n"
     << globals << "\n/* Code */\n"
     << bodies << options.epilogue;
  return success();
}

} // namespace infc::cwriter

LogicalResult infc::writeModuleAsC(Module &module, const CWriterOptions &options, raw_ostream &os,
                                   std::string &error) {
  return cwriter::CWriter(module, options).write(os, error);
}
