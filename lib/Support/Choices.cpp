//===- Choices.cpp - the names of the compile options' values -------------===//
#include "infc/Support/Choices.h"

using namespace infc;

template <> llvm::ArrayRef<ChoiceName<Target>> infc::choiceNames() {
  static constexpr ChoiceName<Target> names[] = {
      {Target::CPU, "cpu"}, {Target::CUDA, "cuda"}, {Target::CUDAEmulator, "cuda-emulator"}};
  return names;
}

template <> llvm::ArrayRef<ChoiceName<Precision>> infc::choiceNames() {
  static constexpr ChoiceName<Precision> names[] = {{Precision::FP32, "fp32"},
                                                    {Precision::TF32, "tf32"},
                                                    {Precision::FP16, "fp16"},
                                                    {Precision::BF16, "bf16"}};
  return names;
}

template <> llvm::ArrayRef<ChoiceName<WeightFormat>> infc::choiceNames() {
  static constexpr ChoiceName<WeightFormat> names[] = {
      {WeightFormat::FP32, "fp32"}, {WeightFormat::Int8, "int8"}, {WeightFormat::Int4, "int4"}};
  return names;
}

template <> llvm::ArrayRef<ChoiceName<Activations>> infc::choiceNames() {
  static constexpr ChoiceName<Activations> names[] = {
      {Activations::Half, "half"}, {Activations::Rounded, "rounded"}, {Activations::FP32, "fp32"}};
  return names;
}

template <> llvm::ArrayRef<ChoiceName<ConvLayout>> infc::choiceNames() {
  static constexpr ChoiceName<ConvLayout> names[] = {{ConvLayout::NHWC, "nhwc"},
                                                     {ConvLayout::NCHW, "nchw"}};
  return names;
}

template <> llvm::ArrayRef<ChoiceName<IndexWidth>> infc::choiceNames() {
  static constexpr ChoiceName<IndexWidth> names[] = {{IndexWidth::I64, "64"},
                                                     {IndexWidth::I32, "32"}};
  return names;
}
