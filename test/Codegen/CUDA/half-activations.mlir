// RUN: infc-opt %s -infc-half-activations -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-half-activations=precision=bf16 -split-input-file | FileCheck %s --check-prefix=BF16
// RUN: infc-opt %s -infc-half-activations -canonicalize -split-input-file | FileCheck %s --check-prefix=FOLD
// RUN: not infc-opt %s -infc-half-activations=precision=fp8 -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: infc-opt %s -infc-half-activations=mode=rounded -split-input-file | FileCheck %s --check-prefix=ROUNDED
// RUN: not infc-opt %s -infc-half-activations=mode=some -split-input-file 2>&1 | FileCheck %s --check-prefix=BADMODE

// A conv's epilogue (bias, relu) read by the next conv's padding (tensor.extract) and by a
// residual add: it yields halves, each reader widens them. The padding already truncates
// for the conv (infc-lower-precision), so after canonicalization the value crosses memory
// in half and is never widened on its way into the conv.
// CHECK-LABEL: func.func @epilogue_into_padding
// CHECK: %[[E:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x4x8xf16>)
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f16):
// CHECK: %[[R:.*]] = arith.maximumf
// CHECK: %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK: linalg.yield %[[T]] : f16
// CHECK: } -> tensor<1x4x4x8xf16>
// CHECK: linalg.generic
// CHECK: %[[X:.*]] = tensor.extract %[[E]][{{.*}}] : tensor<1x4x4x8xf16>
// CHECK: %[[XW:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK: arith.select %{{.*}}, %[[XW]], %{{.*}} : f32
// CHECK: } -> tensor<1x6x6x8xf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[E]] : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf16>) outs(%{{.*}} : tensor<1x4x4x8xf32>)
// CHECK: ^bb0(%{{.*}}: f32, %[[H:.*]]: f16, %{{.*}}: f32):
// CHECK: arith.extf %[[H]] : f16 to f32
// BF16-LABEL: func.func @epilogue_into_padding
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: tensor.extract %{{.*}} : tensor<1x4x4x8xbf16>
// BAD: for the --precision option: Cannot find option named 'fp8'
// BADMODE: for the --mode option: Cannot find option named 'some'
// With mode=rounded the residual add, which adds the value as it is, keeps it f32.
// ROUNDED-LABEL: func.func @epilogue_into_padding
// ROUNDED-NOT: tensor<1x4x4x8xf16>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @epilogue_into_padding(%conv: tensor<1x4x4x8xf32>, %bias: tensor<8xf32>, %other: tensor<1x4x4x8xf32>) -> (tensor<1x6x6x8xf16>, tensor<1x4x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %act = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%conv, %bias : tensor<1x4x4x8xf32>, tensor<8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x8xf32>
  %pe = tensor.empty() : tensor<1x6x6x8xf16>
  %padded = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%pe : tensor<1x6x6x8xf16>) {
  ^bb0(%o: f16):
    %h = linalg.index 1 : index
    %w = linalg.index 2 : index
    %c = linalg.index 3 : index
    %hs = arith.subi %h, %c1 : index
    %ws = arith.subi %w, %c1 : index
    %hc = arith.minsi %hs, %c3 : index
    %wc = arith.minsi %ws, %c3 : index
    %inside = arith.cmpi sge, %hs, %c0 : index
    %x = tensor.extract %act[%c0, %hc, %wc, %c] : tensor<1x4x4x8xf32>
    %v = arith.select %inside, %x, %zero : f32
    %t = arith.truncf %v : f32 to f16
    linalg.yield %t : f16
  } -> tensor<1x6x6x8xf16>
  %re = tensor.empty() : tensor<1x4x4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%other, %act : tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) outs(%re : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x8xf32>
  return %padded, %sum : tensor<1x6x6x8xf16>, tensor<1x4x4x8xf32>
}

// -----

// Through a reshape and a transpose (which then move halves) into the truncation before a
// matmul: canonicalized, truncf(extf(x)) is x and the truncation an identity, erased.
// CHECK-LABEL: func.func @through_movers
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf16>)
// CHECK: tensor.expand_shape {{.*}} : tensor<4x8xf16> into tensor<4x2x4xf16>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x2x4xf16>) outs(%{{.*}} : tensor<2x4x4xf16>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x4xf16>)
// CHECK-NEXT: ^bb0(%[[H:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: arith.truncf %[[W]] : f32 to f16
// ROUNDED-LABEL: func.func @through_movers
// ROUNDED: linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf16>)
// FOLD-LABEL: func.func @through_movers
// FOLD: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8xf16>)
// FOLD: %[[X:.*]] = tensor.expand_shape %[[P]]
// FOLD: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<4x2x4xf16>)
// FOLD-NOT: linalg.generic
// FOLD: return %[[T]] : tensor<2x4x4xf16>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @through_movers(%x: tensor<4x8xf32>) -> tensor<2x4x4xf16> {
  %e = tensor.empty() : tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %r = tensor.expand_shape %y [[0], [1, 2]] output_shape [4, 2, 4] : tensor<4x8xf32> into tensor<4x2x4xf32>
  %te = tensor.empty() : tensor<2x4x4xf32>
  %t = linalg.transpose ins(%r : tensor<4x2x4xf32>) outs(%te : tensor<2x4x4xf32>) permutation = [1, 0, 2]
  %he = tensor.empty() : tensor<2x4x4xf16>
  %h = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<2x4x4xf32>) outs(%he : tensor<2x4x4xf16>) {
  ^bb0(%a: f32, %o: f16):
    %n = arith.truncf %a : f32 to f16
    linalg.yield %n : f16
  } -> tensor<2x4x4xf16>
  return %h : tensor<2x4x4xf16>
}

// -----

// A max pool's window maximum, rounded after: max commutes with rounding (round to nearest
// is monotonic), so mode=rounded stores the Relu before it in half too (bit for bit the
// same result); a select against -inf (a pool's padding) and a negation likewise.
// ROUNDED-LABEL: func.func @max_then_round
// ROUNDED: %[[R:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8xf16>)
// ROUNDED: linalg.generic {{.*}} ins(%[[R]], %[[R]] : tensor<8xf16>, tensor<8xf16>)
#id1m = affine_map<(d0) -> (d0)>
func.func @max_then_round(%x: tensor<8xf32>, %c: i1) -> tensor<8xf16> {
  %zero = arith.constant 0.0 : f32
  %neginf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<8xf32>
  %relu = linalg.generic {indexing_maps = [#id1m, #id1m], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %he = tensor.empty() : tensor<8xf16>
  %pooled = linalg.generic {indexing_maps = [#id1m, #id1m, #id1m], iterator_types = ["parallel"]}
      ins(%relu, %relu : tensor<8xf32>, tensor<8xf32>) outs(%he : tensor<8xf16>) {
  ^bb0(%a: f32, %b: f32, %o: f16):
    %p = arith.select %c, %b, %neginf : f32
    %n = arith.negf %p : f32
    %m = arith.maximumf %a, %n : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8xf16>
  return %pooled : tensor<8xf16>
}

// -----

// A reader whose truncation has a rounding mode of its own (toward zero) would not get the
// bits of the producer's round to nearest: mode=rounded leaves the value f32.
// ROUNDED-LABEL: func.func @other_rounding
// ROUNDED-NOT: tensor<8xf16>) {
// ROUNDED: ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
#id1r = affine_map<(d0) -> (d0)>
func.func @other_rounding(%x: tensor<8xf32>) -> tensor<8xf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %relu = linalg.generic {indexing_maps = [#id1r, #id1r], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %he = tensor.empty() : tensor<8xf16>
  %h = linalg.generic {indexing_maps = [#id1r, #id1r], iterator_types = ["parallel"]}
      ins(%relu : tensor<8xf32>) outs(%he : tensor<8xf16>) {
  ^bb0(%a: f32, %o: f16):
    %t = arith.truncf %a toward_zero : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8xf16>
  return %h : tensor<8xf16>
}

// -----

// Left in f32: a model output, a value another op accumulates into (an output operand), a
// value an elementwise op broadcasts (a LayerNorm's mean), a reduction's result.
// CHECK-LABEL: func.func @stays_f32
// CHECK-NOT: f16
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id1 = affine_map<(d0) -> (d0)>
func.func @stays_f32(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %out = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.tanh %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %acc = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  %added = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %re = tensor.empty() : tensor<4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%re : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%fill : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%sum : tensor<4xf32>) outs(%re : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %c8 = arith.constant 8.0 : f32
    %m = arith.divf %a, %c8 : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %centred = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<4x8xf32>
  return %out, %added, %centred : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
