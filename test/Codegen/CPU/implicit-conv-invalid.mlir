// RUN: infc-opt %s -infc-implicit-conv=vector-bits=512 -split-input-file -verify-diagnostics

// Weights known only at run time cannot be packed at compile time: the lowering never marks
// such a convolution, and the pass refuses one that is marked.
#a = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @runtime_weights(%x: tensor<72x2xf32>, %w: tensor<9x2x64xf32>) -> tensor<48x64xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x64xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<48x64xf32>) -> tensor<48x64xf32>
  // expected-error @+1 {{infc.implicit_conv needs [KH, KW, Wp] or [KH, KW, Wp, S, OW], constant weights and a filled output}}
  %y = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<72x2xf32>, tensor<9x2x64xf32>) outs(%acc : tensor<48x64xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<48x64xf32>
  return %y : tensor<48x64xf32>
}

// -----

// F not a multiple of the register tile width (64 at 512 bits): the lowering only marks
// F = 64k, and the pass refuses other widths.
#a2 = affine_map<(d0, d1, d2, d3) -> (d0 + (d2 floordiv 3) * 8 + d2 mod 3, d3)>
#b2 = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
#c2 = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @odd_width(%x: tensor<72x2xf32>) -> tensor<48x80xf32> {
  %w = arith.constant dense<0.5> : tensor<9x2x80xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<48x80xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<48x80xf32>) -> tensor<48x80xf32>
  // expected-error @+1 {{infc.implicit_conv: F = 80 is not a multiple of the register tile width 64}}
  %y = linalg.generic {indexing_maps = [#a2, #b2, #c2], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x, %w : tensor<72x2xf32>, tensor<9x2x80xf32>) outs(%acc : tensor<48x80xf32>) attrs = {infc.implicit_conv = array<i64: 3, 3, 8>} {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %0 = arith.mulf %in, %in_w : f32
    %1 = arith.addf %out, %0 : f32
    linalg.yield %1 : f32
  } -> tensor<48x80xf32>
  return %y : tensor<48x80xf32>
}
