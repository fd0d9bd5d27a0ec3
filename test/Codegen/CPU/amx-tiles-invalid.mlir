// RUN: infc-opt %s -infc-amx-tiles -split-input-file -verify-diagnostics

// An infc.amx product whose rows are not whole 16-row tiles is refused (infc-vnni-matmul
// pads them; anything else is a bug upstream).
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @partial_rows(%a: memref<8x16x4xi8>, %b: memref<1x16x16x4xi8>, %c: memref<8x1x16xi32>) {
  // expected-error @+1 {{is not an AMX tile product (rows or K not whole tiles)}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<8x16x4xi8>, memref<1x16x16x4xi8>) outs(%c : memref<8x1x16xi32>) attrs = {infc.amx} {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %y : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %2, %acc : i32
    linalg.yield %3 : i32
  }
  return
}


// -----

// bf16: K of 16 values (32 bytes) is not a whole 64-byte step (infc-bf16-matmul pads K to 32).
#a = affine_map<(m, p, j, q, t) -> (m, q, t)>
#b = affine_map<(m, p, j, q, t) -> (p, q, j, t)>
#c = affine_map<(m, p, j, q, t) -> (m, p, j)>
func.func @partial_bf16_k(%a: memref<16x8x2xbf16>, %b: memref<1x8x16x2xbf16>, %c: memref<16x1x16xf32>) {
  // expected-error @+1 {{is not an AMX tile product (rows or K not whole tiles)}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%a, %b : memref<16x8x2xbf16>, memref<1x8x16x2xbf16>) outs(%c : memref<16x1x16xf32>) attrs = {infc.amx} {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %2, %acc : f32
    linalg.yield %3 : f32
  }
  return
}
