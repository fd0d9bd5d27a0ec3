//===- TargetMachine.cpp - the LLVM TargetMachine for a compile -----------===//
#include "TargetMachine.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"
#include "llvm/TargetParser/Triple.h"

std::unique_ptr<llvm::TargetMachine> infc::createTargetMachine(const TargetOptions &options,
                                                               std::string &error) {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple(targetTriple(options));
  bool cross = isCrossTarget(options);
  if (!options.triple.empty() &&
      (!triple.isOSLinux() || (cross && triple.getArch() != llvm::Triple::aarch64))) {
    error = "--target-triple " + options.triple +
            ": Linux on x86-64 or aarch64 (aarch64-linux-gnu) only";
    return nullptr;
  }
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu = options.cpu, features;
  if (cross && (cpu.empty() || cpu == "generic")) {
    cpu = "generic"; // armv8-a with NEON: every 64-bit ARM core
  } else if (cross && (cpu == "native" || cpu == "host")) {
    error = "--cpu " + cpu + " names this machine's CPU, not one of " + triple.str() +
            " (try generic, neoverse-n1, cortex-a76, neoverse-v1)";
    return nullptr;
  } else if (cpu.empty() || cpu == "native" || cpu == "host") {
    cpu = llvm::sys::getHostCPUName().str();
    llvm::SubtargetFeatures f;
    for (const auto &[name, enabled] : llvm::sys::getHostCPUFeatures())
      f.AddFeature(name, enabled);
    features = f.getString();
  } else {
    const llvm::MCSubtargetInfo *sti = target->createMCSubtargetInfo(triple, "", "");
    bool known = sti && sti->isCPUStringValid(cpu);
    delete sti;
    if (!known) {
      error = "unknown CPU '" + cpu + "' for " + triple.str() +
              (triple.isAArch64() ? " (try generic, neoverse-n1, cortex-a76, neoverse-v1)"
                                  : " (try native, x86-64-v3, x86-64-v4, znver4, skylake-avx512)");
      return nullptr;
    }
  }
  llvm::TargetOptions to;
  auto level = options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
               : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                       : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error = "cannot create a target machine for " + triple.str();
  return tm;
}

std::string infc::targetTriple(const TargetOptions &options) {
  return llvm::Triple::normalize(options.triple.empty() ? llvm::sys::getDefaultTargetTriple()
                                                        : options.triple);
}

bool infc::isCrossTarget(const TargetOptions &options) {
  return !options.triple.empty() && llvm::Triple(targetTriple(options)).getArch() !=
                                        llvm::Triple(llvm::sys::getDefaultTargetTriple()).getArch();
}

/// Whether the target is x86 and its CPU has every feature of `features` ("+a,+b").
static bool x86TargetHas(const infc::TargetOptions &options, llvm::StringRef features) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = infc::createTargetMachine(options, error);
  return tm && tm->getTargetTriple().isX86() && tm->getMCSubtargetInfo()->checkFeatures(features);
}

bool infc::targetHasAvx512Vnni(const TargetOptions &options) {
  return x86TargetHas(options, "+avx512vnni");
}

bool infc::targetHasAmxInt8(const TargetOptions &options) {
  return x86TargetHas(options, "+amx-tile,+amx-int8");
}

bool infc::targetHasAmxBf16(const TargetOptions &options) {
  return x86TargetHas(options, "+amx-tile,+amx-bf16");
}

bool infc::targetHasAvx512Bf16(const TargetOptions &options) {
  return x86TargetHas(options, "+avx512bf16");
}

bool infc::targetHasFastVdpbf16ps(const TargetOptions &options) {
  // By CPU name: LLVM's scheduling models give Zen 4's vdpbf16ps three times an FMA's
  // reciprocal throughput, where a Zen 4 core measured 116 GMAC/s against its FMAs' 58
  // (docs/benchmarks.md, "bf16 on the CPU").
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = infc::createTargetMachine(options, error);
  if (!tm || !tm->getTargetTriple().isX86() ||
      !tm->getMCSubtargetInfo()->checkFeatures("+avx512bf16"))
    return false;
  llvm::StringRef cpu = tm->getTargetCPU();
  unsigned generation = 0;
  return cpu.consume_front("znver") && !cpu.getAsInteger(10, generation) && generation >= 4;
}

infc::Int8Kernel infc::targetInt8KernelWithoutAvx512Vnni(const TargetOptions &options) {
  std::string error;
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm || !tm->getTargetTriple().isX86())
    return {}; // AArch64: the i32 kernel (an SDOT kernel is not built yet)
  const llvm::MCSubtargetInfo *sti = tm->getMCSubtargetInfo();
  if (sti->checkFeatures("+avxvnni"))
    return {"vpdpbusd", 256};
  if (sti->checkFeatures("+avx512bw"))
    return {"vpmaddwd", 512};
  if (sti->checkFeatures("+avx2"))
    return {"vpmaddwd", 256};
  return {};
}

int64_t infc::targetVectorBits(const TargetOptions &options, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm || !tm->getTargetTriple().isX86())
    return 128; // AArch64: NEON's 128 bits (SVE's lengths are not used yet)
  const llvm::MCSubtargetInfo *sti = tm->getMCSubtargetInfo();
  if (sti->checkFeatures("+avx512f"))
    return 512;
  if (sti->checkFeatures("+avx"))
    return 256;
  return 128;
}

llvm::LogicalResult infc::emitDataObject(const TargetOptions &options, llvm::StringRef name,
                                         llvm::function_ref<void(llvm::Module &)> fill,
                                         llvm::raw_pwrite_stream &os, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm)
    return llvm::failure();
  llvm::LLVMContext ctx;
  llvm::Module module(name, ctx);
  module.setTargetTriple(tm->getTargetTriple());
  module.setDataLayout(tm->createDataLayout());
  fill(module);
  std::string message;
  llvm::raw_string_ostream stream(message);
  if (llvm::verifyModule(module, &stream)) {
    error = ("invalid " + name + " IR: ").str() + message;
    return llvm::failure();
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return llvm::failure();
  }
  pm.run(module);
  return llvm::success();
}
