//===- infc-opt.cpp - the infc pass driver for lit tests ------------------===//
#include "infc/Codegen/CPU/Passes.h"
#include "infc/Codegen/CUDA/Passes.h"
#include "infc/Codegen/Common/Passes.h"
#include "infc/Conversion/Passes.h"
#include "infc/Dialect/Infc/IR/InfcDialect.h"
#include "infc/Dialect/Infc/Transforms/Passes.h"
#include "infc/Pipelines/Pipelines.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  infc::registerInfcDialects(registry);
  infc::registerInfcTransformsPasses();
  infc::registerInfcConversionPasses();
  infc::registerInfcCodegenCommonPasses();
  infc::registerInfcCodegenCPUPasses();
  infc::registerInfcCodegenCUDAPasses();
  infc::registerInfcPipelines();
  infc::registerUpstreamPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(argc, argv, "infc pass driver\n", registry));
}
