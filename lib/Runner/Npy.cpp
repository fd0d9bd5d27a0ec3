//===- Npy.cpp - minimal .npy reading and writing -------------------------===//
#include "infc/Runner/Npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace {
struct DtypeName {
  infc_dtype dtype;
  const char *descr; // numpy's descr without the byte-order character
};
const DtypeName kDtypes[] = {{INFC_F32, "f4"}, {INFC_F64, "f8"}, {INFC_F16, "f2"},
                             {INFC_I8, "i1"},  {INFC_I16, "i2"}, {INFC_I32, "i4"},
                             {INFC_I64, "i8"}, {INFC_U8, "u1"},  {INFC_U16, "u2"},
                             {INFC_U32, "u4"}, {INFC_U64, "u8"}, {INFC_BOOL, "b1"}};

size_t dtypeSize(infc_dtype dtype) {
  switch (dtype) {
  case INFC_F64:
  case INFC_I64:
  case INFC_U64:
    return 8;
  case INFC_F32:
  case INFC_I32:
  case INFC_U32:
    return 4;
  case INFC_F16:
  case INFC_BF16:
  case INFC_I16:
  case INFC_U16:
    return 2;
  default:
    return 1;
  }
}

/// The value of `key` in the header dict, as its raw text ("" when absent).
std::string field(const std::string &header, const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return "";
  size_t colon = header.find(':', k);
  size_t start = colon == std::string::npos ? colon : header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos)
    return "";
  size_t end = header[start] == '(' ? header.find(')', start) : header.find_first_of(",}", start);
  if (end == std::string::npos)
    return "";
  return header.substr(start, end - start + (header[start] == '('));
}
} // namespace

bool infc::parseNpy(const std::string &content, const std::string &path, NpyArray &array,
                    std::string &error) {
  auto fail = [&](const std::string &why) {
    error = "'" + path + "' " + why;
    return false;
  };
  if (content.size() < 10 || content.compare(0, 6, "\x93NUMPY") != 0)
    return fail("is not a .npy file");
  uint8_t major = content[6];
  size_t headerLen, offset;
  if (major == 1) {
    headerLen = (uint8_t)content[8] | ((uint8_t)content[9] << 8);
    offset = 10;
  } else {
    if (content.size() < 12)
      return fail("is truncated");
    headerLen = (uint32_t)(uint8_t)content[8] | ((uint32_t)(uint8_t)content[9] << 8) |
                ((uint32_t)(uint8_t)content[10] << 16) | ((uint32_t)(uint8_t)content[11] << 24);
    offset = 12;
  }
  if (headerLen > content.size() - offset)
    return fail("is truncated");
  std::string header = content.substr(offset, headerLen);
  std::string descr = field(header, "descr"), order = field(header, "fortran_order"),
              shape = field(header, "shape");
  if (order.find("True") != std::string::npos)
    return fail("is in Fortran order; save it C-contiguous");
  if (descr.size() < 4 || (descr[1] == '>' && descr.substr(2, 2) != "u1" &&
                           descr.substr(2, 2) != "i1" && descr.substr(2, 2) != "b1"))
    return fail("has unsupported dtype " + descr);
  std::string code = descr.substr(2, descr.size() - 3);
  bool found = false;
  for (const DtypeName &d : kDtypes)
    if (code == d.descr) {
      array.dtype = d.dtype;
      found = true;
    }
  if (!found)
    return fail("has unsupported dtype " + descr);
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return fail("has no shape in its header");
  array.shape.clear();
  uint64_t count = 1;
  std::string dims = shape.substr(1, shape.size() - 2);
  std::stringstream ss(dims);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    size_t last = item.find_last_not_of(' ');
    std::string digits = item.substr(first, last - first + 1);
    // numpy writes plain decimal dims; at most 2^59 elements keep the byte count in range.
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      return fail("has a malformed shape " + shape);
    int64_t dim = std::strtoll(digits.c_str(), nullptr, 10);
    if (dim != 0 && count > (uint64_t(1) << 59) / (uint64_t)dim)
      return fail("has a shape too large to hold: " + shape);
    count *= dim;
    array.shape.push_back(dim);
  }
  if (array.shape.size() > 32)
    return fail("has more than 32 dims");
  uint64_t bytes = count * dtypeSize(array.dtype);
  size_t dataStart = offset + headerLen;
  if (content.size() - dataStart < bytes)
    return fail("holds fewer bytes than its shape needs");
  array.data.assign(content.begin() + dataStart, content.begin() + dataStart + bytes);
  return true;
}

bool infc::readNpy(const std::string &path, NpyArray &array, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return false;
  }
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parseNpy(content, path, array, error);
}

static const char *npyDescr(infc_dtype dtype) {
  for (const DtypeName &d : kDtypes)
    if (d.dtype == dtype)
      return d.descr;
  return nullptr;
}

bool infc::writeNpy(const std::string &path, infc_dtype dtype, const int64_t *shape, int32_t rank,
                    const void *data, size_t bytes, std::string &error) {
  const char *code = npyDescr(dtype);
  if (!code) {
    error = "cannot write dtype code " + std::to_string((int)dtype) + " to .npy";
    return false;
  }
  std::string header = std::string("{'descr': '") + (code[0] == 'b' ? "|" : "<") + code +
                       "', 'fortran_order': False, 'shape': (";
  for (int32_t i = 0; i < rank; ++i)
    header += std::to_string(shape[i]) + (rank == 1 || i + 1 < rank ? "," : "");
  header += "), }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  out.write("\x93NUMPY\x01\x00", 8);
  uint16_t len = header.size();
  out.put(len & 0xff).put(len >> 8);
  out << header;
  out.write((const char *)data, bytes);
  if (!out) {
    error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}
