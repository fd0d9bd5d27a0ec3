// RUN: infc-opt %s -infc-bf16-matmul -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-bf16-matmul=kernel=vdpbf16ps -split-input-file | FileCheck %s --check-prefix=VDP
// RUN: not infc-opt %s -infc-bf16-matmul=kernel=vnni -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: infc-bf16-matmul: kernel must be amx or vdpbf16ps, not 'vnni'

// A [10, 7] f32 x constant B [7, 20]: A rounded to bf16 at run time and zero-padded to 16
// rows and 32 values of K; B rounded at compile time (1 + 2^-8 is a tie: to even, 1.0;
// 1 + 3 x 2^-8 rounds up to 1 + 2^-6) and packed into [ceil(20/16), 32/2, 16 x 2] tiles,
// zero past K and N; the f32 product generic marked for infc-amx-tiles, its padded C
// sliced back to [10, 20].
// CHECK-LABEL: func @rounded_rows
// CHECK: %[[R:.*]] = linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[A:.*]] = tensor.pad %[[R]] low[0, 0] high[6, 25]
// CHECK: } : tensor<10x7xbf16> to tensor<16x32xbf16>
// (0x3F80 1.0, 0x3F82 1 + 2^-6, little-endian; row 3 of a panel: B[6] and K's zero tail.)
// CHECK: %[[B:.*]] = arith.constant dense<"0x803F823F803F823F{{.*}}803F0000803F0000{{.*}}"> : tensor<2x16x32xbf16>
// CHECK: tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [16, 16, 2] : tensor<16x32xbf16> into tensor<16x16x2xbf16>
// CHECK: tensor.expand_shape %[[B]] {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 16, 2] : tensor<2x16x32xbf16> into tensor<2x16x16x2xbf16>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<16x2x16xf32>) attrs = {infc.amx}
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<16x2x16xf32> into tensor<16x32xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [10, 20] [1, 1] : tensor<16x32xf32> to tensor<10x20xf32>
// CHECK-NOT: linalg.matmul
// With vdpbf16ps: the same rounding and packed B, A padded along K only (10 rows), and a
// register kernel: a loop over the pair of panels, parallel (one row tile of 8 rows, no
// more than the pairs), 8 x 2 f32 accumulators fed per K pair by two panel loads and a
// broadcast of each row's bf16 pair; then the 2 rows left, one at a time.
// VDP-LABEL: func @rounded_rows
// VDP: arith.truncf %{{.*}} : f32 to bf16
// VDP: tensor.pad %{{.*}} low[0, 0] high[0, 25]
// VDP: } : tensor<10x7xbf16> to tensor<10x32xbf16>
// VDP: tensor.empty() : tensor<10x32xf32>
// VDP: scf.for
// VDP: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c8{{[_0-9]*}} step %c8
// VDP: scf.for %{{.*}} = %c0{{[_0-9]*}} to %c16{{[_0-9]*}} step %c1{{[_0-9]*}} iter_args
// VDP-COUNT-2: vector.transfer_read {{.*}} : tensor<2x16x32xbf16>, vector<32xbf16>
// VDP: vector.transfer_read {{.*}} : tensor<10x32xbf16>, vector<2xbf16>
// VDP: vector.bitcast %{{.*}} : vector<2xbf16> to vector<1xi32>
// VDP: vector.broadcast %{{.*}} : i32 to vector<16xi32>
// VDP-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// VDP: scf.for %{{.*}} = %c8{{[_0-9]*}} to %c10{{[_0-9]*}} step %c1
// VDP: } {infc.parallel}
// VDP: tensor.extract_slice %{{.*}}[0, 0] [10, 20] [1, 1] : tensor<10x32xf32> to tensor<10x20xf32>
// VDP-NOT: infc.amx
// VDP-NOT: linalg.matmul
func.func @rounded_rows(%a: tensor<10x7xf32>) -> tensor<10x20xf32> {
  %b = arith.constant dense<[[1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625], [1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875], [1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625], [1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875], [1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625], [1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875, 1.01171875], [1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625, 1.00390625]]> : tensor<7x20xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x20xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<10x20xf32>) -> tensor<10x20xf32>
  %c = linalg.matmul ins(%a, %b : tensor<10x7xf32>, tensor<7x20xf32>) outs(%z : tensor<10x20xf32>) -> tensor<10x20xf32>
  return %c : tensor<10x20xf32>
}

// -----

// A an extension of bf16 values through a collapse (a convolution's im2col rows): the
// bf16 values are read as they are, collapsed the same way; K = 32 already, so only the
// rows are padded. No rounding generic.
// CHECK-LABEL: func @bf16_rows
// VDP-LABEL: func @bf16_rows
// VDP-NOT: arith.truncf
// VDP: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// CHECK-NOT: arith.truncf
// CHECK: %[[N:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x32xbf16> into tensor<6x32xbf16>
// CHECK: tensor.pad %[[N]] low[0, 0] high[10, 0]
// CHECK: linalg.generic {{.*}} attrs = {infc.amx}
// CHECK-NOT: linalg.matmul
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bf16_rows(%x: tensor<2x3x32xbf16>) -> tensor<6x16xf32> {
  %e = tensor.empty() : tensor<2x3x32xf32>
  %w = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<2x3x32xbf16>) outs(%e : tensor<2x3x32xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %0 = arith.extf %in : bf16 to f32
    linalg.yield %0 : f32
  } -> tensor<2x3x32xf32>
  %a = tensor.collapse_shape %w [[0, 1], [2]] : tensor<2x3x32xf32> into tensor<6x32xf32>
  %b = arith.constant dense<0.5> : tensor<32x16xf32>
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<6x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<6x16xf32>) -> tensor<6x16xf32>
  %c = linalg.matmul ins(%a, %b : tensor<6x32xf32>, tensor<32x16xf32>) outs(%z : tensor<6x16xf32>) -> tensor<6x16xf32>
  return %c : tensor<6x16xf32>
}

// -----

// Left alone: weights computed at run time, an accumulator that does not start from zero,
// and an f64 matmul.
// CHECK-LABEL: func @left_alone
// VDP-LABEL: func @left_alone
// VDP-COUNT-3: linalg.matmul
// CHECK-NOT: infc.amx
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: infc.amx
func.func @left_alone(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %acc: tensor<4x16xf32>, %d: tensor<4x8xf64>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf64>) {
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<4x16xf32>) -> tensor<4x16xf32>
  %c0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %w = arith.constant dense<1.0> : tensor<8x16xf32>
  %c1 = linalg.matmul ins(%a, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %wd = arith.constant dense<1.0> : tensor<8x16xf64>
  %zd0 = arith.constant 0.0 : f64
  %od = tensor.empty() : tensor<4x16xf64>
  %zd = linalg.fill ins(%zd0 : f64) outs(%od : tensor<4x16xf64>) -> tensor<4x16xf64>
  %c2 = linalg.matmul ins(%d, %wd : tensor<4x8xf64>, tensor<8x16xf64>) outs(%zd : tensor<4x16xf64>) -> tensor<4x16xf64>
  return %c0, %c1, %c2 : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf64>
}

// -----

// The packing order: B = [[1, 2], [3, 4]] (K = 2, N = 2): the first tile row holds column 0's
// pair (B[0][0], B[1][0]) = (1, 3), then column 1's (2, 4), then zeros: 0x3F80, 0x4040,
// 0x4000, 0x4080, little-endian.
// CHECK-LABEL: func @pair_order
// CHECK: arith.constant dense<"0x803F404000408040{{(0000)+}}"> : tensor<1x16x32xbf16>
func.func @pair_order(%a: tensor<16x2xf32>) -> tensor<16x2xf32> {
  %b = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %cst = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<16x2xf32>
  %z = linalg.fill ins(%cst : f32) outs(%o : tensor<16x2xf32>) -> tensor<16x2xf32>
  %c = linalg.matmul ins(%a, %b : tensor<16x2xf32>, tensor<2x2xf32>) outs(%z : tensor<16x2xf32>) -> tensor<16x2xf32>
  return %c : tensor<16x2xf32>
}
