//===- Compile.cpp - infc compile and infc inspect ------------------------===//
#include "Commands.h"
#include "Header.h"
#include "Npy.h"
#include "Quantize.h"

#include "infc/Codegen/CUDA/Passes.h"
#include "infc/Import/OnnxImporter.h"
#include "infc/Pipelines/Pipelines.h"
#include "infc/Target/Target.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace mlir;

int infc::fail(const std::string &message) {
  llvm::errs() << "infc: error: " << message << "\n";
  return 1;
}

namespace {
struct CompileOptions {
  std::string input, output, emit = "so", header, cpu, quantize, device = "cpu", gpus,
      cudaPath, precision = "fp32", gpuLayout, // gpuLayout: empty for the default (nhwc)
      activations, // empty for the precision's default
      gpuIndexBits;  // empty for the default (64)
  int optLevel = 3;
  bool report = false;
  bool emulatorChecks = false;
  infc::OnnxImportOptions import;
  infc::QuantizeOptions quantization;
};

bool parseShape(llvm::StringRef text, llvm::SmallVectorImpl<int64_t> &shape) {
  llvm::SmallVector<llvm::StringRef> dims;
  text.split(dims, 'x');
  for (llvm::StringRef d : dims) {
    int64_t v;
    if (d.getAsInteger(10, v) || v <= 0)
      return false;
    shape.push_back(v);
  }
  return !shape.empty() || text.empty();
}

/// --input-shape a=1x3,b=4 (also repeatable); "a=" gives a scalar.
bool parseInputShapes(llvm::StringRef spec, CompileOptions &options, std::string &error) {
  llvm::SmallVector<llvm::StringRef> items;
  spec.split(items, ',', -1, false);
  for (llvm::StringRef item : items) {
    auto [name, dims] = item.split('=');
    llvm::SmallVector<int64_t> shape;
    if (name.empty() || !item.contains('=') || !parseShape(dims, shape)) {
      error = "malformed --input-shape '" + item.str() + "' (expected NAME=D0xD1x..., e.g. "
              "input=1x3x224x224)";
      return false;
    }
    options.import.inputShapes[name] = shape;
  }
  return true;
}

/// --input-value a=x.npy (repeatable): the input specialized to the array's value (whose shape
/// also fixes the input's symbolic dims).
bool parseInputValue(llvm::StringRef spec, CompileOptions &options, std::string &error) {
  auto [name, file] = spec.split('=');
  if (name.empty() || file.empty() || !spec.contains('=')) {
    error = "malformed --input-value '" + spec.str() + "' (expected NAME=FILE.npy)";
    return false;
  }
  infc::NpyArray array;
  std::string npyError;
  if (!infc::readNpy(file.str(), array, npyError)) {
    error = "--input-value " + name.str() + ": " + npyError;
    return false;
  }
  auto &value = options.import.inputValues[name];
  value.dtype = array.dtype;
  value.shape = array.shape;
  value.data = std::move(array.data);
  return true;
}

/// The directory holding libinfc_runtime.a: <prefix>/lib beside <prefix>/bin/infc.
std::string runtimeDir(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, (void *)&runtimeDir);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "lib");
  return dir.str().str();
}

/// Writes to `path` (or stdout for "-") through a temporary that is kept only on success.
template <typename Fn> int writeOutput(const std::string &path, Fn write) {
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return infc::fail("cannot write '" + path + "': " + ec.message());
  std::string error;
  if (!write(out.os(), error))
    return infc::fail(error);
  out.keep();
  return 0;
}
/// The lowered module's objects (code, weights) linked with the runtime into `output`;
/// the objects go to a private temporary directory, removed on every path out.
/// What emission needs from the lowered module: the memory plan's workspace size into the
/// interface, and the weights pulled out of the IR (code refers to them by symbol).
std::vector<infc::WeightBlob> prepareForEmission(ModuleOp module,
                                                 infc::ModelInterface &interface) {
  if (auto ws = module->getAttrOfType<IntegerAttr>("infc.workspace_bytes"))
    interface.workspaceBytes = ws.getInt();
  if (auto wb = module->getAttrOfType<IntegerAttr>("infc.weights_bytes")) {
    interface.weightsArg = true;
    interface.weightsBytes = wb.getInt();
  }
  interface.cuda = module->hasAttr("gpu.container_module"); // the kernels were outlined
  std::vector<infc::WeightBlob> weights;
  infc::extractWeights(module, weights);
  return weights;
}

LogicalResult linkLibrary(ModuleOp module, infc::ModelInterface &interface,
                          const infc::TargetOptions &target, const std::string &runtimeDir,
                          const std::string &output, int64_t &weightBytes, std::string &error) {
  std::vector<infc::WeightBlob> weights = prepareForEmission(module, interface);
  weightBytes = 0;
  for (const infc::WeightBlob &w : weights)
    weightBytes += w.bytes.size();
  llvm::SmallString<128> tmp;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("infc", tmp)) {
    error = "cannot create a temporary directory: " + ec.message();
    return failure();
  }
  struct Cleanup {
    llvm::SmallString<128> dir;
    ~Cleanup() { llvm::sys::fs::remove_directories(dir); }
  } cleanup{tmp};
  auto objectPath = [&](const char *name) {
    llvm::SmallString<128> p(tmp);
    llvm::sys::path::append(p, name);
    return p.str().str();
  };
  std::string modelObj = objectPath("model.o"), weightsObj = objectPath("weights.o");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(modelObj, ec);
    if (ec || failed(infc::emitModel(module, interface, target, infc::OutputKind::Object, os,
                                     error))) {
      if (ec)
        error = ec.message();
      return failure();
    }
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(weightsObj, ec);
    if (ec || failed(infc::emitWeightsObject(weights, target, os, error))) {
      if (ec)
        error = ec.message();
      return failure();
    }
  }
  return infc::linkModel({modelObj, weightsObj}, runtimeDir, output, error);
}
} // namespace

int infc::compileCommand(const Args &args, const char *argv0) {
  CompileOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    llvm::StringRef a = args[i];
    auto value = [&](llvm::StringRef flag, std::string &out) {
      if (a == flag) {
        if (i + 1 >= args.size())
          return false;
        out = args[++i];
        return true;
      }
      if (a.starts_with((flag + "=").str())) {
        out = a.drop_front(flag.size() + 1).str();
        return true;
      }
      return false;
    };
    std::string v;
    if (value("-o", o.output) || value("--output", o.output) || value("--emit", o.emit) ||
        value("--header", o.header) || value("--cpu", o.cpu) || value("--target", o.device) ||
        value("--gpu", o.gpus) || value("--cuda-path", o.cudaPath) ||
        value("--precision", o.precision) || value("--gpu-layout", o.gpuLayout) ||
        value("--activations", o.activations) || value("--gpu-index-bits", o.gpuIndexBits))
      continue;
    if (value("--input-shape", v)) {
      std::string error;
      if (!parseInputShapes(v, o, error))
        return fail(error);
      continue;
    }
    if (value("--quantize", o.quantize) || value("--calibration", o.quantization.calibrationDir))
      continue;
    if (value("--calibration-method", v)) {
      auto [method, pct] = llvm::StringRef(v).split('=');
      o.quantization.method = method.str();
      if (!pct.empty() && (pct.getAsDouble(o.quantization.percentile) ||
                           !(o.quantization.percentile > 50 && o.quantization.percentile <= 100)))
        return fail("malformed --calibration-method '" + v +
                    "' (minmax, percentile or percentile=P with 50 < P <= 100)");
      continue;
    }
    if (value("--keep-float", v)) {
      llvm::SmallVector<llvm::StringRef> names;
      llvm::StringRef(v).split(names, ',', -1, false);
      for (llvm::StringRef name : names)
        o.quantization.keepFloat.push_back(name.str());
      continue;
    }
    if (a == "--report") {
      o.report = true;
      continue;
    }
    if (a == "--emulator-checks") {
      o.emulatorChecks = true;
      continue;
    }
    if (value("--input-value", v)) {
      std::string error;
      if (!parseInputValue(v, o, error))
        return fail(error);
      continue;
    }
    if (a.size() == 3 && a.starts_with("-O") && a[2] >= '0' && a[2] <= '3') {
      o.optLevel = a[2] - '0';
      continue;
    }
    if (a.starts_with("-"))
      return fail("unknown option '" + a.str() + "' for compile (see infc --help)");
    if (!o.input.empty())
      return fail("more than one model given ('" + o.input + "' and '" + a.str() + "')");
    o.input = a.str();
  }
  if (o.input.empty())
    return fail("compile needs a model: infc compile MODEL.onnx -o MODEL.so");
  if (o.output.empty()) {
    if (o.emit != "so")
      o.output = "-";
    else
      return fail("compile needs an output: -o MODEL.so");
  }
  if (!o.quantize.empty() && o.quantize != "int8")
    return fail("unknown --quantize=" + o.quantize + " (int8)");
  if (o.quantize.empty() != o.quantization.calibrationDir.empty())
    return fail(o.quantize.empty() ? "--calibration needs --quantize int8"
                                   : "--quantize int8 needs --calibration DIR (see docs/cli.md)");
  using infc::PipelineChoice;
  auto unknown = [&](llvm::StringRef flag, const std::string &value, PipelineChoice choice) {
    return fail("unknown " + flag.str() + "=" + value + " (" +
                infc::pipelineChoiceList(choice) + ")");
  };
  if (!infc::isPipelineChoice(PipelineChoice::Target, o.device))
    return unknown("--target", o.device, PipelineChoice::Target);
  if (o.emulatorChecks && o.device != "cuda-emulator")
    return fail("--emulator-checks needs --target cuda-emulator");
  if (o.device != "cuda" && (!o.gpus.empty() || !o.cudaPath.empty()))
    return fail("--gpu and --cuda-path need --target cuda");
  if (!infc::isPipelineChoice(PipelineChoice::Precision, o.precision))
    return unknown("--precision", o.precision, PipelineChoice::Precision);
  if (o.precision != "fp32" && o.device == "cpu")
    return fail("--precision " + o.precision + " needs --target cuda (the CPU computes in fp32)");
  if (!o.activations.empty() &&
      !infc::isPipelineChoice(PipelineChoice::Activations, o.activations))
    return unknown("--activations", o.activations, PipelineChoice::Activations);
  if (!o.activations.empty() && o.precision != "fp16" && o.precision != "bf16")
    return fail("--activations needs --precision fp16 or bf16 (activations are fp32 at " +
                o.precision + ")");
  if (!o.gpuLayout.empty() && !infc::isPipelineChoice(PipelineChoice::GpuLayout, o.gpuLayout))
    return unknown("--gpu-layout", o.gpuLayout, PipelineChoice::GpuLayout);
  if (!o.gpuLayout.empty() && o.device == "cpu")
    return fail("--gpu-layout needs --target cuda (the CPU convolves over NHWC)");
  if (!o.gpuIndexBits.empty() &&
      !infc::isPipelineChoice(PipelineChoice::GpuIndexBits, o.gpuIndexBits))
    return unknown("--gpu-index-bits", o.gpuIndexBits, PipelineChoice::GpuIndexBits);
  if (!o.gpuIndexBits.empty() && o.device != "cuda")
    return fail("--gpu-index-bits needs --target cuda (the emulator and the CPU index in 64 "
                "bits)");
  static const char *stages[] = {"so", "infc", "linalg", "llvm", "asm", "ptx"};
  if (llvm::none_of(stages, [&](const char *s) { return o.emit == s; }))
    return fail("unknown --emit=" + o.emit + " (so, infc, linalg, llvm, asm or ptx)");
  if (o.emit == "ptx" && o.device != "cuda")
    return fail("--emit=ptx needs --target cuda");
  auto started = std::chrono::steady_clock::now();

  DialectRegistry registry;
  registerInfcDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // One line per diagnostic: "infc: error: model.onnx: message".
  std::string modelPath = o.input;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    std::string where = modelPath;
    std::string message = diag.str();
    if (auto name = dyn_cast<NameLoc>(diag.getLocation());
        name && !llvm::StringRef(message).starts_with("node '"))
      message = "at " + name.getName().str() + ": " + message;
    llvm::errs() << "infc: error: " << where << ": " << message << "\n";
    return success();
  });

  if (!llvm::sys::fs::exists(o.input))
    return fail(o.input + ": no such file");
  OwningOpRef<ModuleOp> module = importOnnxModel(context, o.input, o.import);
  if (!module)
    return 1;
  ModelInterface interface;
  if (failed(collectModelInterface(*module, interface)))
    return 1;

  auto printIR = [&](llvm::raw_ostream &os, std::string &) {
    OpPrintingFlags flags;
    flags.elideLargeElementsAttrs(getenv("INFC_NO_ELIDE") ? 1 << 30 : 16);
    module->print(os, flags);
    return true;
  };
  TargetOptions target;
  target.cpu = o.cpu;
  target.optLevel = o.optLevel;
  std::string targetError;
  InfcPipelineOptions pipeline;
  pipeline.vectorBits = targetVectorBits(target, targetError);
  pipeline.vnni = targetHasAvx512Vnni(target);
  pipeline.amx = pipeline.vnni && targetHasAmxInt8(target);
  if (!pipeline.vnni) {
    Int8Kernel kernel = targetInt8KernelWithoutAvx512Vnni(target);
    pipeline.int8Kernel = kernel.instruction;
    pipeline.int8KernelBits = kernel.bits;
  }
  if (o.device != "cpu") {
    pipeline.device = Device::CUDA;
    pipeline.emulateGpu = o.device == "cuda-emulator";
    pipeline.emulatorChecks = o.emulatorChecks;
    pipeline.precision = o.precision;
    pipeline.activations = o.activations;
    pipeline.gpuChannelsLast = o.gpuLayout != "nchw";
    pipeline.gpuIndexBitwidth = infc::gpuIndexBitwidthOf(o.gpuIndexBits);
    if (!o.gpus.empty()) {
      llvm::SmallVector<llvm::StringRef> archs;
      llvm::StringRef(o.gpus).split(archs, ',', -1, false);
      pipeline.gpuArchs.clear();
      for (llvm::StringRef arch : archs) {
        arch = arch.trim();
        std::optional<unsigned> sm = gpuArchVersion(arch);
        if (!sm)
          return fail("--gpu: '" + arch.str() + "' is not a GPU architecture (sm_80, sm_90, "
                      "sm_90a, ...)");
        // The tensor-core kernels are mma.sync shapes of sm_80 (m16n8k16 halves, m16n8k32
        // bytes, TF32, bf16).
        if (*sm < 80)
          return fail("--gpu: '" + arch.str() + "' is older than sm_80, the oldest GPU the "
                      "CUDA target supports (Ampere)");
        if (!isNvptxProcessor(arch))
          return fail("--gpu: '" + arch.str() + "' is not a GPU LLVM's NVPTX back end knows "
                      "(sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_120, ...)");
        pipeline.gpuArchs.push_back(arch.str());
      }
      if (pipeline.gpuArchs.empty())
        return fail("--gpu needs at least one architecture (sm_80, sm_90, ...)");
    }
    if (!o.cudaPath.empty())
      pipeline.cudaPath = o.cudaPath;
    else if (const char *env = getenv("CUDA_PATH"); env && *env)
      pipeline.cudaPath = env;
  }
  if (!targetError.empty())
    return fail(o.input + ": " + targetError);
  // The graph passes first: calibration and the report work on their result.
  // onHost: for this CPU whatever the target (the calibration model runs here).
  auto runPipeline = [&](ModuleOp m, PipelineStage stop, bool skipGraph, bool onHost = false) {
    InfcPipelineOptions stage = pipeline;
    if (onHost) {
      stage.device = Device::CPU;
      stage.emulateGpu = false;
      stage.precision = "fp32";
    }
    stage.stopAfter = stop;
    stage.skipGraphPasses = skipGraph;
    PassManager pm(&context);
    buildInfcPipeline(pm, stage);
    if (getenv("INFC_PASS_TIMING")) // each pass's time, on stderr (docs/cli.md)
      pm.enableTiming();
    return succeeded(pm.run(m));
  };
  if (!runPipeline(*module, PipelineStage::Infc, false))
    return fail(o.input + ": compilation failed in the pass pipeline (see above)");
  std::string runtime = runtimeDir(argv0);
  std::map<std::string, LayerQuantization> layers;
  if (!o.quantize.empty()) {
    LibraryBuilder build = [&](ModuleOp m, const std::string &path, std::string &error) {
      ModelInterface calibration;
      if (failed(collectModelInterface(m, calibration)) ||
          !runPipeline(m, PipelineStage::LLVM, true, /*onHost=*/true)) {
        error = "the calibration model failed to compile (see above)";
        return false;
      }
      int64_t weightBytes;
      return succeeded(linkLibrary(m, calibration, target, runtime, path, weightBytes, error));
    };
    std::string error;
    auto calibrationStarted = std::chrono::steady_clock::now();
    if (!calibrateAndQuantize(*module, o.quantization, build, layers, error))
      return fail(o.input + ": " + error);
    // infc-fold-qdq turns the new Q/DQ pairs into integer kernels.
    if (!runPipeline(*module, PipelineStage::Infc, false))
      return fail(o.input + ": compilation failed in the pass pipeline (see above)");
    // Without an 8-bit dot product, int8 buys memory, not speed (bench/int8_cpus.py).
    if (pipeline.device == Device::CPU && !pipeline.vnni && pipeline.int8Kernel != "vpdpbusd")
      llvm::errs() << "infc: note: the target CPU has no VNNI (8-bit dot products): its int8 "
                      "matmuls run on "
                   << (pipeline.int8Kernel.empty()
                           ? "i32 multiplies (no AVX2), several times slower than fp32"
                           : "vpmaddwd, exact, but about as fast as fp32 there")
                   << "\n";
    llvm::errs() << llvm::format(
        "infc: calibrated on %s (%s) in %.2f s\n", o.quantization.calibrationDir.c_str(),
        o.quantization.method.c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - calibrationStarted)
            .count());
  }
  if (o.report)
    printQuantizationReport(*module, layers, o.output == "-" ? llvm::errs() : llvm::outs());
  if (o.emit == "infc")
    return writeOutput(o.output, printIR);
  PipelineStage stage = o.emit == "linalg" ? PipelineStage::Linalg
                        : o.emit == "ptx"  ? PipelineStage::Kernels
                                           : PipelineStage::LLVM;
  if (!runPipeline(*module, stage, true))
    return fail(o.input + ": compilation failed in the pass pipeline (see above)");
  if (o.emit == "linalg")
    return writeOutput(o.output, printIR);
  if (o.emit == "ptx") // the kernels as LLVM's NVPTX back end wrote them, before ptxas
    return writeOutput(o.output, [&](llvm::raw_ostream &os, std::string &) {
      module->walk([&](gpu::BinaryOp binary) {
        for (Attribute object : binary.getObjects())
          os << cast<gpu::ObjectAttr>(object).getObject().getValue();
      });
      return true;
    });

  if (o.emit == "llvm" || o.emit == "asm") {
    prepareForEmission(*module, interface);
    return writeOutput(o.output, [&](llvm::raw_ostream &os, std::string &error) {
      llvm::SmallString<0> buffer;
      llvm::raw_svector_ostream vos(buffer);
      if (failed(emitModel(*module, interface, target,
                           o.emit == "llvm" ? OutputKind::LLVMIR : OutputKind::Assembly, vos,
                           error)))
        return false;
      os << buffer;
      return true;
    });
  }
  std::string error;
  int64_t weightBytes = 0;
  if (failed(linkLibrary(*module, interface, target, runtime, o.output, weightBytes, error)))
    return fail(o.input + ": " + error);
  if (!o.header.empty() && writeOutput(o.header, [&](llvm::raw_ostream &os, std::string &) {
        writeModelHeader(os, interface, o.output);
        return true;
      }) != 0) {
    llvm::sys::fs::remove(o.output);
    return 1;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  llvm::errs() << llvm::format("infc: compiled %s -> %s in %.2f s (weights %.1f MB, "
                               "workspace %.1f MB)\n",
                               o.input.c_str(), o.output.c_str(), seconds, weightBytes / 1e6,
                               interface.workspaceBytes / 1e6);
  return 0;
}

int infc::inspectCommand(const Args &args) {
  if (args.size() != 1)
    return fail("usage: infc inspect MODEL.onnx");
  OnnxModelSummary s;
  std::string error;
  if (failed(summarizeOnnxModel(args[0], s, error)))
    return fail(args[0] + ": " + error);
  llvm::outs() << "model: " << args[0] << "\n  graph: " << s.graphName
               << "\n  producer: " << s.producer << "\n  ir_version: " << s.irVersion
               << "\n  opsets:";
  for (auto &[domain, version] : s.opsets)
    llvm::outs() << " " << domain << "=" << version;
  llvm::outs() << "\n  initializers: " << s.numInitializers << "\ninputs:\n";
  for (auto &v : s.inputs)
    llvm::outs() << "  " << v.name << ": " << v.dtype << " " << v.shape << "\n";
  llvm::outs() << "outputs:\n";
  for (auto &v : s.outputs)
    llvm::outs() << "  " << v.name << ": " << v.dtype << " " << v.shape << "\n";
  llvm::outs() << "ops:\n";
  for (auto &[op, count] : s.opHistogram) {
    bool unsupported = llvm::is_contained(s.unsupportedOps, op);
    llvm::outs() << llvm::format("  %-28s %6lld", op.c_str(), (long long)count)
                 << (unsupported ? "   UNSUPPORTED" : "") << "\n";
  }
  if (!s.unsupportedOps.empty()) {
    llvm::outs() << "unsupported ops: " << s.unsupportedOps.size() << " (";
    llvm::interleaveComma(s.unsupportedOps, llvm::outs());
    llvm::outs() << ")\n";
  } else {
    llvm::outs() << "all ops supported\n";
  }
  return 0;
}
