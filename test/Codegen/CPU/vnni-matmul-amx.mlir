// RUN: infc-opt %s -infc-vnni-matmul=amx=true -split-input-file | FileCheck %s

// With AMX, ext(A) x constant B: A's bytes zero-padded to 16 rows and 64 bytes of K, B
// packed at compile time into [N/16, K/4, 64] byte tiles, both viewed so that each loop of
// the product generic (m, p, j, q, t) is a dim; no offsets (tile_muli takes the sign of
// each side). The padded C is sliced back.
// CHECK-LABEL: func @amx_matmul
// CHECK: %[[A:.*]] = tensor.pad %arg0 low[0, 0] high[6, 57]
// CHECK: } : tensor<10x7xi8> to tensor<16x64xi8>
// CHECK: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<2x16x64xi8>
// CHECK: tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [16, 16, 4] : tensor<16x64xi8> into tensor<16x16x4xi8>
// CHECK: tensor.expand_shape %[[B]] {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 16, 4] : tensor<2x16x64xi8> into tensor<2x16x16x4xi8>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<16x2x16xi32>) attrs = {infc.amx}
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<16x2x16xi32> into tensor<16x32xi32>
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [10, 32] [1, 1] : tensor<16x32xi32> to tensor<10x32xi32>
// CHECK-NOT: vpdpbusd
// CHECK-NOT: linalg.matmul
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @amx_matmul(%a: tensor<10x7xi8>) -> tensor<10x32xi32> {
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

// A convolution's constant W x ext(im2col of u8): W's rows as constant bytes, the columns
// packed at run time into byte tiles without the sign flip, and B zero-extended.
// CHECK-LABEL: func @amx_constant_lhs
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<16x64xi8>
// CHECK: vector.shuffle
// CHECK-NOT: arith.xori
// CHECK: vector.transfer_write %{{.*}} : vector<64xi8>, tensor<2x16x64xi8>
// CHECK: } {infc.parallel}
// CHECK: linalg.generic
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [8, 20] [1, 1] : tensor<16x32xi32> to tensor<8x20xi32>
#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @amx_constant_lhs(%b: tensor<9x20xi8>) -> tensor<8x20xi32> {
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
