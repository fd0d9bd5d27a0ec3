//===- Choices.h - the closed sets of values compile options take --*- C++ -*-===//
//
// Each option of `infc compile` and `infc-opt --infc-pipeline` that takes one of a few
// values is an enum here, with the names users write: one table per enum, so the flags,
// the pipeline string, the passes' options and the messages cannot disagree.
//
//===----------------------------------------------------------------------===//
#ifndef INFC_SUPPORT_CHOICES_H
#define INFC_SUPPORT_CHOICES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace infc {

/// What runs the model: the CPU, an NVIDIA GPU through the CUDA driver, or the CUDA
/// kernels' IR emulated on the CPU (to test the GPU lowering without a GPU).
enum class Target { CPU, CUDA, CUDAEmulator };

/// The operand type of matmuls and convolutions on the GPU: f32, f32 on tensor cores as
/// TF32, or stored in fp16 / bf16 (f32 sums in every case).
enum class Precision { FP32, TF32, FP16, BF16 };

/// CPU, --precision bf16: matmuls and convolutions of a shorter reduction (K: a conv's
/// KH x KW x C) stay f32. One or two tile steps of K cannot pay for rounding and padding A
/// and for storing C's tiles after each (MobileNetV2's expansions of 16 and 24 channels
/// ran slower in bf16), and f32 keeps their better kernels (a stem's space-to-depth).
constexpr int64_t kBf16MinReduction = 64;

/// How the CPU stores the weights of matmuls (constant B): as the model gives them (f32),
/// or quantized per group of K values of each column and widened to f32 in the kernel
/// (weight-only quantization: what a decode step streams shrinks): int8 with an f32 scale,
/// or int4 with an f32 scale and minimum.
enum class WeightFormat { FP32, Int8, Int4 };

/// K values of a column that share a scale by default (a power of two; 0: one scale per
/// column). int8: 64 weighs 6% in scales; SmolLM2's weights quantize to a relative L2 error
/// of 0.55-0.63% at 32, 0.61-0.72% at 64, 0.66-0.81% at 128 and 0.79-1.0% a column. int4:
/// 32, llama.cpp's Q4_1 block (a scale and a minimum per 32 values, 0.75 bytes a weight).
constexpr int64_t defaultWeightGroup(WeightFormat format) {
  return format == WeightFormat::Int4 ? 32 : 64;
}

/// How fp16/bf16 models store the activations between kernels (infc-half-activations):
/// every one whose readers take its elements as they are, only those each reader rounds to
/// half anyway (fp32 storage's results bit for bit), or none.
enum class Activations { Half, Rounded, FP32 };

/// The layout GPU convolutions and pools run in.
enum class ConvLayout { NHWC, NCHW };

/// The GPU kernels' index arithmetic.
enum class IndexWidth { I64, I32 };

template <typename E> struct ChoiceName {
  E value;
  llvm::StringLiteral name;
};

/// Every value of E with its name, in the order messages list them.
template <typename E> llvm::ArrayRef<ChoiceName<E>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<Target>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<Precision>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<WeightFormat>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<Activations>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<ConvLayout>> choiceNames();
template <> llvm::ArrayRef<ChoiceName<IndexWidth>> choiceNames();

template <typename E> std::optional<E> parseChoice(llvm::StringRef name) {
  for (const ChoiceName<E> &choice : choiceNames<E>())
    if (choice.name == name)
      return choice.value;
  return std::nullopt;
}

template <typename E> llvm::StringRef nameOf(E value) {
  for (const ChoiceName<E> &choice : choiceNames<E>())
    if (choice.value == value)
      return choice.name;
  return "";
}

/// The names for a message: "a, b or c".
template <typename E> std::string choiceList() {
  llvm::ArrayRef<ChoiceName<E>> choices = choiceNames<E>();
  std::string list;
  for (size_t i = 0; i < choices.size(); ++i)
    list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].name.str();
  return list;
}

} // namespace infc

#endif // INFC_SUPPORT_CHOICES_H
