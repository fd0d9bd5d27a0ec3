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
  auto *ioTy = llvm::StructType::get(ctx, {ptrTy, i32, i32, ptrTy, ptrTy, i64, ptrTy});
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
    llvm::Constant *dimIds = llvm::ConstantPointerNull::get(ptrTy);
    if (!v.dimIds.empty()) {
      llvm::Constant *ids = llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<int32_t>(v.dimIds));
      dimIds = new llvm::GlobalVariable(m, ids->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                        ids, "__infc_" + kind + "_dim_ids" + llvm::Twine(i));
    }
    entries.push_back(llvm::ConstantStruct::get(
        ioTy, {cString(m, v.name, "__infc_" + kind + "_name" + llvm::Twine(i)),
               llvm::ConstantInt::get(i32, v.dtype), llvm::ConstantInt::get(i32, v.shape.size()),
               shapeGv, value, llvm::ConstantInt::get(i64, v.value.size()), dimIds}));
  }
  auto *arrTy = llvm::ArrayType::get(ioTy, entries.size());
  return new llvm::GlobalVariable(m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(arrTy, entries), "__infc_" + kind);
}

/// The named dims (runtime/model_desc.h: infc_dim_desc[]), or null when there are none.
llvm::Constant *dimArray(llvm::Module &m, const std::vector<infc::NamedDim> &dims) {
  if (dims.empty())
    return nullptr;
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *dimTy = llvm::StructType::get(ctx, {ptrTy, i64, i64});
  std::vector<llvm::Constant *> entries;
  for (auto [i, dim] : llvm::enumerate(dims))
    entries.push_back(llvm::ConstantStruct::get(
        dimTy, {cString(m, dim.name, "__infc_dim_name" + llvm::Twine(i)),
                llvm::ConstantInt::get(i64, dim.min), llvm::ConstantInt::get(i64, dim.max)}));
  auto *arrTy = llvm::ArrayType::get(dimTy, entries.size());
  return new llvm::GlobalVariable(m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
                                  llvm::ConstantArray::get(arrTy, entries), "__infc_dims");
}

/// The kernel names of the profiled entry as a `const char *[]` named `symbol`.
llvm::GlobalVariable *nameArray(llvm::Module &m, const std::vector<std::string> &names,
                                const llvm::Twine &symbol,
                                llvm::GlobalValue::LinkageTypes linkage) {
  auto *ptrTy = llvm::PointerType::getUnqual(m.getContext());
  std::vector<llvm::Constant *> entries;
  for (auto [i, name] : llvm::enumerate(names))
    entries.push_back(cString(m, name, symbol + "_" + llvm::Twine(i)));
  auto *arrTy = llvm::ArrayType::get(ptrTy, entries.size());
  return new llvm::GlobalVariable(m, arrTy, true, linkage, llvm::ConstantArray::get(arrTy, entries),
                                  symbol);
}

/// What the descriptor points at besides the interface: the code of the model (one static
/// library) or of its first variant, and the variant table of a --specialize library.
struct DescriptorParts {
  llvm::Constant *entry = nullptr;
  llvm::Constant *profiledEntry = nullptr; // null: none
  llvm::Constant *kernelNames = nullptr;   // null: none
  size_t numKernels = 0;
  llvm::Constant *variants = nullptr; // null: none
  size_t numVariants = 0;
};

/// `infc__model_desc` exactly as runtime/model_desc.h lays out infc_model_desc.
void buildDescriptor(llvm::Module &m, const infc::ModelInterface &interface,
                     const DescriptorParts &parts) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *descTy = llvm::StructType::get(ctx, {i32,   i32,   i32, i32,   ptrTy, ptrTy, i64,   ptrTy,
                                             ptrTy, ptrTy, i64, ptrTy, i32,   ptrTy, i32,   ptrTy,
                                             i32,   ptrTy, i32, i32,   i32,   ptrTy, ptrTy, ptrTy});
  llvm::Constant *null = llvm::ConstantPointerNull::get(ptrTy);
  llvm::Constant *weights = null;
  if (interface.weightsArg)
    weights = m.getOrInsertGlobal("infc__weights", llvm::Type::getInt8Ty(ctx));
  auto orNull = [&](llvm::Constant *c) { return c ? c : null; };
  llvm::Constant *workspaceCoefficients = null;
  if (!interface.workspacePolynomial.empty()) {
    std::vector<uint64_t> coefficients(interface.workspacePolynomial.begin(),
                                       interface.workspacePolynomial.end());
    auto *array = llvm::ConstantDataArray::get(ctx, coefficients);
    auto *g = new llvm::GlobalVariable(m, array->getType(), true, llvm::GlobalValue::PrivateLinkage,
                                       array, "__infc_workspace_coefficients");
    workspaceCoefficients = g;
  }
  // infc_decoder_desc: the geometry of a --decoder library's KV cache.
  llvm::Constant *decoder = null;
  if (interface.decoder.layers > 0) {
    const infc::ModelInterface::Decoder &dd = interface.decoder;
    auto *decoderTy = llvm::StructType::get(ctx, {i32, i32, i32, i32, i64});
    decoder = new llvm::GlobalVariable(
        m, decoderTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantStruct::get(decoderTy, {llvm::ConstantInt::get(i32, dd.layers),
                                              llvm::ConstantInt::get(i32, dd.heads),
                                              llvm::ConstantInt::get(i32, dd.kvHeads),
                                              llvm::ConstantInt::get(i32, dd.headDim),
                                              llvm::ConstantInt::get(i64, dd.maxPositions)}),
        "__infc_decoder");
  }
  llvm::Constant *desc = llvm::ConstantStruct::get(
      descTy,
      {llvm::ConstantInt::get(i32, 10 /*INFC_MODEL_DESC_VERSION*/),
       llvm::ConstantInt::get(i32, interface.inputs.size()),
       llvm::ConstantInt::get(i32, interface.outputs.size()),
       llvm::ConstantInt::get(i32, interface.cuda ? 1 /*INFC_DEVICE_CUDA*/ : 0),
       ioArray(m, interface.inputs, "inputs"),
       ioArray(m, interface.outputs, "outputs"),
       llvm::ConstantInt::get(i64, interface.workspaceBytes),
       cString(m, interface.name, "__infc_model_name"),
       parts.entry,
       weights,
       llvm::ConstantInt::get(i64, interface.weightsBytes),
       orNull(parts.profiledEntry),
       llvm::ConstantInt::get(i32, parts.numKernels),
       orNull(parts.kernelNames),
       llvm::ConstantInt::get(i32, parts.numVariants),
       orNull(parts.variants),
       llvm::ConstantInt::get(i32, interface.dims.size()),
       orNull(dimArray(m, interface.dims)),
       llvm::ConstantInt::get(i32, (interface.dimsArg ? 1 /*INFC_DESC_DIMS_ARG*/ : 0) |
                                       (interface.batchLoop ? 2 /*INFC_DESC_BATCH_LOOP*/ : 0)),
       llvm::ConstantInt::get(i32, interface.workspacePolynomial.size()),
       llvm::ConstantInt::get(i32, interface.workspaceDim),
       workspaceCoefficients,
       decoder,
       null}); // prepare: only C source output has one (CWriterOptions::prepare)
  auto *gv = new llvm::GlobalVariable(m, descTy, true, llvm::GlobalValue::ExternalLinkage, desc,
                                      "infc__model_desc");
  gv->setVisibility(llvm::GlobalValue::HiddenVisibility);
  gv->setDSOLocal(true);
}

/// A hidden symbol one object of the library defines and another uses.
template <typename G> G *hiddenDecl(G *g) {
  g->setVisibility(llvm::GlobalValue::HiddenVisibility);
  g->setDSOLocal(true);
  return g;
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

std::unique_ptr<llvm::Module> infc::buildModelModule(ModuleOp module,
                                                     const ModelInterface &interface,
                                                     llvm::TargetMachine &target,
                                                     llvm::LLVMContext &ctx, std::string &error,
                                                     std::optional<unsigned> variant) {
  llvm::TargetMachine *tm = &target;
  std::unique_ptr<llvm::Module> m = translateModuleToLLVMIR(module, ctx, "infc_model");
  if (!m) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  m->setTargetTriple(tm->getTargetTriple());
  m->setDataLayout(tm->createDataLayout());

  llvm::Function *model = m->getFunction("main");
  size_t expected = (interface.weightsArg ? 2 : 1) + (interface.dimsArg ? 1 : 0) +
                    interface.inputs.size() + interface.outputs.size();
  if (!model || model->arg_size() != expected) {
    error = std::string("the lowered entry function does not take workspace, ") +
            (interface.weightsArg ? "weights, " : "") + (interface.dimsArg ? "dims, " : "") +
            "inputs and outputs";
    return nullptr;
  }
  // A variant's symbols are its own (`__infc_v<i>_...`): its entries and kernel names are
  // the only ones the descriptor object reaches; everything else becomes local.
  std::string prefix = variant ? "__infc_v" + std::to_string(*variant) + "_" : "__infc_";
  model->setName(prefix + "model_main");
  model->setLinkage(llvm::GlobalValue::InternalLinkage);
  llvm::Function *profiled = nullptr;
  if (interface.profiledEntry) {
    llvm::Function *copy = m->getFunction("main_profiled");
    if (!copy || copy->arg_size() != expected) {
      error = "the lowered module has no profiled entry of the entry's signature";
      return nullptr;
    }
    copy->setName(prefix + "model_main_profiled");
    copy->setLinkage(llvm::GlobalValue::InternalLinkage);
    profiled = buildEntry(*m, copy, prefix + "entry_profiled");
  }
  llvm::Function *entry = buildEntry(*m, model, prefix + "entry");
  if (variant) {
    for (llvm::GlobalObject &g : m->global_objects())
      if (!g.isDeclaration() && !g.getName().starts_with("llvm."))
        g.setLinkage(llvm::GlobalValue::InternalLinkage);
    for (llvm::Function *f : {entry, profiled})
      if (f)
        hiddenDecl(f)->setLinkage(llvm::GlobalValue::ExternalLinkage);
    if (profiled)
      hiddenDecl(nameArray(*m, interface.profileKernels, prefix + "kernel_names",
                           llvm::GlobalValue::ExternalLinkage));
  } else {
    // Everything else the model defines stays inside the .so.
    for (llvm::GlobalObject &g : m->global_objects())
      if (!g.isDeclaration() && !g.hasLocalLinkage())
        g.setVisibility(llvm::GlobalValue::HiddenVisibility);
    DescriptorParts parts;
    parts.entry = entry;
    if (profiled) {
      parts.profiledEntry = profiled;
      parts.numKernels = interface.profileKernels.size();
      parts.kernelNames = nameArray(*m, interface.profileKernels, "__infc_kernel_names",
                                    llvm::GlobalValue::PrivateLinkage);
    }
    buildDescriptor(*m, interface, parts);
  }
  // LLVM keeps to 256-bit vectors on some AVX-512 CPUs (Zen 4 among them) unless told
  // otherwise; the register tiles are laid out for 32 zmm registers.
  if (tm->getTargetTriple().isX86() && tm->getMCSubtargetInfo()->checkFeatures("+avx512f"))
    for (llvm::Function &f : *m)
      if (!f.isDeclaration()) {
        f.addFnAttr("prefer-vector-width", "512");
        f.addFnAttr("min-legal-vector-width", "512");
      }
  std::string verifyMessage;
  llvm::raw_string_ostream verifyStream(verifyMessage);
  if (llvm::verifyModule(*m, &verifyStream)) {
    error = "invalid LLVM IR: " + verifyMessage;
    return nullptr;
  }
  return m;
}

LogicalResult infc::emitModel(ModuleOp module, const ModelInterface &interface,
                              const TargetOptions &options, OutputKind kind,
                              llvm::raw_pwrite_stream &os, std::string &error,
                              std::optional<unsigned> variant) {
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine(options, error);
  if (!tm)
    return failure();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::Module> m = buildModelModule(module, interface, *tm, ctx, error, variant);
  if (!m)
    return failure();
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

/// The variant table and descriptor of a --specialize library into `m`.
static void addVariantDescriptor(llvm::Module &m, const std::vector<infc::ModelVariant> &variants,
                                 const infc::InterfaceFinish &finish) {
  using namespace infc;
  llvm::LLVMContext &ctx = m.getContext();
  auto *ptrTy = llvm::PointerType::getUnqual(ctx);
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *entryTy = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptrTy}, false);

  // The model's interface: a dim the variants disagree on is dynamic (-1). With generic
  // code for other shapes, its names of the dims (which its -1s need) and dims argument.
  ModelInterface merged = variants.front().interface;
  const ModelVariant *generic = nullptr;
  for (const ModelVariant &v : variants)
    if (v.generic)
      generic = &v;
  for (const ModelVariant &v : variants) {
    merged.workspaceBytes = std::max(merged.workspaceBytes, v.interface.workspaceBytes);
    for (auto [mine, theirs] : llvm::zip(merged.inputs, v.interface.inputs))
      for (auto [a, b] : llvm::zip(mine.shape, theirs.shape))
        if (a != b)
          a = -1;
    for (auto [mine, theirs] : llvm::zip(merged.outputs, v.interface.outputs)) {
      for (auto [a, b] : llvm::zip(mine.shape, theirs.shape))
        if (a != b)
          a = -1;
      // A name one variant's sizes contradict (see collectModelInterface) names nothing.
      if (mine.dimIds != theirs.dimIds)
        for (auto [k, id] : llvm::enumerate(mine.dimIds))
          if (k >= theirs.dimIds.size() || theirs.dimIds[k] != id)
            id = -1;
    }
  }
  if (generic) {
    for (auto [mine, theirs] : llvm::zip(merged.inputs, generic->interface.inputs))
      mine.dimIds = theirs.dimIds;
    for (auto [mine, theirs] : llvm::zip(merged.outputs, generic->interface.outputs))
      mine.dimIds = theirs.dimIds;
    merged.dims = generic->interface.dims;
    merged.dimsArg = true;
  }
  if (finish)
    finish(merged);
  // One `const int64_t *const[]` of the ios' shapes of a variant.
  auto shapes = [&](const std::vector<ModelValue> &ios, const llvm::Twine &name) {
    std::vector<llvm::Constant *> rows;
    for (auto [k, io] : llvm::enumerate(ios)) {
      llvm::Constant *dims = llvm::ConstantDataArray::get(ctx, llvm::ArrayRef<int64_t>(io.shape));
      rows.push_back(new llvm::GlobalVariable(m, dims->getType(), true,
                                              llvm::GlobalValue::PrivateLinkage, dims,
                                              name + "_" + llvm::Twine(k)));
    }
    auto *arrTy = llvm::ArrayType::get(ptrTy, rows.size());
    return new llvm::GlobalVariable(m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
                                    llvm::ConstantArray::get(arrTy, rows), name);
  };
  auto *variantTy =
      llvm::StructType::get(ctx, {ptrTy, ptrTy, ptrTy, ptrTy, ptrTy, i64, i32, ptrTy});
  std::vector<llvm::Constant *> rows;
  DescriptorParts parts;
  bool first = true;
  for (auto [i, v] : llvm::enumerate(variants)) {
    std::string prefix = "__infc_v" + std::to_string(i) + "_";
    auto declare = [&](const std::string &name) {
      return hiddenDecl(
          llvm::Function::Create(entryTy, llvm::GlobalValue::ExternalLinkage, name, m));
    };
    llvm::Constant *entry = declare(prefix + "entry");
    llvm::Constant *profiled = llvm::ConstantPointerNull::get(ptrTy);
    llvm::Constant *names = llvm::ConstantPointerNull::get(ptrTy);
    size_t numKernels = 0;
    if (v.interface.profiledEntry) {
      profiled = declare(prefix + "entry_profiled");
      numKernels = v.interface.profileKernels.size();
      names = hiddenDecl(new llvm::GlobalVariable(m, llvm::ArrayType::get(ptrTy, numKernels), true,
                                                  llvm::GlobalValue::ExternalLinkage, nullptr,
                                                  prefix + "kernel_names"));
    }
    // The generic code is the model's entry, not a row of the table.
    if (v.generic) {
      parts.entry = entry;
      parts.profiledEntry = v.interface.profiledEntry ? profiled : nullptr;
      parts.kernelNames = v.interface.profiledEntry ? names : nullptr;
      parts.numKernels = numKernels;
      continue;
    }
    rows.push_back(llvm::ConstantStruct::get(
        variantTy,
        {cString(m, v.label, prefix + "label"), shapes(v.interface.inputs, prefix + "input_shapes"),
         shapes(v.interface.outputs, prefix + "output_shapes"), entry, profiled,
         llvm::ConstantInt::get(i64, v.interface.workspaceBytes),
         llvm::ConstantInt::get(i32, numKernels), names}));
    if (first && !generic) {
      first = false;
      parts.entry = entry;
      parts.profiledEntry = v.interface.profiledEntry ? profiled : nullptr;
      parts.kernelNames = v.interface.profiledEntry ? names : nullptr;
      parts.numKernels = numKernels;
    }
  }
  auto *tableTy = llvm::ArrayType::get(variantTy, rows.size());
  parts.variants =
      new llvm::GlobalVariable(m, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, rows), "__infc_variants");
  parts.numVariants = rows.size();
  buildDescriptor(m, merged, parts);
}

LogicalResult infc::emitVariantDescriptor(const std::vector<ModelVariant> &variants,
                                          const TargetOptions &options, llvm::raw_pwrite_stream &os,
                                          std::string &error, const InterfaceFinish &finish) {
  if (variants.empty()) {
    error = "a library of no variant";
    return failure();
  }
  return emitDataObject(
      options, "infc_descriptor",
      [&](llvm::Module &m) { addVariantDescriptor(m, variants, finish); }, os, error);
}
