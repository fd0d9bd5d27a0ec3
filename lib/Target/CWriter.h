//===- CWriter.h - the C printer of --emit=c, shared by its two files -*- C++ -*-===//
//
// Internal to lib/Target: CWriter.cpp (types, values, instructions, functions) and
// CWriterIntrinsics.cpp (the LLVM intrinsics' C forms). The design is CWriter.cpp's.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_LIB_TARGET_CWRITER_H
#define INFC_LIB_TARGET_CWRITER_H

#include "infc/Target/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <string>

namespace infc::cwriter {
using namespace llvm;

inline std::string hex(uint64_t v) { return "0x" + utohexstr(v); }

class CWriter {
public:
  CWriter(Module &m, const infc::CWriterOptions &options)
      : m(m), dl(m.getDataLayout()), options(options) {
    for (auto &[symbol, offset] : options.weightOffsets)
      weightOffset[symbol] = offset;
  }
  LogicalResult write(raw_ostream &os, std::string &error);

private:
  // ---- types ----
  std::string type(Type *t, bool isSigned = false);
  std::string vectorType(VectorType *t, bool isSigned = false);
  std::string maskType(unsigned lanes) { return vectorType(maskVector(lanes)); }
  VectorType *maskVector(unsigned lanes) {
    return FixedVectorType::get(IntegerType::get(m.getContext(), 1), lanes);
  }
  static unsigned lanes(Type *t) { return cast<FixedVectorType>(t)->getNumElements(); }
  /// The C width holding an integer of `bits` bits.
  static unsigned containerBits(unsigned bits) {
    return bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
  }
  /// An integer type without a C type of its own (i2, i4, i33): held zero-extended in its
  /// container, masked after each operation, sign-extended where an operation is signed.
  static bool oddWidth(Type *t) {
    auto *i = dyn_cast<IntegerType>(t);
    return i && i->getBitWidth() > 1 && i->getBitWidth() < 64 &&
           i->getBitWidth() != containerBits(i->getBitWidth());
  }
  std::string lowBits(Type *t) { // the mask of an odd width's bits
    return "(" + type(t) + ")" + hex((uint64_t(1) << t->getIntegerBitWidth()) - 1) + "u";
  }
  /// `x` of odd-width type `t` sign-extended into its signed container.
  std::string signExtendOdd(Type *t, const std::string &x) {
    unsigned w = containerBits(t->getIntegerBitWidth()), shift = w - t->getIntegerBitWidth();
    std::string wide = w < 32 ? "uint32_t" : type(t);
    return "((" + type(t, true) + ")(" + type(t) + ")((" + wide + ")" + x + " << " +
           std::to_string(shift) + ") >> " + std::to_string(shift) + ")";
  }
  static unsigned paddedLanes(Type *t) { return PowerOf2Ceil(lanes(t)); }
  /// A value of C type `T` from braced `elements`: C's compound literal, C++'s list
  /// initialization (CUDA mode).
  std::string compound(const std::string &T, const std::string &elements) {
    return options.cuda ? "(" + T + "{" + elements + "})" : "((" + T + "){" + elements + "})";
  }
  /// A vector operation CUDA mode cannot print (nvcc has no vector types in device code;
  /// the scalarizer leaves vectors to loads, stores and their lanes): false when refused.
  bool vectorOpAllowed(Instruction &i) {
    if (!options.cuda || !i.getType()->isVectorTy())
      return true;
    fail("CUDA output: a vector operation left after scalarization in " + current->getName() +
         ": " + i.getOpcodeName());
    return false;
  }
  static bool isMask(Type *t) { return t->isVectorTy() && t->getScalarType()->isIntegerTy(1); }
  /// The signed integer vector of `t`'s lanes (same element width): a compare's result.
  std::string laneIntType(Type *t) {
    Type *e = t->getScalarType();
    unsigned bits = e->isPointerTy() ? 64 : e->getPrimitiveSizeInBits();
    if (isMask(t))
      bits = 32;
    return vectorType(FixedVectorType::get(IntegerType::get(m.getContext(), bits), lanes(t)), true);
  }

  // ---- values ----
  std::string value(Value *v);
  std::string constant(Constant *c, bool initializer = false);
  std::string aggregate(Constant *c, bool initializer);
  std::string zeroInitializer(Type *t);
  std::string floatLiteral(const APFloat &f, Type *t, bool initializer);
  std::string gep(GEPOperator *g);
  std::string vectorGep(GEPOperator *g);
  std::string name(const Value *v) { return names.lookup(v); }
  std::string globalName(const GlobalValue *g);

  /// The pointer operand of a load or store: in CUDA mode with its alignment told (nvcc
  /// turns a memcpy of unknown alignment into byte accesses).
  std::string alignedPointer(Value *p, Align a) {
    if (!options.cuda || a.value() < 2)
      return value(p);
    return "__builtin_assume_aligned(" + value(p) + ", " + std::to_string(a.value()) + ")";
  }

  // ---- instructions ----
  void instruction(Instruction &i);
  void blendLanes(Type *t, const std::string &r, const std::string &mask, const std::string &a,
                  const std::string &b);
  void binary(BinaryOperator &b);
  void compare(CmpInst &c);
  void castInst(CastInst &c);
  void call(CallInst &c);
  bool intrinsic(CallInst &c, Intrinsic::ID id);
  bool nvvmIntrinsic(CallInst &c, StringRef name);
  void branchTo(BasicBlock *from, BasicBlock *to);
  void laneLoop(Instruction &i, const std::function<std::string(const std::string &)> &lane);
  void function(Function &f);
  std::string qualifiers(Function &f);
  void global(GlobalVariable &g);
  std::string prototype(Function &f, bool withNames);

  void fail(const Twine &why) {
    if (error.empty())
      error = why.str();
  }
  std::string &out() { return body; }
  void line(const Twine &text) { body += "  " + text.str() + "\n"; }

  Module &m;
  const DataLayout &dl;
  const infc::CWriterOptions &options;
  DenseMap<Type *, std::string> typeNames[2]; // unsigned, signed
  std::string typedefs, body, error;
  std::string cudaHelpers; // CUDA mode: the device helpers nvvmIntrinsic calls
  StringSet<> definedHelpers;
  std::string forward, prototypes, globals, bodies;
  unsigned numTypes = 0;
  DenseMap<const Value *, std::string> names;
  StringMap<uint64_t> weightOffset;
  StringSet<> usedGlobalNames;
  DenseMap<const GlobalValue *, std::string> globalNames;
  const Function *current = nullptr;
};

} // namespace infc::cwriter

#endif // INFC_LIB_TARGET_CWRITER_H
