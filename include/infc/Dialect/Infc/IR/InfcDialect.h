//===- InfcDialect.h - the infc dialect -------------------------*- C++ -*-===//
#ifndef INFC_DIALECT_INFC_IR_INFCDIALECT_H
#define INFC_DIALECT_INFC_IR_INFCDIALECT_H

#include "mlir/IR/Dialect.h"

#include "infc/Dialect/Infc/IR/InfcDialect.h.inc"

#endif // INFC_DIALECT_INFC_IR_INFCDIALECT_H
