// RUN: infc-opt %s -infc-vnni-matmul -split-input-file | FileCheck %s

// An i32 matmul of sign-extended i8 activations by s8-range constant weights runs on
// vpdpbusd: B packed into [panels, K/4, 16] words, A into [M, K/4] words of u8 (the signed
// bytes offset by 128: per row a 64-byte read, zeros past K, an xor and one write, in a
// parallel loop over the rows), the accumulators starting from -128 x the column sums of
// B, a parallel loop over pairs of 16-column panels (one row tile here, so the pairs are
// what the threads share out; see @row_tiles_in_parallel), 8-row x 2-panel tiles (16
// accumulators); then the single rows after the loop, each against both panels (groups
// of 4 panels where there are 4).
// CHECK-LABEL: func @s8_matmul
// CHECK-DAG: %[[BP:.*]] = arith.constant dense<{{.*}}> : tensor<2x2x16xi32>
// CHECK-DAG: %[[ACC0:.*]] = arith.constant dense<{{.*}}> : tensor<2x16xi32>
// CHECK: scf.for
// CHECK-NOT: scf.for
// CHECK: vector.transfer_read %{{.*}}, %{{.*}} : tensor<10x7xi8>, vector<64xi8>
// CHECK: arith.xori %{{.*}}, %{{.*}} : vector<64xi8>
// CHECK: vector.bitcast %{{.*}} : vector<64xi8> to vector<16xi32>
// CHECK: vector.transfer_write %{{.*}}, %{{.*}} : vector<16xi32>, tensor<10x2xi32>
// CHECK: } {infc.parallel}
// CHECK: scf.for
// CHECK-COUNT-2: vector.transfer_read %[[ACC0]]
// CHECK: scf.for
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-2: vector.transfer_read %[[BP]]
// CHECK: vector.bitcast %{{.*}} : vector<16xi32> to vector<64xi8>
// CHECK-COUNT-16: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-COUNT-16: vector.transfer_write
// CHECK: } {infc.parallel}
// CHECK: %{{.*}}:2 = scf.for
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: infc.parallel
// CHECK-NOT: linalg.matmul
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

// An odd panel count: the pairs in the parallel loop, the last panel after it, alone.
// CHECK-LABEL: func @odd_panels
// CHECK: vector.bitcast %{{.*}} : vector<64xi8> to vector<16xi32>
// CHECK: } {infc.parallel}
// CHECK: %[[PAIRS:.*]] = scf.for
// CHECK-COUNT-16: vector.transfer_write
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }{{$}}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {infc.parallel}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[PAIRS]])
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: infc.parallel
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @odd_panels(%a: tensor<8x8xi8>) -> tensor<8x48xi32> {
  %w = arith.constant dense<1> : tensor<8x48xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x48xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x48xi32>) -> tensor<8x48xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x48xi32>) outs(%f : tensor<8x48xi32>) -> tensor<8x48xi32>
  return %y : tensor<8x48xi32>
}

// -----

// Fewer than four pairs (one, and an odd panel) and more row tiles (3 of 8 rows) than
// pairs: the threads share out the row tiles, of the pair and of the odd panel alike (one
// pair had left a 25600-row int8 conv of 32 channels on one thread); the pair loop runs
// in order.
// CHECK-LABEL: func @row_tiles_in_parallel
// CHECK: } {infc.parallel}
// CHECK: %[[PAIRS:.*]] = scf.for
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-16: vector.transfer_write
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {infc.parallel}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }{{$}}
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[PAIRS]])
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: vector.transfer_write
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {infc.parallel}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @row_tiles_in_parallel(%a: tensor<24x8xi8>) -> tensor<24x48xi32> {
  %w = arith.constant dense<1> : tensor<8x48xi32>
  %e = tensor.empty() : tensor<24x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<24x8xi8>) outs(%e : tensor<24x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<24x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<24x48xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<24x48xi32>) -> tensor<24x48xi32>
  %y = linalg.matmul ins(%x, %w : tensor<24x8xi32>, tensor<8x48xi32>) outs(%f : tensor<24x48xi32>) -> tensor<24x48xi32>
  return %y : tensor<24x48xi32>
}

// -----

// Four pairs of panels (128 columns): the threads share out the pairs, the row tiles of
// each run in order.
// CHECK-LABEL: func @many_pairs
// CHECK: } {infc.parallel}
// CHECK: scf.for
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-16: vector.transfer_write
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {infc.parallel}
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @many_pairs(%a: tensor<8x8xi8>) -> tensor<8x128xi32> {
  %w = arith.constant dense<1> : tensor<8x128xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x128xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x128xi32>) -> tensor<8x128xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x128xi32>) outs(%f : tensor<8x128xi32>) -> tensor<8x128xi32>
  return %y : tensor<8x128xi32>
}

// -----

// Unsigned activations need no offset: no xor, accumulators from zero.
// CHECK-LABEL: func @u8_matmul
// CHECK-NOT: arith.xori
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @u8_matmul(%a: tensor<8x8xi8>) -> tensor<8x16xi32> {
  %w = arith.constant dense<5> : tensor<8x16xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extui %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x16xi32>) -> tensor<8x16xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x16xi32>) outs(%f : tensor<8x16xi32>) -> tensor<8x16xi32>
  return %y : tensor<8x16xi32>
}

// -----

// Weights outside the s8 range, and widths no 16 divides, stay on the i32 kernel.
// CHECK-LABEL: func @not_s8
// CHECK: linalg.matmul
// CHECK-NOT: llvm.call_intrinsic
// CHECK-LABEL: func @narrow
// CHECK: linalg.matmul
// CHECK-NOT: llvm.call_intrinsic
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @not_s8(%a: tensor<8x8xi8>) -> tensor<8x16xi32> {
  %w = arith.constant dense<200> : tensor<8x16xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x16xi32>) -> tensor<8x16xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x16xi32>) outs(%f : tensor<8x16xi32>) -> tensor<8x16xi32>
  return %y : tensor<8x16xi32>
}
func.func @narrow(%a: tensor<8x8xi8>) -> tensor<8x10xi32> {
  %w = arith.constant dense<1> : tensor<8x10xi32>
  %e = tensor.empty() : tensor<8x8xi32>
  %x = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<8x8xi8>) outs(%e : tensor<8x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x10xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x10xi32>) -> tensor<8x10xi32>
  %y = linalg.matmul ins(%x, %w : tensor<8x8xi32>, tensor<8x10xi32>) outs(%f : tensor<8x10xi32>) -> tensor<8x10xi32>
  return %y : tensor<8x10xi32>
}

// -----

// A convolution's W x im2col: constant s8-range A, B a zero extension of u8 columns (20 of
// them: two panels, the second padded). A's rows are constant broadcast words; B's columns
// are packed at run time into [panels, K/4, 16] u8 words: per word row, four 16-byte row
// reads interleaved by two byte shuffles into one 64-byte write, in a parallel loop over
// the panels. u8 needs no offset, so the accumulators start at zero. The padded columns
// are sliced off C.
// CHECK-LABEL: func @constant_lhs
// CHECK-DAG: %[[AW:.*]] = arith.constant dense<{{.*}}> : tensor<8x3xi32>
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0] high[3, 12]
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: vector.transfer_read %[[PADDED]]{{.*}} : tensor<12x32xi8>, vector<16xi8>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 16, 1, 17, 2, 18, {{.*}}] : vector<16xi8>, vector<16xi8>
// CHECK: vector.shuffle
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 32, 33, 2, 3, 34, 35, {{.*}}] : vector<32xi8>, vector<32xi8>
// CHECK-NOT: arith.xori
// CHECK: vector.bitcast %{{.*}} : vector<64xi8> to vector<16xi32>
// CHECK: } {infc.parallel}
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-8: tensor.extract %[[AW]]
// CHECK: } {infc.parallel}
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [8, 20] [1, 1] : tensor<8x32xi32> to tensor<8x20xi32>
// CHECK-NOT: linalg.matmul
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

// A signed B: its bytes offset by 128 when packed, each row's accumulators starting from
// -128 x that row's sum of A (here -128 x 2 x 4 = -1024 for every row).
// CHECK-LABEL: func @constant_lhs_signed
// CHECK-DAG: %[[START:.*]] = arith.constant dense<-1024> : tensor<8xi32>
// CHECK: arith.xori
// CHECK: tensor.extract %[[START]]
// CHECK: vector.broadcast
func.func @constant_lhs_signed(%b: tensor<4x16xi8>) -> tensor<8x16xi32> {
  %w = arith.constant dense<2> : tensor<8x4xi32>
  %e = tensor.empty() : tensor<4x16xi32>
  %x = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x16xi8>) outs(%e : tensor<4x16xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extsi %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<4x16xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x16xi32>) -> tensor<8x16xi32>
  %y = linalg.matmul ins(%w, %x : tensor<8x4xi32>, tensor<4x16xi32>) outs(%f : tensor<8x16xi32>) -> tensor<8x16xi32>
  return %y : tensor<8x16xi32>
}

// -----

// Generic code's blocks of rows: the activation of each block a slice of a collapse of the
// extension ([2, ?, 8] u8 -> [?, 8] -> 8 rows at %r): the same slice of the same collapse
// of the bytes feeds vpdpbusd, the i32 extension left to dead-code elimination.
// CHECK-LABEL: func @block_of_rows
// CHECK: %[[BYTES:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x?x8xi8> into tensor<?x8xi8>
// CHECK: tensor.extract_slice %[[BYTES]][%{{.*}}, 0] [8, 8] [1, 1] : tensor<?x8xi8> to tensor<8x8xi8>
// CHECK: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// CHECK-NOT: linalg.matmul
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @block_of_rows(%a: tensor<2x?x8xi8>, %r: index) -> tensor<8x16xi32> {
  %w = arith.constant dense<5> : tensor<8x16xi32>
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c1 : tensor<2x?x8xi8>
  %e = tensor.empty(%n) : tensor<2x?x8xi32>
  %x = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<2x?x8xi8>) outs(%e : tensor<2x?x8xi32>) {
  ^bb0(%in: i8, %out: i32):
    %0 = arith.extui %in : i8 to i32
    linalg.yield %0 : i32
  } -> tensor<2x?x8xi32>
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x?x8xi32> into tensor<?x8xi32>
  %block = tensor.extract_slice %rows[%r, 0] [8, 8] [1, 1] : tensor<?x8xi32> to tensor<8x8xi32>
  %z = arith.constant 0 : i32
  %c = tensor.empty() : tensor<8x16xi32>
  %f = linalg.fill ins(%z : i32) outs(%c : tensor<8x16xi32>) -> tensor<8x16xi32>
  %y = linalg.matmul ins(%block, %w : tensor<8x8xi32>, tensor<8x16xi32>) outs(%f : tensor<8x16xi32>) -> tensor<8x16xi32>
  return %y : tensor<8x16xi32>
}
