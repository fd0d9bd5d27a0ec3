//===- Calibration.h - int8 calibration and the quantization report -*- C++ -*-===//
#ifndef INFC_QUANTIZATION_CALIBRATION_H
#define INFC_QUANTIZATION_CALIBRATION_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace infc {
struct QuantizeOptions {
  std::string calibrationDir;
  /// minmax: the whole range seen; percentile: the central `percentile` % of the values
  /// (the default: on a trained text recognizer it kept the fp32 top-1 on 99.15% of the
  /// steps against minmax's 98.30%, and it was as good on the seeded ResNet-50 and BERT).
  std::string method = "percentile";
  double percentile = 99.99;
  /// Node names or ONNX op types to keep in float.
  std::vector<std::string> keepFloat;
  int threads = 0;
  /// The batch loop's inputs that carry the batch (dim 0): the model is the code for one
  /// row, so a calibration sample of N rows there runs as N samples of one row.
  std::vector<std::string> rowInputs;
};

/// What calibration decided for one convolution or matmul.
struct LayerQuantization {
  bool quantized = false;
  std::string why; // when kept in float
  double lo = 0, hi = 0;
  /// Expected relative RMS errors: of the activation's quantization (rounding, plus
  /// clipping with percentile) and of the dequantized weights.
  double activationError = 0, weightError = 0;
};

/// One convolution or matmul as calibration left it, in the order of the module's walk: its
/// node location and the activation range it was quantized with (none: it stayed float).
struct CalibratedOp {
  std::string location;
  std::optional<std::pair<double, double>> range;
};

/// Builds a model.so from a module that has been through the graph passes.
using LibraryBuilder =
    std::function<bool(mlir::ModuleOp module, const std::string &path, std::string &error)>;

/// Runs the float model (built by `build`, with each quantizable activation as an extra
/// output) on the calibration samples, then quantizes `module` in place (infc-quantize-int8).
/// `layers` maps node locations ("name(OpType)") to the decisions; `calibrated`, when given,
/// gets every convolution and matmul's range in walk order (a node may import to several:
/// an LSTM's input and recurrent products), for quantizeWithRanges.
bool calibrateAndQuantize(mlir::ModuleOp module, const QuantizeOptions &options,
                          const LibraryBuilder &build,
                          std::map<std::string, LayerQuantization> &layers, std::string &error,
                          std::vector<CalibratedOp> *calibrated = nullptr);

/// Quantizes `module` in place with the ranges another module of the same model was
/// calibrated with (calibrateAndQuantize's `calibrated`): a --specialize variant beside the
/// calibrated generic code. The two must have the same convolutions and matmuls in the same
/// order (an error names the first that differs).
bool quantizeWithRanges(mlir::ModuleOp module, const std::vector<CalibratedOp> &calibrated,
                        std::string &error);

/// The table of --report: every convolution and matmul after the graph passes, whether it
/// runs on integers, and (when calibrated) its range and expected errors.
void printQuantizationReport(mlir::ModuleOp module,
                             const std::map<std::string, LayerQuantization> &layers,
                             llvm::raw_ostream &os);
} // namespace infc

#endif // INFC_QUANTIZATION_CALIBRATION_H
