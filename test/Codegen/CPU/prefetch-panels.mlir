// RUN: infc-opt %s -infc-prefetch-panels -split-input-file | FileCheck %s

// The K loop of a 7 x 32 register tile over a K block (rows [%koff, %koff + 128) of 4608)
// of panel %p of packed weights [4, 4608, 32], 7 row tiles per block, panels inside the K
// blocks: the next block is the same rows of panel %p + 1, 4608 * 32 floats on. The row
// tiles share it out, 32 / 7 = 4 floats a K step: row tile r = %r / 7 prefetches floats
// [r * 512, r * 512 + 512) of it, float 4 * %k in step %k, one prefetch a step, into L2;
// its share clamped so that the last step stays within the weights (589824 - 1 - 127 * 4).
// CHECK-LABEL: func.func @k_block
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %[[C7:[^ ]*]]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[RS:.*]] = arith.subi %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[RI:.*]] = arith.divui %[[RS]], %[[C7]] : index
// CHECK: %[[TILE:.*]] = arith.addi %{{.*}}, %[[RI]] : index
// CHECK-NEXT: %[[PANEL:.*]] = arith.constant 147456 : index
// CHECK-NEXT: %[[PO:.*]] = arith.muli %[[P]], %[[PANEL]] : index
// CHECK-NEXT: %[[NR:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[KO:.*]] = arith.muli %arg3, %[[NR]] : index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[PO]], %[[KO]] : index
// CHECK-NEXT: %[[DIST:.*]] = arith.constant 147456 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[START]], %[[DIST]] : index
// CHECK-NEXT: %[[SHARE:.*]] = arith.constant 512 : index
// CHECK-NEXT: %[[TO:.*]] = arith.muli %[[TILE]], %[[SHARE]] : index
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[NEXT]], %[[TO]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 589315 : index
// CHECK-NEXT: %[[CLAMPED:.*]] = arith.minui %[[BASE]], %[[LIMIT]] : index
// CHECK-NEXT: %[[D:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[KD:.*]] = arith.muli %[[K]], %[[D]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[CLAMPED]], %[[KD]] : index
// CHECK-NEXT: %[[FLAT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : memref<4x4608x32xf32> into memref<589824xf32>
// CHECK-NEXT: %[[J:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT0:.*]] = arith.addi %[[AT]], %[[J]] : index
// CHECK-NEXT: memref.prefetch %[[FLAT]][%[[AT0]]], read, locality<2>, data : memref<589824xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @k_block(%a: memref<49x128xf32>, %w: memref<4x4608x32xf32>, %c: memref<49x128xf32>, %koff: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c49 = arith.constant 49 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<7x32xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    %block = memref.subview %w[%p, %koff, 0] [1, 128, 32] [1, 1, 1] : memref<4x4608x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    scf.for %r = %c0 to %c49 step %c7 {
      %rows = memref.subview %a[%r, 0] [7, 128] [1, 1] : memref<49x128xf32> to memref<7x128xf32, strided<[128, 1], offset: ?>>
      %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<7x32xf32>) {
        %col = memref.subview %rows[0, %k] [7, 1] [1, 1] : memref<7x128xf32, strided<[128, 1], offset: ?>> to memref<7x1xf32, strided<[128, 1], offset: ?>>
        %row = memref.subview %block[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
        %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<7x1xf32, strided<[128, 1], offset: ?>>, vector<7x1xf32>
        %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
        scf.yield %s : vector<7x32xf32>
      }
      %out = memref.subview %c[%r, 0] [7, 32] [1, 1] : memref<49x128xf32> to memref<7x32xf32, strided<[128, 1], offset: ?>>
      vector.transfer_write %acc, %out[%c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<7x32xf32, strided<[128, 1], offset: ?>>
    }
  }
  return
}

// -----

// All of K in the panel, 16 row tiles: the next panel (128 * 32 floats on) is shared out
// over the tiles while this one is computed, 32 / 16 = 2 floats a step. The first read
// that matches decides: the K block of %w2 gets none.
// CHECK-LABEL: func.func @whole_k_many_rows
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: 147456
// CHECK-NOT: memref.prefetch
// CHECK: %[[PANEL:.*]] = arith.constant 4096 : index
// CHECK-NEXT: arith.muli %[[P]], %[[PANEL]] : index
// CHECK: %[[DIST:.*]] = arith.constant 4096 : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[DIST]] : index
// CHECK-NEXT: %[[SHARE:.*]] = arith.constant 256 : index
// CHECK: %[[LIMIT:.*]] = arith.constant 16129 : index
// CHECK: %[[D:.*]] = arith.constant 2 : index
// CHECK-NEXT: arith.muli %[[K]], %[[D]] : index
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : memref<4x128x32xf32> into memref<16384xf32>
// CHECK: memref.prefetch %[[FLAT]][%{{.*}}], read, locality<2>, data : memref<16384xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @whole_k_many_rows(%a: memref<96x128xf32>, %w: memref<4x128x32xf32>, %w2: memref<4x4608x32xf32>, %koff: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c96 = arith.constant 96 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x32xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    %block = memref.subview %w[%p, 0, 0] [1, 128, 32] [1, 1, 1] : memref<4x128x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    %block2 = memref.subview %w2[%p, %koff, 0] [1, 128, 32] [1, 1, 1] : memref<4x4608x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    scf.for %r = %c0 to %c96 step %c6 {
      %rows = memref.subview %a[%r, 0] [6, 128] [1, 1] : memref<96x128xf32> to memref<6x128xf32, strided<[128, 1], offset: ?>>
      %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<6x32xf32>) {
        %col = memref.subview %rows[0, %k] [6, 1] [1, 1] : memref<6x128xf32, strided<[128, 1], offset: ?>> to memref<6x1xf32, strided<[128, 1], offset: ?>>
        %row = memref.subview %block[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
        %row2 = memref.subview %block2[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
        %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x1xf32, strided<[128, 1], offset: ?>>, vector<6x1xf32>
        %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
        %y2 = vector.transfer_read %row2[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<6x1xf32>, vector<1x32xf32> into vector<6x32xf32>
        %s2 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y2, %s : vector<6x1xf32>, vector<1x32xf32> into vector<6x32xf32>
        scf.yield %s2 : vector<6x32xf32>
      }
    }
  }
  return
}

// -----
// One tile over all of K in each panel (a remainder tile after the row tiles that read
// the panel first): no prefetch. Nor under a row loop of unknown trip count, nor in a
// loop over one panel read whole (no next panel).
// CHECK-LABEL: func.func @one_tile_or_unknown_rows
// CHECK-NOT: memref.prefetch
func.func @one_tile_or_unknown_rows(%a: memref<4x128xf32>, %w: memref<4x128x32xf32>, %w2: memref<4x4608x32xf32>, %koff: index, %m: index, %w3: memref<1x128x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<4x32xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    %block = memref.subview %w[%p, 0, 0] [1, 128, 32] [1, 1, 1] : memref<4x128x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<4x32xf32>) {
      %col = memref.subview %a[0, %k] [4, 1] [1, 1] : memref<4x128xf32> to memref<4x1xf32, strided<[128, 1], offset: ?>>
      %row = memref.subview %block[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
      %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x1xf32, strided<[128, 1], offset: ?>>, vector<4x1xf32>
      %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
      %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
      scf.yield %s : vector<4x32xf32>
    }
    %block2 = memref.subview %w2[%p, %koff, 0] [1, 128, 32] [1, 1, 1] : memref<4x4608x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    scf.for %r = %c0 to %m step %c4 {
      %acc2 = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<4x32xf32>) {
        %col = memref.subview %a[0, %k] [4, 1] [1, 1] : memref<4x128xf32> to memref<4x1xf32, strided<[128, 1], offset: ?>>
        %row = memref.subview %block2[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
        %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x1xf32, strided<[128, 1], offset: ?>>, vector<4x1xf32>
        %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
        scf.yield %s : vector<4x32xf32>
      }
    }
  }
  %c16 = arith.constant 16 : index
  %zero4 = arith.constant dense<0.0> : vector<4x32xf32>
  scf.for %q = %c0 to %c1 step %c1 {
    %block3 = memref.subview %w3[%q, 0, 0] [1, 128, 32] [1, 1, 1] : memref<1x128x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
    scf.for %r = %c0 to %c16 step %c4 {
      %acc3 = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero4) -> (vector<4x32xf32>) {
        %col = memref.subview %a[0, %k] [4, 1] [1, 1] : memref<4x128xf32> to memref<4x1xf32, strided<[128, 1], offset: ?>>
        %row = memref.subview %block3[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
        %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x1xf32, strided<[128, 1], offset: ?>>, vector<4x1xf32>
        %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<4x1xf32>, vector<1x32xf32> into vector<4x32xf32>
        scf.yield %s : vector<4x32xf32>
      }
    }
  }
  return
}

// -----

// A 7 x 48 tile split into one-vector columns (vector.fma, each column read through a
// subview of the K row): 48 / 7 = 6 floats a step, shares of 256 * 6 of the next panel's
// block.
// CHECK-LABEL: func.func @split_columns
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[PANEL:.*]] = arith.constant 221184 : index
// CHECK-NEXT: arith.muli %arg3, %[[PANEL]] : index
// CHECK: %[[DIST:.*]] = arith.constant 221184 : index
// CHECK-NEXT: arith.addi %{{.*}}, %[[DIST]] : index
// CHECK-NEXT: %[[SHARE:.*]] = arith.constant 1536 : index
// CHECK: %[[LIMIT:.*]] = arith.constant 2210309 : index
// CHECK: %[[D:.*]] = arith.constant 6 : index
// CHECK-NEXT: arith.muli %[[K]], %[[D]] : index
// CHECK: %[[FLAT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : memref<10x4608x48xf32> into memref<2211840xf32>
// CHECK: memref.prefetch %[[FLAT]][%{{.*}}], read, locality<2>, data : memref<2211840xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
func.func @split_columns(%a: memref<49x256xf32>, %w: memref<10x4608x48xf32>, %koff: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %c49 = arith.constant 49 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<16xf32>
  scf.for %p = %c0 to %c10 step %c1 {
    %block = memref.subview %w[%p, %koff, 0] [1, 256, 48] [1, 1, 1] : memref<10x4608x48xf32> to memref<256x48xf32, strided<[48, 1], offset: ?>>
    scf.for %r = %c0 to %c49 step %c7 {
      %acc:2 = scf.for %k = %c0 to %c256 step %c1 iter_args(%t0 = %zero, %t1 = %zero) -> (vector<16xf32>, vector<16xf32>) {
        %x = memref.load %a[%r, %k] : memref<49x256xf32>
        %xb = vector.broadcast %x : f32 to vector<16xf32>
        %row = memref.subview %block[%k, 0] [1, 48] [1, 1] : memref<256x48xf32, strided<[48, 1], offset: ?>> to memref<1x48xf32, strided<[48, 1], offset: ?>>
        %col0 = memref.subview %row[0, 0] [1, 16] [1, 1] : memref<1x48xf32, strided<[48, 1], offset: ?>> to memref<1x16xf32, strided<[48, 1], offset: ?>>
        %col1 = memref.subview %row[0, 16] [1, 16] [1, 1] : memref<1x48xf32, strided<[48, 1], offset: ?>> to memref<1x16xf32, strided<[48, 1], offset: ?>>
        %y0 = vector.transfer_read %col0[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[48, 1], offset: ?>>, vector<1x16xf32>
        %y1 = vector.transfer_read %col1[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x16xf32, strided<[48, 1], offset: ?>>, vector<1x16xf32>
        %v0 = vector.extract %y0[0] : vector<16xf32> from vector<1x16xf32>
        %v1 = vector.extract %y1[0] : vector<16xf32> from vector<1x16xf32>
        %s0 = vector.fma %xb, %v0, %t0 : vector<16xf32>
        %s1 = vector.fma %xb, %v1, %t1 : vector<16xf32>
        scf.yield %s0, %s1 : vector<16xf32>, vector<16xf32>
      }
    }
  }
  return
}

// -----

// A panel loop that steps through each panel's K blocks inside it (infc.panel_k_blocks,
// infc-pack-matmul-panels' form for few rows against weights from memory) reads them in
// memory order: the next block is the one right after this (128 * 32 floats on; the last
// block's next is the next panel's first), and the row tiles counted are those of one
// block (7 here, not 7 per block times the blocks).
// CHECK-LABEL: func.func @k_blocks_inside_panels
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[KB:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[KOFF:.*]] = arith.muli %[[KB]], %{{.*}} : index
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[PO:.*]] = arith.muli %[[P]], %{{.*}} : index
// CHECK: %[[KO:.*]] = arith.muli %[[KOFF]], %{{.*}} : index
// CHECK-NEXT: %[[START:.*]] = arith.addi %[[PO]], %[[KO]] : index
// CHECK-NEXT: %[[DIST:.*]] = arith.constant 4096 : index
// CHECK-NEXT: arith.addi %[[START]], %[[DIST]] : index
// CHECK-NEXT: %[[SHARE:.*]] = arith.constant 512 : index
// CHECK: memref.prefetch %{{.*}}[%{{.*}}], read, locality<2>, data : memref<589824xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @k_blocks_inside_panels(%a: memref<49x4608xf32>, %w: memref<4x4608x32xf32>, %c: memref<49x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c36 = arith.constant 36 : index
  %c49 = arith.constant 49 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<7x32xf32>
  scf.for %p = %c0 to %c4 step %c1 {
    scf.for %kb = %c0 to %c36 step %c1 {
      %koff = arith.muli %kb, %c128 : index
      %block = memref.subview %w[%p, %koff, 0] [1, 128, 32] [1, 1, 1] : memref<4x4608x32xf32> to memref<128x32xf32, strided<[32, 1], offset: ?>>
      scf.for %r = %c0 to %c49 step %c7 {
        %rows = memref.subview %a[%r, %koff] [7, 128] [1, 1] : memref<49x4608xf32> to memref<7x128xf32, strided<[4608, 1], offset: ?>>
        %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<7x32xf32>) {
          %col = memref.subview %rows[0, %k] [7, 1] [1, 1] : memref<7x128xf32, strided<[4608, 1], offset: ?>> to memref<7x1xf32, strided<[4608, 1], offset: ?>>
          %row = memref.subview %block[%k, 0] [1, 32] [1, 1] : memref<128x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
          %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<7x1xf32, strided<[4608, 1], offset: ?>>, vector<7x1xf32>
          %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
          %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
          scf.yield %s : vector<7x32xf32>
        }
        %out = memref.subview %c[%r, 0] [7, 32] [1, 1] : memref<49x128xf32> to memref<7x32xf32, strided<[128, 1], offset: ?>>
        vector.transfer_write %acc, %out[%c0, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<7x32xf32, strided<[128, 1], offset: ?>>
      }
    }
  } {infc.panel_k_blocks = 128 : i64}
  return
}

// -----

// infc-implicit-conv's pixel rows: each of 32 row tiles reads all 9 x 256 rows of panel
// %p, row %t * 256 + %k, straight from the weights. The taps loop steps through the
// panel's rows, so it counts as no row tile: 64 / 32 = 2 floats a step, row tile r = %r
// prefetches floats [r * 2304 * 2, ...) of the next panel (2304 * 64 floats on), float
// 2 * row in the step that reads row `row`.
// CHECK-LABEL: func.func @pixel_rows
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %[[STEP:[^ ]*]] iter_args
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[K]] : index
// CHECK: %[[RS:.*]] = arith.subi %[[R]], %{{.*}} : index
// CHECK-NEXT: %[[RI:.*]] = arith.divui %[[RS]], %[[STEP]] : index
// CHECK-NEXT: %[[TRIP:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[TS0:.*]] = arith.muli %{{.*}}, %[[TRIP]] : index
// CHECK-NEXT: %[[TILE:.*]] = arith.addi %[[TS0]], %[[RI]] : index
// CHECK: %[[PANEL:.*]] = arith.constant 147456 : index
// CHECK-NEXT: arith.muli %[[P]], %[[PANEL]] : index
// CHECK: %[[DIST:.*]] = arith.constant 147456 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %{{.*}}, %[[DIST]] : index
// CHECK-NEXT: %[[SHARE:.*]] = arith.constant 4608 : index
// CHECK-NEXT: %[[TO:.*]] = arith.muli %[[TILE]], %[[SHARE]] : index
// CHECK-NEXT: %[[BASE:.*]] = arith.addi %[[NEXT]], %[[TO]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 585217 : index
// CHECK-NEXT: %[[CLAMPED:.*]] = arith.minui %[[BASE]], %[[LIMIT]] : index
// CHECK-NEXT: %[[D:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[RD:.*]] = arith.muli %[[ROW]], %[[D]] : index
// CHECK-NEXT: arith.addi %[[CLAMPED]], %[[RD]] : index
// CHECK: memref.prefetch %{{.*}}[%{{.*}}], read, locality<2>, data : memref<589824xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @pixel_rows(%a: memref<192x256xf32>, %w: memref<4x2304x64xf32>) -> vector<6x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c9 = arith.constant 9 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x64xf32>
  %res = scf.for %p = %c0 to %c4 step %c1 iter_args(%u = %zero) -> (vector<6x64xf32>) {
    %byRow = scf.for %r = %c0 to %c32 step %c1 iter_args(%v = %u) -> (vector<6x64xf32>) {
      %byTap = scf.for %t = %c0 to %c9 step %c1 iter_args(%w0 = %v) -> (vector<6x64xf32>) {
        %tapRow = arith.muli %t, %c256 : index
        %acc = scf.for %k = %c0 to %c256 step %c1 iter_args(%acc0 = %w0) -> (vector<6x64xf32>) {
          %row = arith.addi %tapRow, %k : index
          %col = memref.subview %a[%r, %k] [6, 1] [1, 1] : memref<192x256xf32> to memref<6x1xf32, strided<[256, 1], offset: ?>>
          %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x1xf32, strided<[256, 1], offset: ?>>, vector<6x1xf32>
          %wrow = memref.subview %w[%p, %row, 0] [1, 1, 64] [1, 1, 1] : memref<4x2304x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
          %y = vector.transfer_read %wrow[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<1x64xf32>
          %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %acc0 : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
          scf.yield %s : vector<6x64xf32>
        }
        scf.yield %acc : vector<6x64xf32>
      }
      scf.yield %byTap : vector<6x64xf32>
    }
    scf.yield %byRow : vector<6x64xf32>
  }
  return %res : vector<6x64xf32>
}

// -----

// Two row tiles of a 64-wide panel: 32 floats (two lines) a step, so two prefetches a
// step, 16 floats apart.
// CHECK-LABEL: func.func @two_lines_a_step
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[D:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[KD:.*]] = arith.muli %[[K]], %[[D]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.addi %{{.*}}, %[[KD]] : index
// CHECK-NEXT: %[[FLAT:.*]] = memref.collapse_shape
// CHECK-NEXT: %[[J0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[AT0:.*]] = arith.addi %[[AT]], %[[J0]] : index
// CHECK-NEXT: memref.prefetch %[[FLAT]][%[[AT0]]], read, locality<2>, data : memref<589824xf32>
// CHECK-NEXT: %[[J1:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[AT1:.*]] = arith.addi %[[AT]], %[[J1]] : index
// CHECK-NEXT: memref.prefetch %[[FLAT]][%[[AT1]]], read, locality<2>, data : memref<589824xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.contract
func.func @two_lines_a_step(%a: memref<12x128xf32>, %w: memref<2x4608x64xf32>, %c: memref<12x128xf32>, %koff: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c6 = arith.constant 6 : index
  %c12 = arith.constant 12 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<6x64xf32>
  scf.for %p = %c0 to %c2 step %c1 {
    %block = memref.subview %w[%p, %koff, 0] [1, 128, 64] [1, 1, 1] : memref<2x4608x64xf32> to memref<128x64xf32, strided<[64, 1], offset: ?>>
    scf.for %r = %c0 to %c12 step %c6 {
      %rows = memref.subview %a[%r, 0] [6, 128] [1, 1] : memref<12x128xf32> to memref<6x128xf32, strided<[128, 1], offset: ?>>
      %acc = scf.for %k = %c0 to %c128 step %c1 iter_args(%t = %zero) -> (vector<6x64xf32>) {
        %col = memref.subview %rows[0, %k] [6, 1] [1, 1] : memref<6x128xf32, strided<[128, 1], offset: ?>> to memref<6x1xf32, strided<[128, 1], offset: ?>>
        %row = memref.subview %block[%k, 0] [1, 64] [1, 1] : memref<128x64xf32, strided<[64, 1], offset: ?>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
        %x = vector.transfer_read %col[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x1xf32, strided<[128, 1], offset: ?>>, vector<6x1xf32>
        %y = vector.transfer_read %row[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x64xf32, strided<[64, 1], offset: ?>>, vector<1x64xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %t : vector<6x1xf32>, vector<1x64xf32> into vector<6x64xf32>
        scf.yield %s : vector<6x64xf32>
      }
      %out = memref.subview %c[%r, 0] [6, 64] [1, 1] : memref<12x128xf32> to memref<6x64xf32, strided<[128, 1], offset: ?>>
      vector.transfer_write %acc, %out[%c0, %c0] {in_bounds = [true, true]} : vector<6x64xf32>, memref<6x64xf32, strided<[128, 1], offset: ?>>
    }
  }
  return
}
