//===- ModelObject.cpp - LLVM IR of a model: entry, descriptor, codegen ---===//
#include "TargetMachine.h"
#include "infc/Target/Target.h"

#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"

using namespace mlir;

namespace {
/// `void <name>(void **args)`: unpacks args into the bare-pointer model function.
llvm::Function *buildEntry(llvm::Module &m, llvm::Function *model, llvm::StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *fnTy = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);
  auto *entry = llvm::Function::Create(fnTy, llvm::GlobalValue::InternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", entry));
  llvm::SmallVector<llvm::Value *> args;
  for (unsigned i = 0; i < model->arg_size(); ++i) {
    llvm::Value *slot = b.CreateConstGEP1_64(ptrTy, entry->getArg(0), i);
    args.push_back(b.CreateLoad(ptrTy, slot));
  }
  b.CreateCall(model, args);
  b.CreateRetVoid();
  return entry;
}

llvm::Constant *cString(llvm::Module &m, llvm::StringRef s, const llvm::Twine &name) {
  llvm::Constant *data = llvm::ConstantDataArray::getString(m.getContext(), s);
  auto *gv = new llvm::GlobalVariable(m, data->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                      data, name);
  gv->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
  return gv;
}

/// The io descriptor array (runtime/model_desc.h: infc_io_desc).
llvm::Constant *ioArray(llvm::Module &m, const std::vector<infc::ModelValue> &values,
                        llvm::StringRef kind) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *ioTy = llvm::StructType::get(ctx, {ptrTy, i32, i32, ptrTy, ptrTy, i64});
  std::vector<llvm::Constant *> entries;
  for (auto [i, v] : llvm::enumerate(values)) {
    llvm::Constant *shape = llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<int64_t>(v.shape));
    auto *shapeGv =
        new llvm::GlobalVariable(m, shape->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                 shape, "__infc_" + kind + "_shape" + llvm::Twine(i));
    llvm::Constant *value = llvm::ConstantPointerNull::get(ptrTy);
    if (!v.value.empty()) {
      llvm::Constant *bytes = llvm::ConstantDataArray::get(
          ctx, llvm::ArrayRef<uint8_t>((const uint8_t *)v.value.data(), v.value.size()));
      value = new llvm::GlobalVariable(m, bytes->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                       bytes, "__infc_" + kind + "_value" + llvm::Twine(i));
    }
    entries.push_back(llvm::ConstantStruct::get(
        ioTy, {cString(m, v.name, "__infc_" + kind + "_name" + llvm::Twine(i)),
               llvm::ConstantInt::get(i32, v.dtype), llvm::ConstantInt::get(i32, v.shape.size()),
               shapeGv, value, llvm::ConstantInt::get(i64, v.value.size())}));
  }
  auto *arrTy = llvm::ArrayType::get(ioTy, entries.size());
  return new llvm::GlobalVariable(m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(arrTy, entries), "__infc_" + kind);
}

/// The kernel names of the profiled entry as a `const char *[]`.
llvm::Constant *nameArray(llvm::Module &m, const std::vector<std::string> &names) {
  auto *ptrTy = llvm::PointerType::getUnqual(m.getContext());
  std::vector<llvm::Constant *> entries;
  for (auto [i, name] : llvm::enumerate(names))
    entries.push_back(cString(m, name, "__infc_kernel_name" + llvm::Twine(i)));
  auto *arrTy = llvm::ArrayType::get(ptrTy, entries.size());
  return new llvm::GlobalVariable(m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(arrTy, entries), "__infc_kernel_names");
}

/// `infc__model_desc` exactly as runtime/model_desc.h lays out infc_model_desc.
void buildDescriptor(llvm::Module &m, const infc::ModelInterface &interface, llvm::Function *entry,
                     llvm::Function *profiledEntry) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *descTy = llvm::StructType::get(
      ctx, {i32, i32, i32, i32, ptrTy, ptrTy, i64, ptrTy, ptrTy, ptrTy, i64, ptrTy, i32, ptrTy});
  llvm::Constant *weights = llvm::ConstantPointerNull::get(ptrTy);
  if (interface.weightsArg)
    weights = m.getOrInsertGlobal("infc__weights", llvm::Type::getInt8Ty(ctx));
  llvm::Constant *profiled = llvm::ConstantPointerNull::get(ptrTy);
  llvm::Constant *kernelNames = llvm::ConstantPointerNull::get(ptrTy);
  size_t numKernels = 0;
  if (profiledEntry) {
    profiled = profiledEntry;
    numKernels = interface.profileKernels.size();
    kernelNames = nameArray(m, interface.profileKernels);
  }
  llvm::Constant *desc = llvm::ConstantStruct::get(
      descTy, {llvm::ConstantInt::get(i32, 4 /*INFC_MODEL_DESC_VERSION*/),
               llvm::ConstantInt::get(i32, interface.inputs.size()),
               llvm::ConstantInt::get(i32, interface.outputs.size()),
               llvm::ConstantInt::get(i32, interface.cuda ? 1 /*INFC_DEVICE_CUDA*/ : 0),
               ioArray(m, interface.inputs, "inputs"), ioArray(m, interface.outputs, "outputs"),
               llvm::ConstantInt::get(i64, interface.workspaceBytes),
               cString(m, interface.name, "__infc_model_name"), entry, weights,
               llvm::ConstantInt::get(i64, interface.weightsBytes), profiled,
               llvm::ConstantInt::get(i32, numKernels), kernelNames});
  auto *gv = new llvm::GlobalVariable(m, descTy, true, llvm::GlobalValue::ExternalLinkage, desc,
                                      "infc__model_desc");
  gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
  gv->setDSOLocal(true);
}

void optimize(llvm::Module &m, llvm::TargetMachine *tm, int level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  llvm::PassBuilder pb(tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level >= 3   ? llvm::OptimizationLevel::O3
                                : level == 2 ? llvm::OptimizationLevel::O2
                                : level == 1 ? llvm::OptimizationLevel::O1
                                             : llvm::OptimizationLevel::O0;
  llvm::ModulePassManager mpm =
      level == 0 ? pb.buildO0DefaultPipeline(opt) : pb.buildPerModuleDefaultPipeline(opt);
  mpm.run(m, mam);
}
} // namespace

LogicalResult infc::emitModel(ModuleOp module, const ModelInterface &interface,
                              const TargetOptions &options, OutputKind kind,
                              llvm::raw_pwrite_stream &os, std::string &error) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm)
    return failure();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = translateModuleToLLVMIR(module, ctx, "infc_model");
  if (!m) {
    error = "translation to LLVM IR failed";
    return failure();
  }
  m->setTargetTriple(tm->getTargetTriple());
  m->setDataLayout(tm->createDataLayout());

  llvm::Function *model = m->getFunction("main");
  size_t expected =
      (interface.weightsArg ? 2 : 1) + interface.inputs.size() + interface.outputs.size();
  if (!model || model->arg_size() != expected) {
    error = interface.weightsArg ? "the lowered entry function does not take workspace, weights, "
                                   "inputs and outputs"
                                 : "the lowered entry function does not take workspace, inputs and "
                                   "outputs";
    return failure();
  }
  model->setName("__infc_model_main");
  model->setLinkage(llvm::GlobalValue::InternalLinkage);
  llvm::Function *profiled = nullptr;
  if (interface.profiledEntry) {
    llvm::Function *copy = m->getFunction("main_profiled");
    if (!copy || copy->arg_size() != expected) {
      error = "the lowered module has no profiled entry of the entry's signature";
      return failure();
    }
    copy->setName("__infc_model_main_profiled");
    copy->setLinkage(llvm::GlobalValue::InternalLinkage);
    profiled = buildEntry(*m, copy, "__infc_entry_profiled");
  }
  // Everything else the model defines stays inside the .so.
  for (llvm::GlobalObject &g : m->global_objects())
    if (!g.isDeclaration() && !g.hasLocalLinkage())
      g.setVisibility(llvm::GlobalValue::HiddenVisibility);
  buildDescriptor(*m, interface, buildEntry(*m, model, "__infc_entry"), profiled);
  // LLVM keeps to 256-bit vectors on some AVX-512 CPUs (Zen 4 among them) unless told
  // otherwise; the register tiles are laid out for 32 zmm registers.
  if (tm->getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &f : *m)
      if (!f.isDeclaration()) {
        f.addFnAttr("prefer-vector-width", "512");
        f.addFnAttr("min-legal-vector-width", "512");
      }
  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(*m, &verifyStream)) {
    error = "invalid LLVM IR: " + verifyMessage;
    return failure();
  }
  optimize(*m, tm.get(), options.optLevel);
  if (kind == OutputKind::LLVMIR) {
    m->print(os, nullptr);
    return success();
  }
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr,
                              kind == OutputKind::Object ? llvm::CodeGenFileType::ObjectFile
                                                         : llvm::CodeGenFileType::AssemblyFile)) {
    error = "the target cannot emit this file type";
    return failure();
  }
  pm.run(*m);
  return success();
}
