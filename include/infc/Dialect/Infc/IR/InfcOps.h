//===- InfcOps.h - infc op declarations -------------------------*- C++ -*-===//
#ifndef INFC_DIALECT_INFC_IR_INFCOPS_H
#define INFC_DIALECT_INFC_IR_INFCOPS_H

#include "infc/Dialect/Infc/IR/InfcDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace infc {
/// The elementwise family (Infc_Elementwise in InfcOps.td): a marker, no methods.
template <typename ConcreteType>
class InfcElementwise : public mlir::OpTrait::TraitBase<ConcreteType, InfcElementwise> {};
} // namespace infc

#define GET_OP_CLASSES
#include "infc/Dialect/Infc/IR/InfcOps.h.inc"

namespace infc {
/// numpy broadcasting of two static shapes; failure if they are incompatible.
llvm::LogicalResult broadcastShapes(llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b,
                                    llvm::SmallVectorImpl<int64_t> &result);
/// The runtime's attention kernel that infc.paged_attention lowers to (runtime/kv.c):
///   void infc__paged_attention(int32_t layer, int64_t rows, int32_t heads, int32_t kv_heads,
///                              int32_t head_dim, float scale, const float *q, const float *k,
///                              const float *v, float *out);
/// infc-recognize-attention declares it (func.func private, memref<1xf32> for the pointers).
inline constexpr llvm::StringLiteral kPagedAttentionKernel = "infc__paged_attention";
/// The runtime's function that infc.decoder_logits calls (runtime/kv.c):
///   int64_t infc__llm_logit_rows(int64_t rows, int64_t width, const float *in, float *out);
/// copies the rows of `in` whose logits the step uses to the front of `out` and returns how
/// many; infc-recognize-attention declares it beside the kernel.
inline constexpr llvm::StringLiteral kLogitRowsFunction = "infc__llm_logit_rows";
/// Output extent of a sliding window (convolution, pooling) along one dim.
int64_t windowOutputSize(int64_t in, int64_t kernel, int64_t stride, int64_t padBegin,
                         int64_t padEnd, int64_t dilation, bool ceilMode);
} // namespace infc

#endif // INFC_DIALECT_INFC_IR_INFCOPS_H
