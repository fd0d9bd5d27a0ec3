// RUN: infc-opt %s -infc-depth-major-weights -split-input-file | FileCheck %s

// Bytes summed in i32 (the int8 tensor cores): the constant B [16][32] (K, N: N
// innermost) becomes [32][16], read at (n, k); its first row is B's first column
// (0, 32, 64, ...), the next its second (1, 33, ...).
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @bytes
// CHECK: %[[W:.*]] = arith.constant dense<"0x0020406080A0C0E00020406080A0C0E00121416181A1C1E1{{.*}}"> : tensor<32x16xi8>
// CHECK: linalg.generic {indexing_maps = [#{{[a-z0-9]+}}, #[[B]], #{{[a-z0-9]+}}]
// CHECK-SAME: ins(%{{.*}}, %[[W]] : tensor<32x16xi8>, tensor<32x16xi8>)
func.func @bytes(%x: tensor<32x16xi8>) -> tensor<32x32xi32> {
  %w = arith.constant dense<"0x000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9FA0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBFC0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDFE0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF"> : tensor<16x32xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<32x32xi32>
  %f = linalg.fill ins(%zero : i32) outs(%e : tensor<32x32xi32>) -> tensor<32x32xi32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<32x16xi8>, tensor<16x32xi8>) outs(%f : tensor<32x32xi32>) {
  ^bb0(%a: i8, %b: i8, %acc: i32):
    %ea = arith.extsi %a : i8 to i32
    %eb = arith.extsi %b : i8 to i32
    %p = arith.muli %ea, %eb : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  } -> tensor<32x32xi32>
  return %m : tensor<32x32xi32>
}

// -----

// f16 summed in f32, a batch matmul's constant B [2][48][64] (batch, K, N): [2][64][48],
// read at (b, n, k); a splat stays a splat. An input that is not a constant keeps its map.
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @f16_batch
// CHECK: %[[C:.*]] = arith.constant dense<1.500000e+00> : tensor<2x64x48xf16>
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[W]], #{{[a-z0-9]+}}]
// CHECK-SAME: ins(%{{.*}}, %[[C]] : tensor<2x40x48xf16>, tensor<2x64x48xf16>)
func.func @f16_batch(%x: tensor<2x40x48xf16>) -> tensor<2x40x64xf32> {
  %w = arith.constant dense<1.5> : tensor<2x48x64xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x64xf32>) -> tensor<2x40x64xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(b, i, j, k) -> (b, i, k)>, affine_map<(b, i, j, k) -> (b, k, j)>, affine_map<(b, i, j, k) -> (b, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<2x40x48xf16>, tensor<2x48x64xf16>) outs(%f : tensor<2x40x64xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ea = arith.extf %a : f16 to f32
    %eb = arith.extf %b : f16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x40x64xf32>
  return %m : tensor<2x40x64xf32>
}

// -----

// Left alone: f32 operands (the SIMT and TF32 kernels stage B [depth][tile], as it is),
// a conv filter (its reduction, channels x window, innermost already), a B that is not a
// constant.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: tensor<64x48xf32>
// CHECK-NOT: tensor<64x48xf16>
func.func @unchanged(%x: tensor<40x48xf32>, %y: tensor<40x48xf16>, %z: tensor<48x64xf16>,
                     %img: tensor<1x24x9x9xf16>) -> (tensor<40x64xf32>, tensor<40x64xf32>, tensor<1x40x7x7xf32>) {
  %w32 = arith.constant dense<1.5> : tensor<48x64xf32>
  %filter = arith.constant dense<1.5> : tensor<40x24x3x3xf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<40x64xf32>) -> tensor<40x64xf32>
  %m = linalg.matmul ins(%x, %w32 : tensor<40x48xf32>, tensor<48x64xf32>) outs(%f : tensor<40x64xf32>) -> tensor<40x64xf32>
  %n = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%y, %z : tensor<40x48xf16>, tensor<48x64xf16>) outs(%f : tensor<40x64xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ea = arith.extf %a : f16 to f32
    %eb = arith.extf %b : f16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<40x64xf32>
  %ce = tensor.empty() : tensor<1x40x7x7xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%ce : tensor<1x40x7x7xf32>) -> tensor<1x40x7x7xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(n, f, h, w, c, kh, kw) -> (n, c, h + kh, w + kw)>, affine_map<(n, f, h, w, c, kh, kw) -> (f, c, kh, kw)>, affine_map<(n, f, h, w, c, kh, kw) -> (n, f, h, w)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%img, %filter : tensor<1x24x9x9xf16>, tensor<40x24x3x3xf16>) outs(%cf : tensor<1x40x7x7xf32>) {
  ^bb0(%a: f16, %b: f16, %acc: f32):
    %ea = arith.extf %a : f16 to f32
    %eb = arith.extf %b : f16 to f32
    %p = arith.mulf %ea, %eb : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x40x7x7xf32>
  return %m, %n, %c : tensor<40x64xf32>, tensor<40x64xf32>, tensor<1x40x7x7xf32>
}
