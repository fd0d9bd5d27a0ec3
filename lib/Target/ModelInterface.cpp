//===- ModelInterface.cpp - the model's inputs and outputs for the runtime -===//
#include "infc/Target/Target.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

int32_t infc::dtypeCode(Type t) {
  // Values of infc_dtype in include/infc/runtime.h.
  if (t.isF32())
    return 1;
  if (t.isF64())
    return 2;
  if (t.isF16())
    return 3;
  if (t.isBF16())
    return 4;
  if (t.isInteger(1))
    return 13;
  // ABI 1.1: the 8-, 4- and 2-bit types, one element per byte.
  if (isa<Float8E4M3FNType>(t))
    return 14;
  if (isa<Float8E4M3FNUZType>(t))
    return 15;
  if (isa<Float8E5M2Type>(t))
    return 16;
  if (isa<Float8E5M2FNUZType>(t))
    return 17;
  if (isa<Float4E2M1FNType>(t))
    return 18;
  if (t.isInteger(4))
    return t.isUnsignedInteger() ? 20 : 19;
  if (t.isInteger(2))
    return t.isUnsignedInteger() ? 22 : 21;
  if (t.isUnsignedInteger())
    switch (t.getIntOrFloatBitWidth()) {
    case 8:
      return 9;
    case 16:
      return 10;
    case 32:
      return 11;
    case 64:
      return 12;
    default:
      return 0;
    }
  if (t.isSignlessInteger(8))
    return 5;
  if (t.isSignlessInteger(16))
    return 6;
  if (t.isSignlessInteger(32))
    return 7;
  if (t.isSignlessInteger(64))
    return 8;
  return 0;
}

/// The elements as a tensor of them is stored at run time: row-major, little-endian, a byte
/// per bool (the attribute packs bools to bits and a splat to one element).
static std::vector<char> storedBytes(DenseElementsAttr value) {
  std::vector<char> bytes;
  Type et = value.getElementType();
  unsigned width = std::max(8u, et.getIntOrFloatBitWidth()) / 8;
  auto append = [&](const APInt &bits) {
    APInt wide = bits.zext(width * 8); // a bool becomes the byte 0 or 1
    for (unsigned k = 0; k < width; ++k)
      bytes.push_back((char)wide.extractBitsAsZExtValue(8, 8 * k));
  };
  if (isa<FloatType>(et))
    for (const APFloat &f : value.getValues<APFloat>())
      append(f.bitcastToAPInt());
  else
    for (const APInt &i : value.getValues<APInt>())
      append(i);
  return bytes;
}

/// The `infc.dims` names of @main's arguments and results into dim ids and the model's
/// table of names, with the ranges of `infc.dim_ranges`.
static void collectDimNames(ModuleOp module, func::FuncOp func, infc::ModelInterface &interface) {
  auto ranges = module->getAttrOfType<DictionaryAttr>("infc.dim_ranges");
  llvm::StringMap<int32_t> ids;
  auto assign = [&](ArrayAttr names, infc::ModelValue &value) {
    if (!names || names.size() != value.shape.size())
      return;
    for (Attribute a : names) {
      llvm::StringRef name = cast<StringAttr>(a).getValue();
      if (name.empty()) {
        value.dimIds.push_back(-1);
        continue;
      }
      auto [it, added] = ids.try_emplace(name, (int32_t)interface.dims.size());
      if (added) {
        infc::NamedDim dim{name.str()};
        if (auto range = ranges ? ranges.getAs<DenseI64ArrayAttr>(name) : nullptr;
            range && range.size() == 2) {
          dim.min = range[0];
          dim.max = range[1];
        }
        interface.dims.push_back(dim);
      }
      value.dimIds.push_back(it->second);
    }
  };
  for (auto [i, v] : llvm::enumerate(interface.inputs))
    assign(func.getArgAttrOfType<ArrayAttr>(i, "infc.dims"), v);
  // A name fixed to different sizes on different inputs (--input-shape per input) names
  // nothing: the runtime would refuse every run for its one-size-per-name rule. Nor does
  // a name on an input whose dim --input-shape fixed while others keep it symbolic: runs
  // take its size from those (the fixed dim is static, 1 broadcasting).
  llvm::DenseMap<int32_t, llvm::SmallSetVector<int64_t, 2>> fixedSizes;
  for (const infc::ModelValue &v : interface.inputs)
    for (auto [id, size] : llvm::zip(v.dimIds, v.shape))
      if (id >= 0)
        fixedSizes[id].insert(size);
  for (infc::ModelValue &v : interface.inputs)
    for (auto [id, size] : llvm::zip(v.dimIds, v.shape)) {
      if (id < 0)
        continue;
      bool symbolic = fixedSizes[id].contains(-1);
      if (symbolic ? size != -1 : fixedSizes[id].size() > 1)
        id = -1;
    }
  // The size each name has on the inputs, where static.
  llvm::DenseMap<int32_t, int64_t> sizes;
  for (const infc::ModelValue &v : interface.inputs)
    for (auto [id, size] : llvm::zip(v.dimIds, v.shape))
      if (id >= 0)
        sizes[id] = size;
  for (auto [i, v] : llvm::enumerate(interface.outputs)) {
    assign(func.getResultAttrOfType<ArrayAttr>(i, "infc.dims"), v);
    // An exporter's output dim name can be wrong; the computed size says so.
    for (auto [id, size] : llvm::zip(v.dimIds, v.shape))
      if (auto it = sizes.find(id); id >= 0 && it != sizes.end() && it->second != size)
        id = -1;
  }
  auto none = [](const infc::ModelValue &v) {
    return llvm::all_of(v.dimIds, [](int32_t id) { return id < 0; });
  };
  for (infc::ModelValue &v : interface.inputs)
    if (none(v))
      v.dimIds.clear();
  for (infc::ModelValue &v : interface.outputs)
    if (none(v))
      v.dimIds.clear();
}

LogicalResult infc::collectModelInterface(ModuleOp module, ModelInterface &interface) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError("no entry function @main");
  if (auto name = module->getAttrOfType<StringAttr>("infc.graph_name"))
    interface.name = name.str();
  auto describe = [&](Type type, StringAttr name, int index, bool input,
                      ModelValue &value) -> LogicalResult {
    auto tensor = dyn_cast<RankedTensorType>(type);
    const char *kind = input ? "input" : "output";
    value.name = name ? name.str() : std::string(kind) + std::to_string(index);
    if (!tensor)
      return func.emitError() << kind << " '" << value.name << "' has no ranked shape";
    value.dtype = dtypeCode(tensor.getElementType());
    if (!value.dtype)
      return func.emitError() << kind << " '" << value.name << "' has unsupported dtype "
                              << tensor.getElementType();
    // A symbolic dim (`--dim`) is -1, as the runtime's descriptor has it.
    for (int64_t d : tensor.getShape())
      value.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
    return success();
  };
  FunctionType type = func.getFunctionType();
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    ModelValue v;
    if (failed(describe(type.getInput(i), func.getArgAttrOfType<StringAttr>(i, "infc.name"), i,
                        true, v)))
      return failure();
    if (auto value = func.getArgAttrOfType<DenseElementsAttr>(i, "infc.value"))
      v.value = storedBytes(value);
    interface.inputs.push_back(v);
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    ModelValue v;
    if (failed(describe(type.getResult(i), func.getResultAttrOfType<StringAttr>(i, "infc.name"), i,
                        false, v)))
      return failure();
    interface.outputs.push_back(v);
  }
  collectDimNames(module, func, interface);
  if (auto decoder = module->getAttrOfType<DictionaryAttr>("infc.decoder")) {
    auto get = [&](StringRef key) -> int32_t {
      auto v = decoder.getAs<IntegerAttr>(key);
      return v ? (int32_t)v.getInt() : 0;
    };
    interface.decoder = {get("layers"), get("heads"), get("kv_heads"), get("head_dim")};
    if (auto limit = decoder.getAs<IntegerAttr>("max_positions"))
      interface.decoder.maxPositions = limit.getInt();
    if (interface.decoder.layers <= 0)
      return module.emitError("infc.decoder without its layers");
  }
  // Generic code (symbolic dims kept by --dim): every -1 of an input is a named dim with a
  // range, and the importer keeps one symbolic dim, which every -1 of an output then is.
  auto dynamic = [](const ModelValue &v) { return llvm::is_contained(v.shape, -1); };
  interface.dimsArg = llvm::any_of(interface.inputs, dynamic);
  int32_t symbolic = -1;
  for (const ModelValue &v : interface.inputs)
    for (auto [k, size] : llvm::enumerate(v.shape)) {
      if (size != -1)
        continue;
      int32_t id = k < v.dimIds.size() ? v.dimIds[k] : -1;
      if (id < 0)
        return func.emitError() << "input '" << v.name << "' dim " << k
                                << " is symbolic without a name";
      if (symbolic >= 0 && id != symbolic)
        return func.emitError() << "more than one symbolic dim ('" << interface.dims[symbolic].name
                                << "', '" << interface.dims[id].name << "')";
      symbolic = id;
    }
  for (ModelValue &v : interface.outputs) {
    if (!dynamic(v))
      continue;
    if (symbolic < 0)
      return func.emitError() << "output '" << v.name
                              << "' has a symbolic dim that no input dim gives";
    if (v.dimIds.empty())
      v.dimIds.assign(v.shape.size(), -1);
    for (auto [size, id] : llvm::zip(v.shape, v.dimIds))
      if (size == -1)
        id = symbolic;
  }
  return success();
}
