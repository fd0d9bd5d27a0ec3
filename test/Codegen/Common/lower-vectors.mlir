// RUN: infc-opt %s -infc-lower-vectors | FileCheck %s

// After bufferization: vector.contract -> outer products -> one vector.fma per row (the A
// element broadcast, times the B row, plus the accumulator row); transposes element by
// element; in-bounds 1-d transfers -> vector.load / vector.store. Transfers of rank 2 and
// possibly out-of-bounds ones stay for convert-vector-to-scf.

// The register-tile kernel of infc-tile-and-vectorize-matmul at 256 bits, one K step.
// CHECK-LABEL: func.func @contract_6x16
// CHECK-SAME: (%[[A:.*]]: memref<6x1xf32, {{.*}}>, %[[B:.*]]: memref<1x16xf32, {{.*}}>, %[[C:.*]]: memref<6x16xf32, {{.*}}>)
// CHECK-NOT: vector.contract
// CHECK-DAG: %[[VA:.*]] = vector.transfer_read %[[A]]{{.*}} : memref<6x1xf32, {{.*}}>, vector<6x1xf32>
// CHECK-DAG: %[[VB:.*]] = vector.transfer_read %[[B]]{{.*}} : memref<1x16xf32, {{.*}}>, vector<1x16xf32>
// CHECK-DAG: %[[VC:.*]] = vector.transfer_read %[[C]]{{.*}} : memref<6x16xf32, {{.*}}>, vector<6x16xf32>
// CHECK: %[[BROW:.*]] = vector.extract %[[VB]][0] : vector<16xf32> from vector<1x16xf32>
// CHECK: %[[A0:.*]] = vector.extract %[[VA]][0, 0] : f32 from vector<6x1xf32>
// CHECK: %[[A0V:.*]] = vector.broadcast %[[A0]] : f32 to vector<16xf32>
// CHECK: %[[C0:.*]] = vector.extract %[[VC]][0] : vector<16xf32> from vector<6x16xf32>
// CHECK: %[[F0:.*]] = vector.fma %[[A0V]], %[[BROW]], %[[C0]] : vector<16xf32>
// CHECK: vector.insert %[[F0]], %{{.*}} [0] : vector<16xf32> into vector<6x16xf32>
// CHECK-COUNT-4: vector.fma %{{.*}}, %[[BROW]], %{{.*}} : vector<16xf32>
// CHECK: %[[A5:.*]] = vector.extract %[[VA]][5, 0] : f32 from vector<6x1xf32>
// CHECK: %[[A5V:.*]] = vector.broadcast %[[A5]] : f32 to vector<16xf32>
// CHECK: %[[C5:.*]] = vector.extract %[[VC]][5] : vector<16xf32> from vector<6x16xf32>
// CHECK: %[[F5:.*]] = vector.fma %[[A5V]], %[[BROW]], %[[C5]] : vector<16xf32>
// CHECK: %[[R:.*]] = vector.insert %[[F5]], %{{.*}} [5] : vector<16xf32> into vector<6x16xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: vector.outerproduct
// CHECK: vector.transfer_write %[[R]], %[[C]]{{.*}} : vector<6x16xf32>, memref<6x16xf32, {{.*}}>
// CHECK: return
#mA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mB = affine_map<(d0, d1, d2) -> (d2, d1)>
#mC = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @contract_6x16(%a: memref<6x1xf32, strided<[96, 1], offset: ?>>,
                         %b: memref<1x16xf32, strided<[128, 1], offset: ?>>,
                         %c: memref<6x16xf32, strided<[128, 1], offset: ?>>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %p {in_bounds = [true, true]} : memref<6x1xf32, strided<[96, 1], offset: ?>>, vector<6x1xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %p {in_bounds = [true, true]} : memref<1x16xf32, strided<[128, 1], offset: ?>>, vector<1x16xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %p {in_bounds = [true, true]} : memref<6x16xf32, strided<[128, 1], offset: ?>>, vector<6x16xf32>
  %r = vector.contract {indexing_maps = [#mA, #mB, #mC], iterator_types = ["parallel", "parallel", "reduction"],
                        kind = #vector.kind<add>} %va, %vb, %vc : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32, strided<[128, 1], offset: ?>>
  return
}

// An outer product on its own: the same broadcast-FMA rows.
// CHECK-LABEL: func.func @outerproduct
// CHECK-SAME: (%[[L:.*]]: vector<4xf32>, %[[R:.*]]: vector<8xf32>, %[[ACC:.*]]: vector<4x8xf32>)
// CHECK-NOT: vector.outerproduct
// CHECK: %[[E:.*]] = vector.extract %[[L]][0] : f32 from vector<4xf32>
// CHECK: %[[BC:.*]] = vector.broadcast %[[E]] : f32 to vector<8xf32>
// CHECK: %[[ROW:.*]] = vector.extract %[[ACC]][0] : vector<8xf32> from vector<4x8xf32>
// CHECK: vector.fma %[[BC]], %[[R]], %[[ROW]] : vector<8xf32>
// CHECK-COUNT-3: vector.fma %{{.*}}, %[[R]], %{{.*}} : vector<8xf32>
// CHECK-NOT: vector.fma
// CHECK-NOT: vector.outerproduct
// CHECK: return
func.func @outerproduct(%l: vector<4xf32>, %r: vector<8xf32>, %acc: vector<4x8xf32>) -> vector<4x8xf32> {
  %0 = vector.outerproduct %l, %r, %acc {kind = #vector.kind<add>} : vector<4xf32>, vector<8xf32>
  return %0 : vector<4x8xf32>
}

// In-bounds 1-d transfers become plain loads and stores, on strided views too; one that may
// run out of bounds is left alone.
// CHECK-LABEL: func.func @transfers_1d
// CHECK-SAME: (%[[M:.*]]: memref<128xf32>, %[[S:.*]]: memref<16xf32, strided<[1], offset: ?>>, %[[I:.*]]: index)
// CHECK: %[[V:.*]] = vector.load %[[M]][%[[I]]] : memref<128xf32>, vector<16xf32>
// CHECK: vector.store %[[V]], %[[S]][%[[I]]] : memref<16xf32, strided<[1], offset: ?>>, vector<16xf32>
// CHECK: %[[W:.*]] = vector.transfer_read %[[M]][%[[I]]], %{{.*}} : memref<128xf32>, vector<16xf32>
// CHECK: vector.transfer_write %[[W]], %[[M]][%[[I]]] : vector<16xf32>, memref<128xf32>
// CHECK: return
func.func @transfers_1d(%m: memref<128xf32>, %s: memref<16xf32, strided<[1], offset: ?>>, %i: index) {
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%i], %p {in_bounds = [true]} : memref<128xf32>, vector<16xf32>
  vector.transfer_write %v, %s[%i] {in_bounds = [true]} : vector<16xf32>, memref<16xf32, strided<[1], offset: ?>>
  %w = vector.transfer_read %m[%i], %p : memref<128xf32>, vector<16xf32>
  vector.transfer_write %w, %m[%i] : vector<16xf32>, memref<128xf32>
  return
}

// A transposing read: a plain read, then the transpose element by element.
// CHECK-LABEL: func.func @transposed_read
// CHECK: %[[T:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true]} : memref<4x2xf32>, vector<4x2xf32>
// CHECK-NOT: vector.transpose
// CHECK: vector.extract %[[T]][0, 1] : f32 from vector<4x2xf32>
// CHECK-NEXT: vector.insert %{{.*}}, %{{.*}} [1, 0] : f32 into vector<2x4xf32>
// CHECK-COUNT-6: vector.insert
// CHECK-NOT: vector.transpose
// CHECK: return
func.func @transposed_read(%m: memref<4x2xf32>) -> vector<2x4xf32> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %c0], %p {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<4x2xf32>, vector<2x4xf32>
  return %v : vector<2x4xf32>
}

// Vector math becomes inline polynomials (libm has no vector entry points a libc-only .so
// may call); scalar math keeps calling libm.
// CHECK-LABEL: func.func @vector_math
// CHECK-NOT: math.erf {{.*}} : vector
// CHECK-NOT: math.exp {{.*}} : vector
// CHECK-NOT: math.tanh {{.*}} : vector
// CHECK: math.erf %{{.*}} : f32
// CHECK: return
func.func @vector_math(%v: vector<8xf32>, %s: f32) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, f32) {
  %e = math.erf %v : vector<8xf32>
  %x = math.exp %v : vector<8xf32>
  %t = math.tanh %v : vector<8xf32>
  %r = math.erf %s : f32
  return %e, %x, %t, %r : vector<8xf32>, vector<8xf32>, vector<8xf32>, f32
}

// A vector power by a constant becomes multiplies (GELU's tanh form cubes its input).
// CHECK-LABEL: func.func @vector_cube
// CHECK-NOT: math.powf
// CHECK: %[[SQ:.*]] = arith.mulf %[[X:.*]], %[[X]] : vector<8xf32>
// CHECK: arith.mulf %[[X]], %[[SQ]] : vector<8xf32>
func.func @vector_cube(%v: vector<8xf32>) -> vector<8xf32> {
  %three = arith.constant dense<3.0> : vector<8xf32>
  %p = math.powf %v, %three : vector<8xf32>
  return %p : vector<8xf32>
}

// A read along a stride-2 dim (a stride-2 window of a pool or an im2col copy): one
// contiguous read of the 31 elements the 16 span, then every second one, instead of LLVM's
// element-by-element gather. The unit dims before it may be permuted.
// CHECK-LABEL: func @strided_read
// CHECK: %[[BASE:.*]], %{{.*}}, %{{.*}}:4, %{{.*}}:4 = memref.extract_strided_metadata %arg0
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%{{.*}}], sizes: [31], strides: [1]
// CHECK: vector.load %{{.*}} : memref<31xf32, strided<[1], offset: ?>>, vector<31xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]
// CHECK-NOT: vector.gather
func.func @strided_read(%m: memref<1x4x8x16xf32, strided<[1024, 256, 32, 2]>>, %i: index) -> vector<1x1x1x16xf32> {
  %c0 = arith.constant 0 : index
  %p = ub.poison : f32
  %v = vector.transfer_read %m[%c0, %i, %c0, %c0], %p {in_bounds = [true, true, true, true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>} : memref<1x4x8x16xf32, strided<[1024, 256, 32, 2]>>, vector<1x1x1x16xf32>
  return %v : vector<1x1x1x16xf32>
}
