// RUN: infc-opt %s -infc-split-reduction -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-split-reduction="max-splits=2" -split-input-file | FileCheck %s --check-prefix=TWO

// 64 x 96 outputs (6 tiles of 32) reduced over 2048: 8 slices of 256 (16 would leave 128
// a slice). A and B are expanded along K into (slice, k), the slice a parallel loop read
// by both (the tiled kernel's batch), the partial sums [8][64][96] from a zero fill; the
// total adds the 8 slices (extract_slices read at the identity; the fill of 0 that
// started the matmul needs no add).
// CHECK-DAG: #[[MA:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[MB:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2, d1)>
// CHECK-DAG: #[[MC:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1)>
// CHECK-LABEL: func.func @matmul
// CHECK-DAG: %[[A:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 8, 256] : tensor<64x2048xf32> into tensor<64x8x256xf32>
// CHECK-DAG: %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [8, 256, 96] : tensor<2048x96xf32> into tensor<8x256x96xf32>
// CHECK: %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<8x64x96xf32>)
// CHECK: %[[PARTIAL:.*]] = linalg.generic {indexing_maps = [#[[MA]], #[[MB]], #[[MC]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[A]], %[[B]] : tensor<64x8x256xf32>, tensor<8x256x96xf32>) outs(%[[ZEROS]] : tensor<8x64x96xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[P0:.*]] = tensor.extract_slice %[[PARTIAL]][0, 0, 0] [1, 64, 96] [1, 1, 1] : tensor<8x64x96xf32> to tensor<64x96xf32>
// CHECK: %[[P1:.*]] = tensor.extract_slice %[[PARTIAL]][1, 0, 0] [1, 64, 96] [1, 1, 1]
// CHECK-COUNT-5: tensor.extract_slice %[[PARTIAL]]
// CHECK: %[[P7:.*]] = tensor.extract_slice %[[PARTIAL]][7, 0, 0] [1, 64, 96] [1, 1, 1]
// CHECK: %[[TOTAL:.*]] = linalg.generic {indexing_maps = [#[[ID:.*]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[P0]], %[[P1]], {{.*}}, %[[P7]] : {{.*}}) outs(%{{.*}} : tensor<64x96xf32>)
// CHECK-NEXT: ^bb0(%[[S0:.*]]: f32, %[[S1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[S7:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[S0]], %[[S1]] : f32
// CHECK-COUNT-5: arith.addf
// CHECK-NEXT: %[[LAST:.*]] = arith.addf %{{.*}}, %[[S7]] : f32
// CHECK-NEXT: linalg.yield %[[LAST]] : f32
// CHECK: return %[[TOTAL]]
// TWO-LABEL: func.func @matmul
// TWO: tensor.expand_shape %{{.*}} output_shape [64, 2, 1024]
// TWO: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x64x96xf32>)
func.func @matmul(%a: tensor<64x2048xf32>, %b: tensor<2048x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %m : tensor<64x96xf32>
}

// -----

// A 3x3 conv of 256 channels to 64 x 7 x 7 (4 tiles of 32): the channels split in 8
// (2304 / 8 = 288 a slice), the window dimensions (read as oh + kh) left alone; the input
// and the filter expanded along their channels, the partial sums [8][1][64][7][7]; the
// total reads slice s as an extract_slice.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d7, d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d7, d4, d5, d6)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d7, d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv
// CHECK-DAG: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [1, 8, 32, 9, 9] : tensor<1x256x9x9xf32> into tensor<1x8x32x9x9xf32>
// CHECK-DAG: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [64, 8, 32, 3, 3] : tensor<64x256x3x3xf32> into tensor<64x8x32x3x3xf32>
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[FILTER]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel"]}
// CHECK: } -> tensor<8x1x64x7x7xf32>
// CHECK: tensor.extract_slice %{{.*}}[7, 0, 0, 0, 0] [1, 1, 64, 7, 7] [1, 1, 1, 1, 1] : tensor<8x1x64x7x7xf32> to tensor<1x64x7x7xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK: } -> tensor<1x64x7x7xf32>
func.func @conv(%x: tensor<1x256x9x9xf32>, %w: tensor<64x256x3x3xf32>) -> tensor<1x64x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x64x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw ins(%x, %w : tensor<1x256x9x9xf32>, tensor<64x256x3x3xf32>) outs(%f : tensor<1x64x7x7xf32>) -> tensor<1x64x7x7xf32>
  return %c : tensor<1x64x7x7xf32>
}

// -----

// Bytes summed in i32 into an output that is not a fill (a Gemm's C): the slices added
// with addi, then to the output read at the point.
// CHECK-LABEL: func.func @accumulate
// CHECK: linalg.fill ins(%{{.*}} : i32) outs(%{{.*}} : tensor<8x64x96xi32>)
// CHECK: linalg.generic {{.*}} outs(%[[C:.*]] : tensor<64x96xi32>)
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-6: arith.addi
// CHECK: %[[OUT:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-NEXT: linalg.yield %[[OUT]] : i32
func.func @accumulate(%a: tensor<64x2048xi8>, %b: tensor<2048x96xi8>, %c: tensor<64x96xi32>) -> tensor<64x96xi32> {
  %m = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x2048xi8>, tensor<2048x96xi8>) outs(%c : tensor<64x96xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %ex = arith.extsi %x : i8 to i32
    %ey = arith.extsi %y : i8 to i32
    %p = arith.muli %ex, %ey : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<64x96xi32>
  return %m : tensor<64x96xi32>
}

// -----

// A fill of 1.5 that started the sums: added to the slices' total.
// CHECK-LABEL: func.func @nonzero_fill
// CHECK: %[[START:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-COUNT-7: arith.addf
// CHECK-NEXT: %[[OUT:.*]] = arith.addf %[[START]], %{{.*}} : f32
// CHECK-NEXT: linalg.yield %[[OUT]] : f32
func.func @nonzero_fill(%a: tensor<64x2048xf32>, %b: tensor<2048x96xf32>) -> tensor<64x96xf32> {
  %start = arith.constant 1.5 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%start : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %m : tensor<64x96xf32>
}

// -----

// Left alone: enough blocks (32 x 32 tiles of 512 x 512 outputs: 256), a reduction too
// short to split (256 would leave 128 a slice), an odd one (no slice count divides 2049).
// CHECK-LABEL: func.func @unsplit
// CHECK-NOT: tensor.expand_shape
// CHECK-COUNT-3: linalg.matmul
// CHECK-NOT: linalg.generic
func.func @unsplit(%a: tensor<512x2048xf32>, %b: tensor<2048x512xf32>, %c: tensor<512x512xf32>,
                   %d: tensor<64x256xf32>, %e: tensor<256x96xf32>, %f: tensor<64x96xf32>,
                   %g: tensor<64x2049xf32>, %h: tensor<2049x96xf32>)
    -> (tensor<512x512xf32>, tensor<64x96xf32>, tensor<64x96xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<512x2048xf32>, tensor<2048x512xf32>) outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  %1 = linalg.matmul ins(%d, %e : tensor<64x256xf32>, tensor<256x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %2 = linalg.matmul ins(%g, %h : tensor<64x2049xf32>, tensor<2049x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  return %0, %1, %2 : tensor<512x512xf32>, tensor<64x96xf32>, tensor<64x96xf32>
}

// -----

// Inside a loop of the model (which runs as loop kernels, not tiled ones): left alone.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.matmul
func.func @in_loop(%a: tensor<64x2048xf32>, %b: tensor<2048x96xf32>, %c: tensor<64x96xf32>) -> tensor<64x96xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %c) -> tensor<64x96xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x96xf32>) outs(%acc : tensor<64x96xf32>) -> tensor<64x96xf32>
    scf.yield %m : tensor<64x96xf32>
  }
  return %r : tensor<64x96xf32>
}

// -----

// The matmul's only user expands its [64][96] to [1][64][96] (an MLP layer's batch): the
// slices and the total take that shape, so the bias add after fuses with the total.
// CHECK-LABEL: func.func @reshaped
// CHECK: %[[P0:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [1, 64, 96] [1, 1, 1] : tensor<8x64x96xf32> to tensor<64x96xf32>
// CHECK: tensor.expand_shape %[[P0]] {{\[}}[0, 1], [2]] output_shape [1, 64, 96] : tensor<64x96xf32> into tensor<1x64x96xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<1x64x96xf32>
// CHECK: %[[TOTAL:.*]] = linalg.generic {{.*}} outs(%[[EMPTY]] : tensor<1x64x96xf32>)
// CHECK-NOT: tensor.expand_shape
// CHECK: return %[[TOTAL]] : tensor<1x64x96xf32>
func.func @reshaped(%a: tensor<64x2048xf32>, %b: tensor<2048x96xf32>) -> tensor<1x64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = tensor.expand_shape %m [[0, 1], [2]] output_shape [1, 64, 96] : tensor<64x96xf32> into tensor<1x64x96xf32>
  return %r : tensor<1x64x96xf32>
}
