// RUN: infc-opt %s --infc-pipeline="vector-bits=512" | FileCheck %s

// One tensor returned as two outputs (two graph outputs of one value): both become
// out-parameters; the first is computed in place, the second is a copy of it. (Without
// infc-unique-results, buffer-results-to-out-params would hoist the one alloc twice and
// crash.)
// CHECK-LABEL: llvm.func @main
// CHECK-SAME: (%{{.*}}: !llvm.ptr {infc.workspace}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.return
func.func @main(%a: tensor<16x16xf32>) -> (tensor<16x16xf32>, tensor<16x16xf32>) {
  %e = tensor.empty() : tensor<16x16xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<16x16xf32>) outs(%e : tensor<16x16xf32>) {
  ^bb0(%x: f32, %o: f32):
    %0 = arith.addf %x, %x : f32
    linalg.yield %0 : f32
  } -> tensor<16x16xf32>
  return %y, %y : tensor<16x16xf32>, tensor<16x16xf32>
}
