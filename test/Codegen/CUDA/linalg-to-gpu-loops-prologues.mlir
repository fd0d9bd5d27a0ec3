// RUN: infc-opt %s -infc-linalg-to-gpu-loops -cse -split-input-file | FileCheck %s
// RUN: infc-opt %s -infc-linalg-to-gpu-loops="prologues=false" -split-input-file | FileCheck %s --check-prefix=OFF

// The all-parallel op that writes a reduction's input (a relu into a workspace buffer)
// runs where the reduction loads that input: one loop nest, the source loaded and the
// payload applied at the reduction's indices, the buffer never written.
// CHECK-LABEL: func.func @relu_into_matmul
// CHECK-SAME: (%[[WS:.*]]: memref<256xi8>, %[[X:.*]]: memref<4x8xf32>, %[[B:.*]]: memref<8x16xf32>, %[[C:.*]]: memref<4x16xf32>)
// CHECK-NOT: memref.store{{.*}}memref<4x8xf32>
// CHECK: scf.parallel (%[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: scf.for %[[K:[a-z0-9]+]] =
// CHECK: %[[V:.*]] = memref.load %[[X]][%[[I]], %[[K]]]
// CHECK: %[[R:.*]] = arith.maximumf %[[V]], %{{.*}} : f32
// CHECK: %[[Y:.*]] = memref.load %[[B]][%[[K]], %[[J]]]
// CHECK: arith.mulf %[[R]], %[[Y]] : f32
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.store{{.*}}memref<4x8xf32>
// CHECK: return
// OFF-LABEL: func.func @relu_into_matmul
// OFF: scf.parallel
// OFF: arith.maximumf
// OFF: memref.store
// OFF: scf.parallel
// OFF: scf.for
#id = affine_map<(i, j) -> (i, j)>
func.func @relu_into_matmul(%ws: memref<256xi8>, %x: memref<4x8xf32>, %b: memref<8x16xf32>,
                            %c: memref<4x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %p = memref.view %ws[%c0][] : memref<256xi8> to memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%p : memref<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.matmul ins(%p, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A convolution's padding (infc-pad-to-generic's form: the source read at clamped indices,
// the padding value outside) in the tiled kernel's staging loads; the fill between them
// is the reduction's start. The padded buffer is written again after the conv (the next
// layer's padding, fused into the next conv too), so nothing reads this value later.
// CHECK-LABEL: func.func @pad_into_tiled_conv
// CHECK-SAME: (%[[WS:.*]]: memref<165888xi8>, %[[X:.*]]: memref<1x32x34x34xf32>, %[[W:.*]]: memref<64x32x3x3xf32>, %[[Y:.*]]: memref<1x64x34x34xf32>, %[[Z:.*]]: memref<1x64x34x34xf32>)
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch
// CHECK: memref.load %[[W]]
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: arith.select %{{.*}}, %[[V]], %{{.*}} : f32
// CHECK: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: gpu.launch
// CHECK: memref.load %[[Y]]
// CHECK: arith.select
// CHECK: gpu.terminator
// CHECK-NOT: scf.parallel
// CHECK: return
#id4 = affine_map<(n, c, h, w) -> (n, c, h, w)>
func.func @pad_into_tiled_conv(%ws: memref<165888xi8>, %x: memref<1x32x34x34xf32>,
                               %w: memref<64x32x3x3xf32>, %y: memref<1x64x34x34xf32>,
                               %z: memref<1x64x34x34xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c33 = arith.constant 33 : index
  %c35 = arith.constant 35 : index
  %p = memref.view %ws[%c0][] : memref<165888xi8> to memref<1x32x36x36xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x32x36x36xf32>) {
  ^bb0(%o: f32):
    %ci = linalg.index 1 : index
    %hi = linalg.index 2 : index
    %wi = linalg.index 3 : index
    %hs = arith.subi %hi, %c1 : index
    %hc = arith.minsi %hs, %c33 : index
    %hcl = arith.maxsi %hc, %c0 : index
    %ws_ = arith.subi %wi, %c1 : index
    %wc = arith.minsi %ws_, %c33 : index
    %wcl = arith.maxsi %wc, %c0 : index
    %h0 = arith.cmpi sge, %hi, %c1 : index
    %h1 = arith.cmpi slt, %hi, %c35 : index
    %w0 = arith.cmpi sge, %wi, %c1 : index
    %w1 = arith.cmpi slt, %wi, %c35 : index
    %a = arith.andi %h0, %h1 : i1
    %b = arith.andi %w0, %w1 : i1
    %in = arith.andi %a, %b : i1
    %v = memref.load %x[%c0, %ci, %hcl, %wcl] : memref<1x32x34x34xf32>
    %s = arith.select %in, %v, %zero : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x64x34x34xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x32x36x36xf32>, memref<64x32x3x3xf32>) outs(%y : memref<1x64x34x34xf32>)
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x32x36x36xf32>) {
  ^bb0(%o: f32):
    %ci = linalg.index 1 : index
    %hi = linalg.index 2 : index
    %wi = linalg.index 3 : index
    %hs = arith.subi %hi, %c1 : index
    %hc = arith.minsi %hs, %c33 : index
    %hcl = arith.maxsi %hc, %c0 : index
    %ws_ = arith.subi %wi, %c1 : index
    %wc = arith.minsi %ws_, %c33 : index
    %wcl = arith.maxsi %wc, %c0 : index
    %h0 = arith.cmpi sge, %hi, %c1 : index
    %h1 = arith.cmpi slt, %hi, %c35 : index
    %w0 = arith.cmpi sge, %wi, %c1 : index
    %w1 = arith.cmpi slt, %wi, %c35 : index
    %a = arith.andi %h0, %h1 : i1
    %b = arith.andi %w0, %w1 : i1
    %in = arith.andi %a, %b : i1
    %v = memref.load %y[%c0, %ci, %hcl, %wcl] : memref<1x64x34x34xf32>
    %s = arith.select %in, %v, %zero : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%z : memref<1x64x34x34xf32>)
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x32x36x36xf32>, memref<64x32x3x3xf32>) outs(%z : memref<1x64x34x34xf32>)
  return
}

// -----

// Not fused: the buffer is read again after the reduction (it must hold the values), and a
// producer that reads what the reduction writes (other threads would read outputs already
// written).
// CHECK-LABEL: func.func @read_again
// CHECK: scf.parallel
// CHECK: arith.maximumf
// CHECK: memref.store
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK-LABEL: func.func @reads_the_output
// CHECK: scf.parallel
// CHECK: arith.maximumf
// CHECK: memref.store
// CHECK: scf.parallel
// CHECK: scf.for
#id = affine_map<(i, j) -> (i, j)>
func.func @read_again(%ws: memref<256xi8>, %x: memref<4x8xf32>, %b: memref<8x16xf32>,
                      %c: memref<4x16xf32>, %d: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %p = memref.view %ws[%c0][] : memref<256xi8> to memref<4x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%p : memref<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.matmul ins(%p, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.copy ins(%p : memref<4x8xf32>) outs(%d : memref<4x8xf32>)
  return
}

func.func @reads_the_output(%ws: memref<512xi8>, %b: memref<8x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %x = memref.view %ws[%c0][] : memref<512xi8> to memref<4x8xf32>
  %p = memref.view %ws[%c256][] : memref<512xi8> to memref<4x8xf32>
  %c = memref.view %ws[%c0][] : memref<512xi8> to memref<4x16xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%p : memref<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  linalg.matmul ins(%p, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}

// -----

// A transpose into a reshaped input (attention's K^T, collapsed to the batch matmul's 3-D
// operand): the batch matmul reads the transpose's source at its own indices, mapped back
// through the reshape (the unit batch dim 0) and the permutation.
// CHECK-LABEL: func.func @transpose_into_batch_matmul
// CHECK-SAME: (%[[WS:.*]]: memref<1024xi8>, %[[A:.*]]: memref<2x3x8xf32>, %[[K:.*]]: memref<1x2x4x8xf32>, %[[C:.*]]: memref<2x3x4xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: scf.parallel (%[[N:[a-z0-9]+]], %[[I:[a-z0-9]+]], %[[J:[a-z0-9]+]]) =
// CHECK: scf.for %[[R:[a-z0-9]+]] =
// CHECK: memref.load %[[A]][%[[N]], %[[I]], %[[R]]]
// CHECK: memref.load %[[K]][%[[ZERO]], %[[N]], %[[J]], %[[R]]]
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.store{{.*}}memref<1x2x8x4xf32>
// CHECK: return
// OFF-LABEL: func.func @transpose_into_batch_matmul
// OFF: scf.parallel
// OFF: scf.parallel
// OFF: scf.for
func.func @transpose_into_batch_matmul(%ws: memref<1024xi8>, %a: memref<2x3x8xf32>,
                                       %k: memref<1x2x4x8xf32>, %c: memref<2x3x4xf32>) {
  %c0 = arith.constant 0 : index
  %kt = memref.view %ws[%c0][] : memref<1024xi8> to memref<1x2x8x4xf32>
  linalg.transpose ins(%k : memref<1x2x4x8xf32>) outs(%kt : memref<1x2x8x4xf32>)
      permutation = [0, 1, 3, 2]
  %b = memref.collapse_shape %kt [[0, 1], [2], [3]] : memref<1x2x8x4xf32> into memref<2x8x4xf32>
  linalg.batch_matmul ins(%a, %b : memref<2x3x8xf32>, memref<2x8x4xf32>)
      outs(%c : memref<2x3x4xf32>)
  return
}

// -----

// Not when the reduction also reaches the buffer through another view (a subview): that
// read would find the buffer never written.
// CHECK-LABEL: func.func @read_through_another_view
// CHECK: scf.parallel
// CHECK: arith.maximumf
// CHECK: memref.store
// CHECK: scf.parallel
// CHECK: scf.for
#rk = affine_map<(i, k) -> (i, k)>
#ri = affine_map<(i, k) -> (i)>
func.func @read_through_another_view(%ws: memref<1024xi8>, %x: memref<4x8xf32>,
                                     %c: memref<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %t = memref.view %ws[%c0][] : memref<1024xi8> to memref<4x8xf32>
  linalg.generic {indexing_maps = [#rk, #rk], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  }
  %s = memref.subview %t[0, 0] [4, 8] [1, 1] : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1]>>
  linalg.generic {indexing_maps = [#rk, #rk, #ri], iterator_types = ["parallel", "reduction"]}
      ins(%t, %s : memref<4x8xf32>, memref<4x8xf32, strided<[8, 1]>>) outs(%c : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The cast to half (--precision fp16) of an activation, as the tensor-core kernel's
// prologue in the planned entry: elementwise at the identity, so a thread stages 8 halves
// at a time from one vector load of 8 floats, cast as a vector; the weights (already
// half) straight from their vector load.
// CHECK-LABEL: func.func @cast_into_tensor_cores
// CHECK: %[[X:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<128x64xf32>, vector<8xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[X]] : vector<8xf32> to vector<8xf16>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<64x96xf16>, vector<8xf16>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %[[A:.*]] = %[[H]],
// CHECK-NOT: gpu.barrier
// CHECK: vector.store %[[A]], %{{.*}} {alignment = 16 : i64} : memref<64x40xf16, #gpu.address_space<workgroup>>, vector<8xf16>
// CHECK: gpu.barrier
// OFF-LABEL: func.func @cast_into_tensor_cores
// OFF: arith.truncf %{{.*}} : f32 to f16
#id = affine_map<(i, j) -> (i, j)>
#ta = affine_map<(i, j, k) -> (i, k)>
#tb = affine_map<(i, j, k) -> (k, j)>
#tc = affine_map<(i, j, k) -> (i, j)>
func.func @cast_into_tensor_cores(%ws: memref<16384xi8> {infc.workspace}, %x: memref<128x64xf32>,
                                  %w: memref<64x96xf16>, %z: memref<128x96xf32>) {
  %c0 = arith.constant 0 : index
  %h = memref.view %ws[%c0][] : memref<16384xi8> to memref<128x64xf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<128x64xf32>) outs(%h : memref<128x64xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  }
  linalg.generic {indexing_maps = [#ta, #tb, #tc], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%h, %w : memref<128x64xf16>, memref<64x96xf16>) outs(%z : memref<128x96xf32>) {
  ^bb0(%u: f16, %v: f16, %acc: f32):
    %u32 = arith.extf %u : f16 to f32
    %v32 = arith.extf %v : f16 to f32
    %p = arith.mulf %u32, %v32 : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An NHWC convolution's padding (of H and W only) stages in vectors: a chunk of 4 channels
// lies in one row of the padded image, so it is one 16-byte load of the source at that
// row's clamped (h, w), and the padding selected for the whole chunk; the filters
// [F, KH, KW, C] stage in vectors too. Nothing is loaded element by element.
// CHECK-LABEL: func.func @pad_rows_into_tiled_conv
// CHECK-SAME: (%[[WS:.*]]: memref<165888xi8> {infc.workspace}, %[[X:.*]]: memref<1x34x34x32xf32>, %[[W:.*]]: memref<64x3x3x32xf32>
// CHECK: gpu.launch
// CHECK-NOT: memref.load %[[X]][
// CHECK-DAG: vector.load %[[W]][{{.*}} : memref<64x3x3x32xf32>, vector<4xf32>
// CHECK-DAG: %[[V:.*]] = vector.load %[[X]][{{.*}} : memref<1x34x34x32xf32>, vector<4xf32>
// CHECK-DAG: arith.select %{{.*}}, %[[V]], %{{.*}} : vector<4xi1>, vector<4xf32>
// CHECK-NOT: memref.load %[[X]][
// CHECK: gpu.terminator
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @pad_rows_into_tiled_conv(%ws: memref<165888xi8> {infc.workspace},
                                    %x: memref<1x34x34x32xf32>, %w: memref<64x3x3x32xf32>,
                                    %y: memref<1x34x34x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c33 = arith.constant 33 : index
  %c35 = arith.constant 35 : index
  %p = memref.view %ws[%c0][] : memref<165888xi8> to memref<1x36x36x32xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x36x36x32xf32>) {
  ^bb0(%o: f32):
    %hi = linalg.index 1 : index
    %wi = linalg.index 2 : index
    %ci = linalg.index 3 : index
    %hs = arith.subi %hi, %c1 : index
    %hc = arith.minsi %hs, %c33 : index
    %hcl = arith.maxsi %hc, %c0 : index
    %ws_ = arith.subi %wi, %c1 : index
    %wc = arith.minsi %ws_, %c33 : index
    %wcl = arith.maxsi %wc, %c0 : index
    %h0 = arith.cmpi sge, %hi, %c1 : index
    %h1 = arith.cmpi slt, %hi, %c35 : index
    %w0 = arith.cmpi sge, %wi, %c1 : index
    %w1 = arith.cmpi slt, %wi, %c35 : index
    %a = arith.andi %h0, %h1 : i1
    %b = arith.andi %w0, %w1 : i1
    %in = arith.andi %a, %b : i1
    %v = memref.load %x[%c0, %hcl, %wcl, %ci] : memref<1x34x34x32xf32>
    %s = arith.select %in, %v, %zero : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x34x34x64xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x36x36x32xf32>, memref<64x3x3x32xf32>) outs(%y : memref<1x34x34x64xf32>)
  return
}

// -----

// A pad of the channels too (the innermost index clamped): its rows are not the source's,
// so the image is staged element by element (the filters still in vectors).
// CHECK-LABEL: func.func @pad_channels_into_tiled_conv
// CHECK-SAME: (%[[WS:.*]]: memref<165888xi8> {infc.workspace}, %[[X:.*]]: memref<1x34x34x30xf32>
// CHECK: gpu.launch
// CHECK-NOT: vector.load %[[X]][
// CHECK: memref.load %[[X]][
// CHECK-NOT: vector.load %[[X]][
// CHECK: gpu.terminator
#id4 = affine_map<(n, h, w, c) -> (n, h, w, c)>
func.func @pad_channels_into_tiled_conv(%ws: memref<165888xi8> {infc.workspace},
                                        %x: memref<1x34x34x30xf32>, %w: memref<64x3x3x32xf32>,
                                        %y: memref<1x32x32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c29 = arith.constant 29 : index
  %c30 = arith.constant 30 : index
  %p = memref.view %ws[%c0][] : memref<165888xi8> to memref<1x34x34x32xf32>
  linalg.generic {indexing_maps = [#id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      outs(%p : memref<1x34x34x32xf32>) {
  ^bb0(%o: f32):
    %hi = linalg.index 1 : index
    %wi = linalg.index 2 : index
    %ci = linalg.index 3 : index
    %cc = arith.minsi %ci, %c29 : index
    %in = arith.cmpi slt, %ci, %c30 : index
    %v = memref.load %x[%c0, %hi, %wi, %cc] : memref<1x34x34x30xf32>
    %s = arith.select %in, %v, %zero : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<1x32x32x64xf32>)
  linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : memref<1x34x34x32xf32>, memref<64x3x3x32xf32>) outs(%y : memref<1x32x32x64xf32>)
  return
}

// -----

// An op between two reductions that can be the epilogue of the one before (a GELU between
// the FFN matmuls) is that, not the prologue of the one after: computed once where the
// first matmul's sum is ready and stored, not again at every load of the second.
// CHECK-LABEL: func.func @epilogue_before_prologue
// CHECK-SAME: (%[[WS:.*]]: memref<512xi8>, %{{.*}}: memref<4x8xf32>, %{{.*}}: memref<8x16xf32>, %{{.*}}: memref<16x8xf32>, %{{.*}}: memref<4x8xf32>)
// CHECK: %[[H:.*]] = memref.view %[[WS]][%{{.*}}][] : memref<512xi8> to memref<4x16xf32>
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: arith.mulf
// CHECK: %[[T:.*]] = math.tanh
// CHECK: memref.store %[[T]], %[[H]]
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: memref.load %[[H]]
// CHECK-NOT: math.tanh
// CHECK: return
#id2 = affine_map<(i, j) -> (i, j)>
func.func @epilogue_before_prologue(%ws: memref<512xi8>, %x: memref<4x8xf32>, %w1: memref<8x16xf32>,
                                    %w2: memref<16x8xf32>, %y: memref<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %p = memref.view %ws[%c0][] : memref<512xi8> to memref<4x16xf32>
  %h = memref.view %ws[%c256][] : memref<512xi8> to memref<4x16xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x16xf32>)
  linalg.matmul ins(%x, %w1 : memref<4x8xf32>, memref<8x16xf32>) outs(%p : memref<4x16xf32>)
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : memref<4x16xf32>) outs(%h : memref<4x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = math.tanh %v : f32
    linalg.yield %t : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<4x8xf32>)
  linalg.matmul ins(%h, %w2 : memref<4x16xf32>, memref<16x8xf32>) outs(%y : memref<4x8xf32>)
  return
}

// -----

// The same at the end of a chain of epilogues (attention's transpose from heads, then the
// cast before the output projection): both run after the first matmul's sum, the
// transposed value is stored once.
// CHECK-LABEL: func.func @chain_before_prologue
// CHECK: %[[H:.*]] = memref.view %{{.*}}[%c256][] : memref<512xi8> to memref<16x4xf32>
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: %[[T:.*]] = math.tanh
// CHECK: memref.store %[[T]], %[[H]]
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: memref.load %[[H]]
// CHECK-NOT: math.tanh
// CHECK: return
#id3 = affine_map<(i, j) -> (i, j)>
func.func @chain_before_prologue(%ws: memref<512xi8>, %x: memref<4x8xf32>, %w1: memref<8x16xf32>,
                                 %w2: memref<4x8xf32>, %y: memref<16x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %p = memref.view %ws[%c0][] : memref<512xi8> to memref<4x16xf32>
  %t = memref.view %ws[%c256][] : memref<512xi8> to memref<16x4xf32>
  linalg.fill ins(%zero : f32) outs(%p : memref<4x16xf32>)
  linalg.matmul ins(%x, %w1 : memref<4x8xf32>, memref<8x16xf32>) outs(%p : memref<4x16xf32>)
  linalg.transpose ins(%p : memref<4x16xf32>) outs(%t : memref<16x4xf32>) permutation = [1, 0]
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<16x4xf32>) outs(%t : memref<16x4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %th = math.tanh %v : f32
    linalg.yield %th : f32
  }
  linalg.fill ins(%zero : f32) outs(%y : memref<16x8xf32>)
  linalg.matmul ins(%t, %w2 : memref<16x4xf32>, memref<4x8xf32>) outs(%y : memref<16x8xf32>)
  return
}

// -----

// A prologue that reads its own output buffer (a split-K sum adding the residual in place,
// into the residual's buffer): fused all the same, as its write is gone; the buffer keeps
// the residual.
// CHECK-LABEL: func.func @in_place_prologue
// CHECK-SAME: (%[[WS:.*]]: memref<256xi8>, %[[S:.*]]: memref<4x8xf32>, %{{.*}}: memref<8x16xf32>, %{{.*}}: memref<4x16xf32>)
// CHECK: %[[R:.*]] = memref.view %[[WS]]
// CHECK: memref.store %{{.*}}, %[[R]]
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK-DAG: memref.load %[[R]]
// CHECK-DAG: memref.load %[[S]]
// CHECK: arith.addf
// CHECK-NOT: scf.parallel
// CHECK-NOT: memref.store{{.*}}%[[R]]
// CHECK: return
#id4 = affine_map<(i, j) -> (i, j)>
func.func @in_place_prologue(%ws: memref<256xi8>, %s: memref<4x8xf32>, %b: memref<8x16xf32>,
                             %c: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %r = memref.view %ws[%c0][] : memref<256xi8> to memref<4x8xf32>
  linalg.copy ins(%s : memref<4x8xf32>) outs(%r : memref<4x8xf32>)
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel"]}
      ins(%r, %s : memref<4x8xf32>, memref<4x8xf32>) outs(%r : memref<4x8xf32>) {
  ^bb0(%v: f32, %w: f32, %o: f32):
    %sum = arith.addf %v, %w : f32
    linalg.yield %sum : f32
  }
  linalg.matmul ins(%r, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  return
}
