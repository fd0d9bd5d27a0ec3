//===- ImportLinear.cpp - ONNX Gemm, MatMul and Einsum --------------------===//
#include "NodeImporter.h"

#include "ImportHelpers.h"

#include <cctype>
#include <map>

using namespace mlir;
using namespace infc;

namespace {
/// Gemm: alpha * A' x B' + beta * C, with A', B' optionally transposed. Transposes of
/// constant weights fold away at import.
LogicalResult importGemm(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  if (n.inputType(0).getRank() != 2 || n.inputType(1).getRank() != 2)
    return n.error() << "expects rank-2 A and B";
  auto perm = n.b.getDenseI64ArrayAttr({1, 0});
  if (n.getInt("transA", 0))
    a = n.create<TransposeOp>(a, perm);
  if (n.getInt("transB", 0))
    b = n.create<TransposeOp>(b, perm);
  Value y = n.matmul(a, b);
  double alpha = n.getFloat("alpha", 1.0), beta = n.getFloat("beta", 1.0);
  if (alpha != 1.0)
    y = n.create<MulOp>(y, n.scalarLike(y, alpha));
  if (Value c = n.input(2); c && beta != 0.0) {
    if (beta != 1.0)
      c = n.create<MulOp>(c, n.scalarLike(c, beta));
    y = n.create<AddOp>(y, c);
  }
  n.setResult(0, y);
  return success();
}

/// MatMul with numpy semantics: 1-D operands are promoted to matrices and the promoted dim
/// is dropped from the result.
LogicalResult importMatMul(NodeImporter &n) {
  Value a = n.input(0), b = n.input(1);
  ArrayRef<int64_t> as = n.inputType(0).getShape(), bs = n.inputType(1).getShape();
  if (as.empty() || bs.empty())
    return n.error() << "expects operands of rank >= 1";
  if (n.inputType(0).getElementType() != n.inputType(1).getElementType())
    return n.error() << "operands have different element types";
  if (as.size() == 1)
    a = n.reshape(a, {1, as[0]});
  if (bs.size() == 1)
    b = n.reshape(b, {bs[0], 1});
  auto at = cast<RankedTensorType>(a.getType()), bt = cast<RankedTensorType>(b.getType());
  if (at.getShape().back() != bt.getShape()[bt.getRank() - 2])
    return n.error() << "contracting dims differ: " << n.inputType(0) << " x " << n.inputType(1);
  SmallVector<int64_t> batch;
  if (failed(broadcastShapes(at.getShape().drop_back(2), bt.getShape().drop_back(2), batch)))
    return n.error() << "batch dims do not broadcast";
  Value y = n.matmul(a, b);
  SmallVector<int64_t> shape(cast<RankedTensorType>(y.getType()).getShape());
  if (bs.size() == 1)
    shape.pop_back();
  if (as.size() == 1)
    shape.erase(shape.end() - (bs.size() == 1 ? 1 : 2));
  n.setResult(0, n.reshape(y, shape));
  return success();
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// An operand of an einsum with one label per dim.
struct Labeled {
  Value value;
  SmallVector<int> labels;
};

/// Sums (or takes the diagonal of) dims so that each label appears once, then sums labels
/// no one else needs.
LogicalResult einsumPrepare(NodeImporter &n, Labeled &t, ArrayRef<int> needed) {
  // Repeated labels: take the diagonal through the flattened pair of dims.
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < t.labels.size() && !again; ++i)
      for (size_t j = i + 1; j < t.labels.size() && !again; ++j) {
        if (t.labels[i] != t.labels[j])
          continue;
        auto shape = typeOf(t.value).getShape();
        int64_t size = shape[i];
        if (shape[j] != size)
          return n.error() << "dims of a repeated label differ in size";
        SmallVector<int64_t> perm, newShape;
        SmallVector<int> labels;
        for (size_t d = 0; d < t.labels.size(); ++d)
          if (d != i && d != j) {
            perm.push_back(d);
            newShape.push_back(shape[d]);
            labels.push_back(t.labels[d]);
          }
        perm.append({(int64_t)i, (int64_t)j});
        Value v = transpose(n, t.value, perm);
        newShape.push_back(size * size);
        v = n.reshape(v, newShape);
        if (!n.tableFits({size}, "a diagonal table"))
          return failure();
        SmallVector<int64_t> diag;
        for (int64_t k = 0; k < size; ++k)
          diag.push_back(k * (size + 1));
        t.value = gather(n, v, i64Constant(n, {size}, diag), newShape.size() - 1);
        labels.push_back(t.labels[i]);
        t.labels = labels;
        again = true;
      }
  }
  SmallVector<int64_t> axes;
  SmallVector<int> kept;
  for (size_t d = 0; d < t.labels.size(); ++d) {
    if (llvm::is_contained(needed, t.labels[d]))
      kept.push_back(t.labels[d]);
    else
      axes.push_back(d);
  }
  t.value = reduceSum(n, t.value, axes, false);
  t.labels = kept;
  return success();
}

/// Contracts two operands with one batched matmul: [batch, lhs-only, contracted] x
/// [batch, contracted, rhs-only]. Labels in `keep` survive; shared others are summed.
Labeled einsumContract(NodeImporter &n, Labeled a, Labeled b, ArrayRef<int> keep,
                       const std::map<int, int64_t> &sizes) {
  SmallVector<int> batch, aOnly, bOnly, contracted;
  for (int l : a.labels) {
    if (llvm::is_contained(b.labels, l))
      (llvm::is_contained(keep, l) ? batch : contracted).push_back(l);
    else
      aOnly.push_back(l);
  }
  for (int l : b.labels)
    if (!llvm::is_contained(a.labels, l))
      bOnly.push_back(l);
  auto arrange = [&](Labeled &t, ArrayRef<SmallVector<int> *> groups) {
    SmallVector<int64_t> perm, shape, flat;
    for (SmallVector<int> *g : groups) {
      int64_t count = 1;
      for (int l : *g) {
        perm.push_back(llvm::find(t.labels, l) - t.labels.begin());
        shape.push_back(sizes.at(l));
        count *= sizes.at(l);
      }
      flat.push_back(count);
    }
    Value v = transpose(n, t.value, perm);
    // Size-1 (broadcast) dims grow to the label's size.
    v = broadcastTo(n, v, shape);
    return n.reshape(v, flat);
  };
  Value lhs = arrange(a, {&batch, &aOnly, &contracted});
  Value rhs = arrange(b, {&batch, &contracted, &bOnly});
  Value y = n.matmul(lhs, rhs);
  Labeled r;
  SmallVector<int64_t> shape;
  for (SmallVector<int> *g : {&batch, &aOnly, &bOnly})
    for (int l : *g) {
      r.labels.push_back(l);
      shape.push_back(sizes.at(l));
    }
  r.value = n.reshape(y, shape);
  return r;
}

/// Einsum: explicit or implicit output, ellipses, repeated labels (diagonals), sums, and
/// any number of operands contracted pairwise from the left with batched matmuls.
LogicalResult importEinsum(NodeImporter &n) {
  std::string eq;
  for (char c : n.getString("equation", ""))
    if (!std::isspace((unsigned char)c))
      eq.push_back(c);
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  SmallVector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (terms.size() != n.numInputs())
    return n.error() << "the equation has " << terms.size() << " operands, the node "
                     << n.numInputs();
  // Labels: letters as themselves, ellipsis dims as 256 + position (right-aligned).
  int64_t ellipsisRank = 0;
  SmallVector<SmallVector<int>> labels(terms.size());
  auto parse = [&](StringRef term, int64_t rank, SmallVector<int> &out) -> LogicalResult {
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    int64_t ell = dots == StringRef::npos ? 0 : rank - letters;
    if (ell < 0 || (dots == StringRef::npos && letters != rank))
      return n.error() << "term '" << term << "' does not match an operand of rank " << rank;
    for (size_t i = 0; i < term.size(); ++i) {
      if (i == dots) {
        for (int64_t e = 0; e < ell; ++e)
          out.push_back(256 + (int)(ellipsisRank - ell + e));
        i += 2;
        continue;
      }
      if (!std::isalpha((unsigned char)term[i]))
        return n.error() << "unexpected '" << term[i] << "' in the equation";
      out.push_back(term[i]);
    }
    return success();
  };
  for (size_t i = 0; i < terms.size(); ++i) {
    size_t dots = terms[i].find("...");
    if (dots != std::string::npos)
      ellipsisRank = std::max<int64_t>(ellipsisRank,
                                       n.inputType(i).getRank() - (int64_t)(terms[i].size() - 3));
  }
  std::map<int, int64_t> sizes;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (failed(parse(terms[i], n.inputType(i).getRank(), labels[i])))
      return failure();
    for (auto [d, l] : llvm::enumerate(labels[i])) {
      int64_t s = n.inputType(i).getDimSize(d);
      auto [it, fresh] = sizes.insert({l, s});
      if (!fresh && it->second != s) {
        if (it->second != 1 && s != 1)
          return n.error() << "label sizes " << it->second << " and " << s << " disagree";
        it->second = std::max(it->second, s);
      }
    }
  }
  SmallVector<int> out;
  if (arrow != std::string::npos) {
    std::string term = eq.substr(arrow + 2);
    if (failed(parse(term,
                     term.size() - (term.find("...") == std::string::npos ? 0 : 3) +
                         (term.find("...") == std::string::npos ? 0 : ellipsisRank),
                     out)))
      return failure();
    for (int l : out)
      if (!sizes.count(l))
        return n.error() << "output label '" << (char)l << "' is not in any operand";
  } else {
    for (int64_t e = 0; e < ellipsisRank; ++e)
      out.push_back(256 + e);
    std::map<int, int> counts;
    for (auto &ls : labels)
      for (int l : ls)
        if (l < 256)
          ++counts[l];
    for (auto [l, c] : counts)
      if (c == 1)
        out.push_back(l);
  }
  // Reduce each operand to the labels the output or another operand needs.
  SmallVector<Labeled> ops;
  for (size_t i = 0; i < terms.size(); ++i) {
    SmallVector<int> needed(out);
    for (size_t j = 0; j < terms.size(); ++j)
      if (j != i)
        llvm::append_range(needed, labels[j]);
    ops.push_back({n.input(i), labels[i]});
    if (failed(einsumPrepare(n, ops.back(), needed)))
      return failure();
  }
  Labeled acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    SmallVector<int> keep(out);
    for (size_t j = i + 1; j < ops.size(); ++j)
      llvm::append_range(keep, ops[j].labels);
    acc = einsumContract(n, acc, ops[i], keep, sizes);
    if (failed(einsumPrepare(n, acc, keep)))
      return failure();
  }
  SmallVector<int64_t> perm, shape;
  for (int l : out) {
    auto it = llvm::find(acc.labels, l);
    if (it == acc.labels.end())
      return n.error() << "cannot place output label " << l;
    perm.push_back(it - acc.labels.begin());
    shape.push_back(sizes.at(l));
  }
  Value y = transpose(n, acc.value, perm);
  n.setResult(0, broadcastTo(n, y, shape));
  return success();
}
} // namespace

void infc::registerLinearImporters(ImportRegistry &r) {
  r["Gemm"] = importGemm;
  r["MatMul"] = importMatMul;
  r["Einsum"] = importEinsum;
}
