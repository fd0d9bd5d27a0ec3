//===- InfcDialect.cpp - infc dialect registration ------------------------===//
#include "infc/Dialect/Infc/IR/InfcDialect.h"
#include "infc/Dialect/Infc/IR/InfcOps.h"

using namespace mlir;
using namespace infc;

#include "infc/Dialect/Infc/IR/InfcDialect.cpp.inc"

void InfcDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "infc/Dialect/Infc/IR/InfcOps.cpp.inc"
      >();
}

Operation *InfcDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
