// RUN: infc-opt %s -infc-vectorize-elementwise | FileCheck %s
// RUN: infc-opt %s -infc-vectorize-elementwise=vector-bits=512 | FileCheck %s --check-prefix=AVX512
// RUN: infc-opt %s -infc-vectorize-elementwise=parallel-min-elements=1000000000 | FileCheck %s --check-prefix=SERIAL

// All-parallel: rows one at a time (the outer loop shared by threads: 128 x 3072 iterations
// reach parallel-min-elements), the innermost dim in 8-lane vectors (16 at 512 bits); the
// broadcast bias is read with a broadcasting transfer, the erf stays one vector op.
// CHECK-LABEL: func.func @bias_erf
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c3072 step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<1x8xf32>, vector<1x8xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<8xf32>, vector<1x8xf32>
// CHECK: arith.addf {{.*}} : vector<1x8xf32>
// CHECK: math.erf {{.*}} : vector<1x8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<1x8xf32>, tensor<1x8xf32>
// CHECK: } {infc.parallel}
// CHECK-NOT: linalg.generic
// AVX512-LABEL: func.func @bias_erf
// AVX512: math.erf {{.*}} : vector<1x16xf32>
// SERIAL-LABEL: func.func @bias_erf
// SERIAL-NOT: infc.parallel
// SERIAL-LABEL: func.func @peeled
func.func @bias_erf(%x: tensor<128x3072xf32>, %b: tensor<3072xf32>) -> tensor<128x3072xf32> {
  %e = tensor.empty() : tensor<128x3072xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<128x3072xf32>, tensor<3072xf32>) outs(%e : tensor<128x3072xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.erf %s : f32
    linalg.yield %t : f32
  } -> tensor<128x3072xf32>
  return %r : tensor<128x3072xf32>
}

// 20 = 2 x 8 + 4: the innermost loop is peeled into a static 4-lane tail; small ops stay
// on one thread.
// CHECK-LABEL: func.func @peeled
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c8
// CHECK: arith.negf {{.*}} : vector<1x8xf32>
// CHECK: arith.negf {{.*}} : vector<1x4xf32>
// CHECK-NOT: infc.parallel
// CHECK: return
func.func @peeled(%x: tensor<6x20xf32>) -> tensor<6x20xf32> {
  %e = tensor.empty() : tensor<6x20xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x20xf32>) outs(%e : tensor<6x20xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<6x20xf32>
  return %r : tensor<6x20xf32>
}

// A sum of exp over the innermost dim (softmax's denominator): per row, an 8-lane partial
// accumulator carried in a register through the loop over the row (starting from the
// reduction's neutral value, no tensor behind it: nothing is allocated per row), then one
// horizontal merge.
// CHECK-LABEL: func.func @row_sum_exp
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<1x8xf32>
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c1
// CHECK-NOT: tensor.empty
// CHECK: %[[ACC:.*]] = scf.for %{{.*}} = %c0 to %c96 step %c8 iter_args(%[[A:.*]] = %[[ZERO]]) -> (vector<1x8xf32>)
// CHECK: math.exp {{.*}} : vector<1x8xf32>
// CHECK: arith.addf {{.*}}, %[[A]] : vector<1x8xf32>
// CHECK: vector.multi_reduction <add>, %[[ACC]], {{.*}} [1] : vector<1x8xf32> to vector<1xf32>
func.func @row_sum_exp(%x: tensor<128x96xf32>) -> tensor<128xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<128xf32>) -> tensor<128xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<128x96xf32>) outs(%f : tensor<128xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    %s = arith.addf %t, %o : f32
    linalg.yield %s : f32
  } -> tensor<128xf32>
  return %r : tensor<128xf32>
}

// A reduction over an outer dim (sum over channels of [C, HW]): the reduction dim one step at
// a time, each step a vector add (a reduction over a unit dim) into the output row.
// CHECK-LABEL: func.func @column_sum
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c1
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c8
// CHECK: vector.multi_reduction <add>, {{.*}} [0] : vector<1x8xf32> to vector<8xf32>
func.func @column_sum(%x: tensor<32x64xf32>) -> tensor<64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<32x64xf32>) outs(%f : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// Contractions are left to the matmul passes; an im2col-style input map (not a projected
// permutation) fails the vectorizer's precondition and is left whole for the loop lowering.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK: linalg.matmul
// CHECK: linalg.generic
func.func @left_alone(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %x: tensor<18xf32>) -> (tensor<8x8xf32>, tensor<8x2xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %e2 = tensor.empty() : tensor<8x2xf32>
  %w = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 * 2 + d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<18xf32>) outs(%e2 : tensor<8x2xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<8x2xf32>
  return %m, %w : tensor<8x8xf32>, tensor<8x2xf32>
}

// Bool tensors are one byte per element in memory but packed bits as LLVM vectors of i1: an
// op that reads or writes one stays scalar.
// CHECK-LABEL: func.func @bool_result
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @bool_result(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xi1> {
  %e = tensor.empty() : tensor<4x64xi1>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4x64xf32>, tensor<4x64xf32>) outs(%e : tensor<4x64xi1>) {
  ^bb0(%a: f32, %b: f32, %o: i1):
    %c = arith.cmpf olt, %a, %b : f32
    linalg.yield %c : i1
  } -> tensor<4x64xi1>
  return %r : tensor<4x64xi1>
}

// The same for 4-bit integers (a byte each in memory, packed nibbles as an LLVM vector).
// CHECK-LABEL: func.func @int4_source
// CHECK-NOT: vector.
// CHECK: linalg.generic
func.func @int4_source(%x: tensor<4x64xi4>) -> tensor<4x64xf32> {
  %e = tensor.empty() : tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xi4>) outs(%e : tensor<4x64xf32>) {
  ^bb0(%a: i4, %o: f32):
    %c = arith.sitofp %a : i4 to f32
    linalg.yield %c : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A 7x7 map: the 7 rows alone would share out 4 : 3 over 2 threads, so the loop over the
// columns is marked too (infc-parallelize-loops merges the two into one over 49 pixels);
// the loop over the channels is not.
// AVX512-LABEL: func.func @few_rows
// AVX512: scf.for %{{.*}} = %c0 to %c7 step %c1
// AVX512: scf.for %{{.*}} = %c0 to %c7 step %c1
// AVX512: scf.for %{{.*}} = %c0 to %c960 step %c16
// AVX512: arith.maximumf {{.*}} : vector<1x1x1x16xf32>
// AVX512: scf.yield
// AVX512-NEXT: {{^ *}}}{{$}}
// AVX512-NEXT: scf.yield
// AVX512-NEXT: } {infc.parallel}
// AVX512-NEXT: scf.yield
// AVX512-NEXT: } {infc.parallel}
// AVX512-NEXT: return
func.func @few_rows(%x: tensor<1x7x7x960xf32>) -> tensor<1x7x7x960xf32> {
  %e = tensor.empty() : tensor<1x7x7x960xf32>
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x7x7x960xf32>) outs(%e : tensor<1x7x7x960xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.maximumf %a, %z : f32
    linalg.yield %n : f32
  } -> tensor<1x7x7x960xf32>
  return %r : tensor<1x7x7x960xf32>
}
