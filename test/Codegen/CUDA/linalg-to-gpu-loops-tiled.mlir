// RUN: infc-opt %s -infc-linalg-to-gpu-loops="row-kernels=false" -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="tile-min-blocks=0 row-kernels=false" -split-input-file | FileCheck %s --check-prefix=OFF

// A matmul of 100 x 70 over 40: 4 x 3 blocks of 32 x 32 (fewer than 132 blocks of any
// larger tile), 256 threads, both inputs staged a 32-deep step at a time into shared memory
// (pitch 34: a thread's rows and columns are two runs of 2 neighbours, each one 8-byte
// shared load a step; a warp's 32 staging stores along the depth hit 16 banks twice), four
// accumulators a thread in private memory, started from the fill's value (the fill and the output's read
// are gone). The buffers hold two stages of 32 rows: step k0 is stored into stage
// (k0 / 32) % 2 while the step before may still be read from the other, so one barrier a
// step is enough; then the next step's elements are loaded into registers (loop values)
// before this step's FMAs run, which hides their latency; each result is stored where it
// is inside the output (100 and 70 are not multiples of 32).
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: memref<100x40xf32>, %[[B:.*]]: memref<40x70xf32>, %[[C:.*]]: memref<100x70xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %{{.*}}) in (%{{.*}} = %[[C3]], %{{.*}} = %[[C4]], %{{.*}} = %[[C1]]) threads(%[[TID:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C256]], %{{.*}} = %[[C1]], %{{.*}} = %[[C1]])
// CHECK-SAME: workgroup(%[[AS:.*]] : memref<64x34xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x34xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: private(%[[ACC:.*]] : memref<4xf32, #gpu.address_space<private>>)
// CHECK-NOT: memref.load %[[C]]
// CHECK: memref.store %[[ZERO]], %[[ACC]]
// The first step's elements loaded (guarded: 0 outside) before the loop, four an input...
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK: memref.load %[[A]]
// CHECK: } else {
// CHECK: scf.yield %[[ZERO]] : f32
// CHECK: memref.load %[[B]]
// CHECK: %{{.*}}:8 = scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// ...stored into its stage of shared memory, then one barrier...
// CHECK-NOT: gpu.barrier
// CHECK: %[[STEP:.*]] = arith.divui %[[K0]], %[[C32:.*]] : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[STEP]], %{{.*}} : index
// CHECK: %[[STAGE:.*]] = arith.muli %[[PARITY]], %[[C32]] : index
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[STAGE]] : index
// CHECK: memref.store %{{.*}}, %[[AS]][%[[ROW]], %{{.*}}]
// CHECK-NOT: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[BS]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// ...the next step's loaded (if there is one) before this one is computed from its stage.
// CHECK: %[[NEXT:.*]]:8 = scf.if %{{.*}} -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK: memref.load %[[A]]
// CHECK: memref.load %[[B]]
// CHECK: scf.for %[[KK:.*]] = %{{.*}} to %[[C32]]
// CHECK: %[[AT:.*]] = arith.addi %[[KK]], %[[STAGE]] : index
// CHECK: vector.load %[[AS]][%[[AT]], %{{.*}}] {alignment = 8 : i64} : memref<64x34xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: vector.load %[[BS]][%[[AT]], %{{.*}}] {alignment = 8 : i64} : memref<64x34xf32, #gpu.address_space<workgroup>>, vector<2xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
// CHECK: arith.addf %{{.*}}, %[[P]] fastmath<contract> : f32
// CHECK: memref.store %{{.*}}, %[[ACC]]
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield %[[NEXT]]#0, %[[NEXT]]#1
// CHECK: }
// CHECK: scf.if
// CHECK: %[[R:.*]] = memref.load %[[ACC]]
// CHECK: memref.store %[[R]], %[[C]]
// CHECK-NOT: linalg.
// OFF-LABEL: func.func @matmul
// OFF-NOT: gpu.launch
// OFF: scf.parallel
func.func @matmul(%a: memref<100x40xf32>, %b: memref<40x70xf32>, %c: memref<100x70xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<100x70xf32>)
  linalg.matmul ins(%a, %b : memref<100x40xf32>, memref<40x70xf32>) outs(%c : memref<100x70xf32>)
  return
}

// -----

// 12 x 13 blocks of 128 x 128 reach 132: the 128 tile, 8 deep (pitch 132), 64 accumulators
// a thread, its 8 rows and 8 columns two runs of 4 each (4 ty and 64 + 4 ty): 4 128-bit
// shared loads a step; the output read first (no fill); 1536 rows need no guard on the rows.
// CHECK-LABEL: func.func @large
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c13, %{{.*}} = %c12, %{{.*}} = %c1)
// CHECK-SAME: workgroup(%{{.*}} : memref<16x132xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x132xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: private(%{{.*}} : memref<64xf32, #gpu.address_space<private>>)
// CHECK: memref.load %{{.*}} : memref<1536x1600xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-4: vector.load %{{.*}} {alignment = 16 : i64} : memref<16x132xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NOT: memref.load %{{.*}} : memref<16x132xf32
// CHECK: scf.yield
func.func @large(%a: memref<1536x64xf32>, %b: memref<64x1600xf32>, %c: memref<1536x1600xf32>) {
  linalg.matmul ins(%a, %b : memref<1536x64xf32>, memref<64x1600xf32>) outs(%c : memref<1536x1600xf32>)
  return
}

// -----

// A convolution as an implicit GEMM: rows the 40 filters, columns the 17 x 18 output
// pixels (the output's innermost dimension), reduced over 24 channels x 3 x 3: the
// filter staged with the reduction fastest, the input with the pixels fastest (a thread's
// pixel is its index modulo 32, its window tap the quotient; the splits of a flat index
// into several loop dimensions divide in i32, a 64-bit division costing several multiplies
// a staged element), its address
// from the op's map (the window's affine.apply). The bias add after it runs in the same
// thread on the value just computed.
// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[X:.*]]: memref<1x24x35x37xf32>, %[[W:.*]]: memref<40x24x3x3xf32>, %[[BIAS:.*]]: memref<40xf32>, %[[Y:.*]]: memref<1x40x17x18xf32>, %[[Z:.*]]: memref<1x40x17x18xf32>)
// CHECK: gpu.launch
// CHECK-SAME: workgroup(%{{.*}} : memref<64x34xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<64x34xf32, #gpu.address_space<workgroup>>)
// CHECK: arith.remui %{{.*}}, %{{.*}} : i32
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: memref.load %[[W]]
// CHECK: affine.apply
// CHECK: memref.load %[[X]]
// CHECK: gpu.barrier
// CHECK: memref.store %[[V:.*]], %[[Y]]
// CHECK: %[[BV:.*]] = memref.load %[[BIAS]]
// CHECK: %[[SUM:.*]] = arith.addf %[[V]], %[[BV]] : f32
// CHECK: memref.store %[[SUM]], %[[Z]]
// CHECK-NOT: linalg.
#id = affine_map<(n, f, h, w) -> (n, f, h, w)>
#channel = affine_map<(n, f, h, w) -> (f)>
func.func @conv(%x: memref<1x24x35x37xf32>, %w: memref<40x24x3x3xf32>, %bias: memref<40xf32>,
                %y: memref<1x40x17x18xf32>, %z: memref<1x40x17x18xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<1x40x17x18xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : memref<1x24x35x37xf32>, memref<40x24x3x3xf32>) outs(%y : memref<1x40x17x18xf32>)
  linalg.generic {indexing_maps = [#id, #channel, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%y, %bias : memref<1x40x17x18xf32>, memref<40xf32>) outs(%z : memref<1x40x17x18xf32>) {
  ^bb0(%v: f32, %bv: f32, %out: f32):
    %s = arith.addf %v, %bv : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not tiled: 16 columns (a narrow output keeps one thread per element); a payload that is
// not a multiply-add (a max of products: zeros staged outside the tile would change it).
// CHECK-LABEL: func.func @narrow
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
func.func @narrow(%a: memref<64x64xf32>, %b: memref<64x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @max_of_products
// CHECK-NOT: gpu.launch
#a = affine_map<(i, j, k) -> (i, k)>
#b = affine_map<(i, j, k) -> (k, j)>
#c = affine_map<(i, j, k) -> (i, j)>
func.func @max_of_products(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %z: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %y : memref<64x64xf32>, memref<64x64xf32>) outs(%z : memref<64x64xf32>) {
  ^bb0(%u: f32, %v: f32, %acc: f32):
    %p = arith.mulf %u, %v : f32
    %m = arith.maximumf %acc, %p : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// In the planned entry (its first argument the workspace) the inputs are 16-byte aligned,
// and a thread stages each input 4 floats at a time: one vector load (consecutive in
// memory: A along K, B along N, each chunk aligned), A's chunk stored down a column of its
// [depth][pitch] buffer element by element, B's along a row as one vector store (aligned to
// the 136-byte pitch: 8 bytes). The next step's chunks are loop values (vector<4xf32>).
// CHECK-LABEL: func.func @vector_staging
// CHECK: %[[A0:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<128x64xf32>, vector<4xf32>
// CHECK: %[[B0:.*]] = vector.load %{{.*}}[%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x96xf32>, vector<4xf32>
// CHECK: scf.for {{.*}} iter_args(%[[A:.*]] = %[[A0]], %[[B:.*]] = %[[B0]]) -> (vector<4xf32>, vector<4xf32>)
// CHECK-COUNT-4: memref.store %{{.*}}, %{{.*}} : memref<64x34xf32, #gpu.address_space<workgroup>>
// CHECK: vector.store %[[B]], %{{.*}} {alignment = 8 : i64} : memref<64x34xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// Anywhere else the pointers' alignment is unknown: one element at a time.
// CHECK-LABEL: func.func @not_entry
// CHECK-NOT: vector.load
// CHECK: gpu.barrier
// A reduction of 50: A's rows are 200 bytes, so chunks of 2 (8-byte aligned), the last
// step's guard on the chunk (all of it inside or none); B keeps 4.
// CHECK-LABEL: func.func @odd_depth
// CHECK: vector.load %{{.*}} {alignment = 8 : i64} : memref<128x50xf32>, vector<2xf32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<50x96xf32>, vector<4xf32>
func.func @vector_staging(%ws: memref<64xi8> {infc.workspace}, %a: memref<128x64xf32>,
                          %b: memref<64x96xf32>, %c: memref<128x96xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x96xf32>) outs(%c : memref<128x96xf32>)
  return
}
func.func @not_entry(%a: memref<128x64xf32>, %b: memref<64x96xf32>, %c: memref<128x96xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32>, memref<64x96xf32>) outs(%c : memref<128x96xf32>)
  return
}
func.func @odd_depth(%ws: memref<64xi8> {infc.workspace}, %a: memref<128x50xf32>,
                     %b: memref<50x96xf32>, %c: memref<128x96xf32>) {
  linalg.matmul ins(%a, %b : memref<128x50xf32>, memref<50x96xf32>) outs(%c : memref<128x96xf32>)
  return
}

// -----

// A contraction inside a region (a model's loop) is not tiled: infc-map-to-gpu runs the
// region on one thread, and a kernel cannot launch another.
// CHECK-LABEL: func.func @inside_a_loop
// CHECK-NOT: gpu.launch
// CHECK: scf.parallel
func.func @inside_a_loop(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    linalg.matmul ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  }
  return
}

// -----

// A 1x1 convolution at batch 1 (stride 1, no padding) stages its input along the pixels
// 4 floats at a time: the batch and the 1x1 window are dimensions of range 1, always 0,
// so only oh (28 elements apart) and ow (1 apart) make up the flattened pixel index.
// CHECK-LABEL: func.func @pointwise_conv
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x64x28x28xf32>, vector<4xf32>
func.func @pointwise_conv(%ws: memref<64xi8> {infc.workspace}, %x: memref<1x64x28x28xf32>,
                          %w: memref<96x64x1x1xf32>, %y: memref<1x96x28x28xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%x, %w : memref<1x64x28x28xf32>, memref<96x64x1x1xf32>) outs(%y : memref<1x96x28x28xf32>)
  return
}

// -----

// A transposed view (its innermost dimension 128 elements apart): no vector load of it
// (vector.load reads along a unit-stride innermost dimension); B still 4 at a time.
// CHECK-LABEL: func.func @transposed_view
// CHECK-NOT: vector.load %{{.*}} : memref<128x64xf32, strided<[1, 128]>>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x96xf32>, vector<4xf32>
// CHECK-NOT: vector.load %{{.*}} : memref<128x64xf32, strided<[1, 128]>>
func.func @transposed_view(%ws: memref<64xi8> {infc.workspace}, %a: memref<128x64xf32, strided<[1, 128]>>,
                           %b: memref<64x96xf32>, %c: memref<128x96xf32>) {
  linalg.matmul ins(%a, %b : memref<128x64xf32, strided<[1, 128]>>, memref<64x96xf32>) outs(%c : memref<128x96xf32>)
  return
}
