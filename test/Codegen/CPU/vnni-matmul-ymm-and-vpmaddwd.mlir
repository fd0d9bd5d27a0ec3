// RUN: infc-opt %s -infc-vnni-matmul="kernel=vpmaddwd vector-bits=256" -split-input-file | FileCheck %s --check-prefix=WD256
// RUN: infc-opt %s -infc-vnni-matmul="kernel=vpmaddwd vector-bits=512" -split-input-file | FileCheck %s --check-prefix=WD512
// RUN: infc-opt %s -infc-vnni-matmul="kernel=vpdpbusd vector-bits=256" -split-input-file | FileCheck %s --check-prefix=DP256
// RUN: not infc-opt %s -infc-vnni-matmul="kernel=vpmaddubsw" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not infc-opt %s -infc-vnni-matmul="vector-bits=128" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-BITS
// RUN: not infc-opt %s -infc-vnni-matmul="amx=true kernel=vpmaddwd" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD-AMX

// The register kernel without AVX-512 VNNI. vpmaddwd (AVX2 on ymm, AVX-512BW on zmm)
// takes words of two K-consecutive values extended to i16, exactly, with no offsets:
// B's s8 weights packed at compile time as [N/L, ceil(K/2), L] words (-3 as the i16 pair
// 0xFFFD FFFD, the last word's high half zero past K = 7), A's rows extended to i16 at
// run time (the vector reaching past K masked), and per word and tile row one broadcast
// times two panel vectors: vpmaddwd then vpaddd. On ymm: 6-row x 2-panel tiles of 8 lanes
// (12 accumulators of 16 ymm), then single rows against 4 panels; AVX-512BW: 8 x 2 of 16
// lanes.
// AVX-VNNI's vpdpbusd on ymm keeps vpdpbusd's u8 words (signed A offset by 128, the
// accumulators from -128 x the column sums) in the 6 x 2 tiles of 8 lanes.
// WD256-LABEL: func @s8_matmul
// WD256-DAG: arith.constant dense<"0xFDFFFDFF{{.*}}FDFF0000"> : tensor<4x4x8xi32>
// The only vector of a row (K = 7 < 16 bytes) reads and writes masked (no in_bounds).
// WD256: scf.for
// WD256: vector.transfer_read %{{[a-z0-9_]*}}[%{{[^]]*}}], %{{[a-z0-9_]*}} : tensor<10x7xi8>, vector<16xi8>
// WD256-NOT: arith.xori
// WD256: arith.extsi %{{.*}} : vector<16xi8> to vector<16xi16>
// WD256-NEXT: vector.bitcast %{{.*}} : vector<16xi16> to vector<8xi32>
// WD256-NEXT: vector.transfer_write %{{[a-z0-9_]*}}, %{{[a-z0-9_]*}}[%{{[^]]*}}] : vector<8xi32>, tensor<10x4xi32>
// WD256: } {infc.parallel}
// WD256: %{{.*}}:12 = scf.for
// WD256-COUNT-2: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<4x4x8xi32>, vector<8xi32>
// WD256: vector.bitcast %{{.*}} : vector<8xi32> to vector<16xi16>
// WD256: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"(%{{.*}}, %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// WD256-NEXT: arith.addi %{{.*}}, %{{.*}} : vector<8xi32>
// WD256-COUNT-11: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// WD256: scf.yield
// WD256-COUNT-12: vector.transfer_write
// WD256: } {infc.parallel}
// WD256: %{{.*}}:4 = scf.for
// WD256-COUNT-4: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// WD256-NOT: arith.xori
// WD256-NOT: linalg.matmul

// WD512-LABEL: func @s8_matmul
// WD512-DAG: arith.constant dense<"0xFDFFFDFF{{.*}}FDFF0000"> : tensor<2x4x16xi32>
// WD512: arith.extsi %{{.*}} : vector<32xi8> to vector<32xi16>
// WD512: } {infc.parallel}
// WD512: %{{.*}}:16 = scf.for
// WD512: llvm.call_intrinsic "llvm.x86.avx512.pmaddw.d.512"(%{{.*}}, %{{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<16xi32>
// WD512-NEXT: arith.addi %{{.*}}, %{{.*}} : vector<16xi32>
// WD512-COUNT-15: llvm.call_intrinsic "llvm.x86.avx512.pmaddw.d.512"
// WD512: %{{.*}}:2 = scf.for
// WD512-NOT: linalg.matmul

// DP256-LABEL: func @s8_matmul
// DP256-DAG: arith.constant dense<{{.*}}> : tensor<4x2x8xi32>
// DP256-DAG: %[[ACC0:.*]] = arith.constant dense<2688> : tensor<4x8xi32>
// DP256: arith.xori %{{.*}}, %{{.*}} : vector<32xi8>
// DP256-NEXT: vector.bitcast %{{.*}} : vector<32xi8> to vector<8xi32>
// DP256: } {infc.parallel}
// DP256-COUNT-2: vector.transfer_read %[[ACC0]]
// DP256: %{{.*}}:12 = scf.for
// DP256: vector.bitcast %{{.*}} : vector<8xi32> to vector<32xi8>
// DP256-COUNT-12: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.256"
// DP256-NOT: llvm.x86.avx2.pmadd.wd
// DP256-NOT: linalg.matmul

// BAD: error: infc-vnni-matmul: kernel must be vpdpbusd or vpmaddwd, not 'vpmaddubsw'
// BAD-BITS: error: infc-vnni-matmul: vector-bits must be 256 or 512, not 128
// BAD-AMX: error: infc-vnni-matmul: amx takes kernel=vpdpbusd vector-bits=512
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @s8_matmul(%a: tensor<10x7xi8>) -> tensor<10x32xi32> {
  %w = arith.constant dense<-3> : tensor<7x32xi32>
  %e = tensor.empty() : tensor<10x7xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<10x7xi8>) outs(%e : tensor<10x7xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<10x7xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<10x32xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<10x32xi32>) -> tensor<10x32xi32>
  %y = linalg.matmul ins(%x, %w : tensor<10x7xi32>, tensor<7x32xi32>) outs(%f : tensor<10x32xi32>) -> tensor<10x32xi32>
  return %y : tensor<10x32xi32>
}

// -----

// A width of 20 is no multiple of 8: it stays on the i32 kernel (as 20 and 10 do on zmm).
// WD256-LABEL: func @no_panel_fit
// WD256: linalg.matmul
// WD256-NOT: llvm.call_intrinsic
// WD512-LABEL: func @no_panel_fit
// WD512: linalg.matmul
// DP256-LABEL: func @no_panel_fit
// DP256: linalg.matmul
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @no_panel_fit(%a: tensor<8x8xi8>) -> tensor<8x20xi32> {
  %w = arith.constant dense<1> : tensor<8x20xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x20xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x20xi32>) -> tensor<8x20xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x20xi32>) outs(%f : tensor<8x20xi32>) -> tensor<8x20xi32>
  return %y : tensor<8x20xi32>
}

// -----

// A convolution's W x im2col for vpmaddwd: A's constant rows as i16 pair words (-7 as
// 0xFFF9FFF9 = -393223; the last of K = 9 is 0x0000FFF9 = 65529), B's u8 columns packed at
// run time: per word two 8-byte row reads zero-extended to i16 and interleaved into one
// 8-word write, in a parallel loop over the panels (20 columns: 3 of them, zero-padded);
// no offsets (zero pad, accumulators from zero), the padded columns sliced off.
// WD256-LABEL: func @constant_lhs
// WD256-DAG: %[[AW:.*]] = arith.constant dense<{{\[\[}}-393223, -393223, -393223, -393223, 65529]{{.*}}> : tensor<8x5xi32>
// WD256: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0] high[1, 4]
// WD256: tensor.yield %c0_i8
// WD256: scf.for
// WD256: scf.for
// WD256-COUNT-2: vector.transfer_read %[[PADDED]]{{.*}} : tensor<10x24xi8>, vector<8xi8>
// WD256-NEXT: arith.extui %{{.*}} : vector<8xi8> to vector<8xi16>
// WD256-NEXT: arith.extui
// WD256-NEXT: vector.shuffle %{{.*}}, %{{.*}} [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15] : vector<8xi16>, vector<8xi16>
// WD256-NEXT: vector.bitcast %{{.*}} : vector<16xi16> to vector<8xi32>
// WD256: } {infc.parallel}
// WD256: %{{.*}}:12 = scf.for
// WD256: tensor.extract %[[AW]]
// WD256: llvm.call_intrinsic "llvm.x86.avx2.pmadd.wd"
// WD256: tensor.extract_slice %{{.*}}[0, 0] [8, 20] [1, 1] : tensor<8x24xi32> to tensor<8x20xi32>
// WD256-NOT: arith.xori
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @constant_lhs(%b: tensor<9x20xi8>) -> tensor<8x20xi32> {
  %w = arith.constant dense<-7> : tensor<8x9xi32>
  %e = tensor.empty() : tensor<9x20xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<9x20xi8>) outs(%e : tensor<9x20xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extui %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<9x20xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x20xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x20xi32>) -> tensor<8x20xi32>
  %y = linalg.matmul ins(%w, %x : tensor<8x9xi32>, tensor<9x20xi32>) outs(%f : tensor<8x20xi32>) -> tensor<8x20xi32>
  return %y : tensor<8x20xi32>
}

// -----

// K = 40: two whole 16-byte vectors a row in an in-bounds loop (words 0..15), then the one
// reaching past K, masked, after it (words 16..19).
// WD256-LABEL: func @long_k
// WD256: scf.for
// WD256: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// WD256: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<6x40xi8>, vector<16xi8>
// WD256: vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<8xi32>, tensor<6x20xi32>
// WD256: scf.yield
// WD256: vector.transfer_read %{{[a-z0-9_]*}}[%{{[^]]*}}], %{{[a-z0-9_]*}} : tensor<6x40xi8>, vector<16xi8>
// WD256: vector.transfer_write %{{[a-z0-9_]*}}, %{{[a-z0-9_]*}}[%{{[^]]*}}] : vector<8xi32>, tensor<6x20xi32>
// WD256: } {infc.parallel}
// WD256: %{{.*}}:12 = scf.for %{{.*}} = %{{.*}} to %c20
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @long_k(%a: tensor<6x40xi8>) -> tensor<6x16xi32> {
  %w = arith.constant dense<2> : tensor<40x16xi32>
  %e = tensor.empty() : tensor<6x40xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<6x40xi8>) outs(%e : tensor<6x40xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extui %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<6x40xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<6x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<6x16xi32>) -> tensor<6x16xi32>
  %y = linalg.matmul ins(%x, %w : tensor<6x40xi32>, tensor<40x16xi32>) outs(%f : tensor<6x16xi32>) -> tensor<6x16xi32>
  return %y : tensor<6x16xi32>
}
