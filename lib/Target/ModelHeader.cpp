//===- ModelHeader.cpp - the per-model C header of --header ---------------===//
#include "infc/Target/Target.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

using namespace llvm;

std::string infc::cIdentifier(StringRef s) {
  std::string out;
  for (char c : s)
    out += isAlnum(c) ? c : '_';
  if (out.empty() || isDigit(out[0]))
    out = "m_" + out;
  return out;
}

const char *infc::dtypeCType(int32_t dtype) {
  switch (dtype) {
  case 1:
    return "float";
  case 2:
    return "double";
  case 3:
  case 4:
    return "uint16_t";
  case 5:
    return "int8_t";
  case 6:
    return "int16_t";
  case 7:
    return "int32_t";
  case 8:
    return "int64_t";
  case 9:
    return "uint8_t";
  case 10:
    return "uint16_t";
  case 11:
    return "uint32_t";
  case 12:
    return "uint64_t";
  case 13:
    return "uint8_t";
  case 14:
  case 15:
  case 16:
  case 17:
  case 18:
  case 20:
  case 22:
    return "uint8_t"; // raw bits
  case 19:
  case 21:
    return "int8_t";
  default:
    return "void";
  }
}

namespace {

const char *dtypeEnum(int32_t dtype) {
  static const char *names[] = {"INFC_DTYPE_INVALID",
                                "INFC_F32",
                                "INFC_F64",
                                "INFC_F16",
                                "INFC_BF16",
                                "INFC_I8",
                                "INFC_I16",
                                "INFC_I32",
                                "INFC_I64",
                                "INFC_U8",
                                "INFC_U16",
                                "INFC_U32",
                                "INFC_U64",
                                "INFC_BOOL",
                                "INFC_F8E4M3FN",
                                "INFC_F8E4M3FNUZ",
                                "INFC_F8E5M2",
                                "INFC_F8E5M2FNUZ",
                                "INFC_F4E2M1",
                                "INFC_I4",
                                "INFC_U4",
                                "INFC_I2",
                                "INFC_U2"};
  return dtype >= 0 && dtype < (int32_t)std::size(names) ? names[dtype] : names[0];
}
} // namespace

/// The dims a run passes to the typed functions: each named dim some input or output
/// varies in (-1), in the interface's order. Empty when every shape is static.
static std::vector<int32_t> varyingDims(const infc::ModelInterface &interface) {
  std::vector<bool> varies(interface.dims.size());
  for (const auto *values : {&interface.inputs, &interface.outputs})
    for (const infc::ModelValue &v : *values)
      for (auto [k, size] : llvm::enumerate(v.shape))
        if (size == -1 && k < v.dimIds.size() && v.dimIds[k] >= 0)
          varies[v.dimIds[k]] = true;
  std::vector<int32_t> ids;
  for (auto [id, yes] : llvm::enumerate(varies))
    if (yes)
      ids.push_back(id);
  return ids;
}

LogicalResult infc::checkHeaderInterface(const ModelInterface &interface, std::string &error) {
  // The run function's parameters: the dims' sizes, the inputs, the outputs (`_out`); two
  // names that become one C identifier would not compile.
  llvm::StringMap<std::string> parameters;
  auto claim = [&](const std::string &id, const std::string &what) {
    if (StringRef(id).starts_with("infc_")) { // (the run function's own names)
      error = "--header: " + what + " becomes the C parameter '" + id +
              "', and names beginning infc_ are the header's own";
      return false;
    }
    auto [it, fresh] = parameters.try_emplace(id, what);
    if (!fresh)
      error =
          "--header: " + what + " and " + it->second + " both become the C parameter '" + id + "'";
    return fresh;
  };
  for (const NamedDim &d : interface.dims)
    if (!claim("dim_" + cIdentifier(d.name), "dim '" + d.name + "'"))
      return failure();
  for (const ModelValue &v : interface.inputs)
    if (!claim(cIdentifier(v.name), "input '" + v.name + "'"))
      return failure();
  for (const ModelValue &v : interface.outputs)
    if (!claim(cIdentifier(v.name) + "_out", "output '" + v.name + "'"))
      return failure();
  for (const auto *values : {&interface.inputs, &interface.outputs})
    for (const ModelValue &v : *values)
      for (auto [k, size] : llvm::enumerate(v.shape))
        if (size == -1 && (k >= v.dimIds.size() || v.dimIds[k] < 0)) {
          error = "--header: '" + v.name + "' dim " + std::to_string(k) +
                  " varies without a name that a run could pass (the typed functions take the "
                  "named dims' sizes)";
          return failure();
        }
  return success();
}

void infc::writeModelHeader(raw_ostream &os, const ModelInterface &interface,
                            StringRef libraryPath) {
  std::string p = cIdentifier(sys::path::stem(libraryPath));
  std::string guard = "INFC_MODEL_" + p + "_H";
  for (char &c : guard)
    c = toUpper(c);
  os << "/* Generated by `infc compile --header` for " << sys::path::filename(libraryPath)
     << ". Do not edit. */\n#ifndef " << guard << "\n#define " << guard
     << "\n\n#include \"infc/runtime.h\"\n\n#include <string.h>\n\n#ifdef __cplusplus\nextern "
        "\"C\" {\n#endif\n\n";
  // A model with varying dims (--dim, --specialize): their sizes are arguments, in this
  // order, to the shape functions and the run function.
  std::vector<int32_t> dims = varyingDims(interface);
  std::string dimParams, dimArgs;
  for (int32_t id : dims) {
    // (Prefixed: a dim's name may be an input's, or `shape`, `in`, `session`.)
    std::string name = "dim_" + cIdentifier(interface.dims[id].name);
    dimParams += (dimParams.empty() ? "" : ", ") + ("int64_t " + name);
    dimArgs += (dimArgs.empty() ? "" : ", ") + name;
  }
  if (!dims.empty()) {
    os << "/* The named dims runs may vary, in the order the functions below take them: the\n"
          "   sizes each run may pass (MAX INT64_MAX: no largest size). */\n";
    for (int32_t id : dims) {
      const NamedDim &d = interface.dims[id];
      std::string macro = p + "_DIM_" + cIdentifier(d.name);
      os << "#define " << macro << "_MIN " << d.min << "\n#define " << macro << "_MAX ";
      if (d.max == INT64_MAX)
        os << "INT64_MAX\n";
      else
        os << d.max << "\n";
    }
    os << "\n";
  }
  auto dimName = [&](const ModelValue &v, size_t k) {
    return "dim_" + cIdentifier(interface.dims[v.dimIds[k]].name);
  };
  auto describe = [&](const ModelValue &v, const char *kind, size_t i) {
    std::string id = p + "_" + kind + "_" + cIdentifier(v.name);
    bool varies = llvm::is_contained(v.shape, -1);
    int64_t count = 1;
    os << "/* " << kind << " " << i << ": '" << v.name << "' " << dtypeCType(v.dtype) << "[";
    for (size_t d = 0; d < v.shape.size(); ++d) {
      os << (d ? "][" : "");
      if (v.shape[d] == -1)
        os << interface.dims[v.dimIds[d]].name;
      else
        os << v.shape[d];
      count *= v.shape[d];
    }
    os << "] */\n#define " << id << "_RANK " << v.shape.size() << "\n";
    if (!varies) {
      os << "#define " << id << "_COUNT " << count << "\nstatic const int64_t " << id << "_shape["
         << std::max<size_t>(1, v.shape.size()) << "] = {";
      for (size_t d = 0; d < v.shape.size(); ++d)
        os << (d ? ", " : "") << v.shape[d];
      if (v.shape.empty())
        os << "0";
      os << "};\n";
      return;
    }
    // Functions of the run's sizes: the element count and the shape.
    auto unused = [&](const std::string &indent) {
      for (int32_t dim : dims) {
        bool used = false;
        for (auto [k, size] : llvm::enumerate(v.shape))
          used |= size == -1 && v.dimIds[k] == dim;
        if (!used)
          os << indent << "(void)dim_" << cIdentifier(interface.dims[dim].name) << ";\n";
      }
    };
    os << "static inline int64_t " << id << "_count(" << dimParams << ") {\n";
    unused("  ");
    os << "  return ";
    for (size_t d = 0; d < v.shape.size(); ++d) {
      os << (d ? " * " : "");
      if (v.shape[d] == -1)
        os << dimName(v, d);
      else
        os << v.shape[d];
    }
    os << ";\n}\nstatic inline void " << id << "_shape(" << dimParams << ", int64_t shape["
       << v.shape.size() << "]) {\n";
    unused("  ");
    for (size_t d = 0; d < v.shape.size(); ++d) {
      os << "  shape[" << d << "] = ";
      if (v.shape[d] == -1)
        os << dimName(v, d);
      else
        os << v.shape[d];
      os << ";\n";
    }
    os << "}\n";
  };
  for (auto [i, v] : llvm::enumerate(interface.inputs))
    describe(v, "input", i);
  for (auto [i, v] : llvm::enumerate(interface.outputs))
    describe(v, "output", i);
  os << "\n/* Runs the model on caller-owned buffers of the shapes above"
     << (dims.empty() ? "" : " at the given sizes") << ". */\n"
     << "static inline infc_status " << p << "_run(infc_session *infc_session_";
  for (int32_t id : dims)
    os << ", int64_t dim_" << cIdentifier(interface.dims[id].name);
  for (auto &v : interface.inputs)
    os << ",\n    const " << dtypeCType(v.dtype) << " *" << cIdentifier(v.name);
  for (auto &v : interface.outputs)
    os << ",\n    " << dtypeCType(v.dtype) << " *" << cIdentifier(v.name) << "_out";
  os << ") {\n";
  auto tensors = [&](const std::vector<ModelValue> &values, const char *kind, const char *array,
                     bool output) {
    // (memset, not `= {{0}}`: C++ with -Wextra warns of the members that leaves out)
    os << "  infc_tensor " << array << "[" << std::max<size_t>(1, values.size()) << "];\n  memset("
       << array << ", 0, sizeof " << array << ");\n";
    for (auto [i, v] : llvm::enumerate(values)) {
      std::string id = p + "_" + kind + "_" + cIdentifier(v.name);
      std::string shape = id + "_shape";
      if (llvm::is_contained(v.shape, -1)) {
        shape = std::string(array) + "shape" + std::to_string(i) + "_";
        os << "  int64_t " << shape << "[" << v.shape.size() << "];\n  " << id << "_shape("
           << dimArgs << ", " << shape << ");\n";
      }
      os << "  " << array << "[" << i << "].data = (void *)" << cIdentifier(v.name)
         << (output ? "_out" : "") << ";\n  " << array << "[" << i
         << "].dtype = " << dtypeEnum(v.dtype) << ";\n  " << array << "[" << i << "].rank = " << id
         << "_RANK;\n  " << array << "[" << i << "].shape = " << shape << ";\n";
    }
  };
  // (Its own names begin infc_, which checkHeaderInterface keeps from the parameters.)
  tensors(interface.inputs, "input", "infc_in_", false);
  tensors(interface.outputs, "output", "infc_out_", true);
  os << "  return infc_run(infc_session_, infc_in_, " << interface.inputs.size() << ", infc_out_, "
     << interface.outputs.size() << ");\n}\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard
     << " */\n";
}
