// RUN: infc-opt %s -infc-recognize-attention -split-input-file -verify-diagnostics | FileCheck %s

// A decoder layer as --decoder imports it (the past taken out): grouped-query attention
// (4 query heads, 2 KV heads), a scale, the causal mask anded with attention_mask. The
// region becomes infc.paged_attention; the presents and attention_mask leave the
// signature, and the module records the geometry.

// CHECK: module attributes {infc.decoder = {head_dim = 8 : i64, heads = 4 : i64, kv_heads = 2 : i64, layers = 1 : i64, max_positions = 0 : i64}}
// CHECK-LABEL: func @main
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x8xf32> {infc.name = "q"}, %[[K:.*]]: tensor<1x2x?x8xf32> {infc.name = "k"}, %[[V:.*]]: tensor<1x2x?x8xf32> {infc.name = "v"}) -> (tensor<1x4x?x8xf32> {infc.name = "out"})
// CHECK-NEXT: %[[A:.*]] = infc.paged_attention %[[Q]], %[[K]], %[[V]] {layer = 0 : i64, scale = 1.25{{0*}}e-01 : f64}
// CHECK-NEXT: return %[[A]] : tensor<1x4x?x8xf32>
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x4x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"}, %am: tensor<1x?xi64> {infc.name = "attention_mask"})
      -> (tensor<1x4x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %causal = infc.constant dense<[[[[true, false, false], [true, true, false], [true, true, true]]]]> : tensor<1x1x3x3xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0, 0, 0>, sizes = array<i64: 1, 1, -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xi1>) -> tensor<1x1x?x?xi1>
    %r = infc.reshape %am : tensor<1x?xi64> -> tensor<1x1x1x?xi64>
    %pad = infc.cast %r : tensor<1x1x1x?xi64> -> tensor<1x1x1x?xi1>
    %keep = infc.and %pad, %c : (tensor<1x1x1x?xi1>, tensor<1x1x?x?xi1>) -> tensor<1x1x?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-3.0e38> : tensor<f32>
    %mask = infc.where %keep, %zero, %neg : (tensor<1x1x?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<1x1x?x?xf32>
    %k5 = infc.reshape %k : tensor<1x2x?x8xf32> -> tensor<1x2x1x?x8xf32>
    %kb = infc.broadcast %k5 : tensor<1x2x1x?x8xf32> -> tensor<1x2x2x?x8xf32>
    %kr = infc.reshape %kb : tensor<1x2x2x?x8xf32> -> tensor<1x4x?x8xf32>
    %kt = infc.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x?x8xf32>) -> tensor<1x4x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x4x?x8xf32>, tensor<1x4x8x?xf32>) -> tensor<1x4x?x?xf32>
    %scale = infc.constant dense<0.125> : tensor<f32>
    %ss = infc.mul %s, %scale : (tensor<1x4x?x?xf32>, tensor<f32>) -> tensor<1x4x?x?xf32>
    %sm = infc.add %ss, %mask : (tensor<1x4x?x?xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x4x?x?xf32>
    %v5 = infc.reshape %v : tensor<1x2x?x8xf32> -> tensor<1x2x1x?x8xf32>
    %vb = infc.broadcast %v5 : tensor<1x2x1x?x8xf32> -> tensor<1x2x2x?x8xf32>
    %vr = infc.reshape %vb : tensor<1x2x2x?x8xf32> -> tensor<1x4x?x8xf32>
    %o = infc.matmul %p, %vr : (tensor<1x4x?x?xf32>, tensor<1x4x?x8xf32>) -> tensor<1x4x?x8xf32>
    return %o, %k, %v : tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// Multi-head attention (no repeat), the scale as a division, the causal mask alone; the
// queries read a 12-row table at position_ids: the model's positions end there.
// CHECK: module attributes {infc.decoder = {head_dim = 8 : i64, heads = 2 : i64, kv_heads = 2 : i64, layers = 1 : i64, max_positions = 12 : i64}}
// CHECK-LABEL: func @main
// CHECK: infc.paged_attention %{{.*}}, %{{.*}}, %{{.*}} {layer = 0 : i64, scale = 2.5{{0*}}e-01 : f64}
module attributes {infc.decoder} {
  func.func @main(%q0: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"}, %pos: tensor<1x?xi64> {infc.name = "position_ids"})
      -> (tensor<1x2x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.value"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.key"}) {
    %table = infc.constant dense<0.5> : tensor<12x8xf32>
    %rows = infc.gather %table, %pos {axis = 0 : i64} : (tensor<12x8xf32>, tensor<1x?xi64>) -> tensor<1x?x8xf32>
    %rows4 = infc.reshape %rows : tensor<1x?x8xf32> -> tensor<1x1x?x8xf32>
    %q = infc.add %q0, %rows4 : (tensor<1x2x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<1x2x?x8xf32>
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    %four = infc.constant dense<4.0> : tensor<f32>
    %ss = infc.div %s, %four : (tensor<1x2x?x?xf32>, tensor<f32>) -> tensor<1x2x?x?xf32>
    %sm = infc.add %mask, %ss : (tensor<?x?xf32>, tensor<1x2x?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    return %o, %v, %k : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// A mask that is not causal (here: upper triangular) is refused, never compiled as causal.
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x2x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %causal = infc.constant dense<[[true, true], [false, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    // expected-error @+1 {{--decoder: layer 0's attention: the scores must get the causal mask}}
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    return %o, %k, %v : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// A present read by something else besides the attention is refused.
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x2x?x8xf32> {infc.name = "present.0.key"}, tensor<1x2x?x8xf32> {infc.name = "present.0.value"},
          tensor<1x2x?x8xf32> {infc.name = "other"}) {
    // expected-error @+1 {{--decoder: layer 0's attention: the new keys and values must feed the attention alone}}
    %k = infc.neg %q : tensor<1x2x?x8xf32>
    %a = infc.abs %k : tensor<1x2x?x8xf32>
    %b = infc.exp %k : tensor<1x2x?x8xf32>
    %c = infc.add %a, %b : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    return %k, %v, %c : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// A tile-style repeat (query head i reads KV head i % kv_heads) is not the grouping the
// kernel computes (i / group), even where the sizes agree (2 KV heads, 2 each): refused.
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x4x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x4x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    // expected-error @+1 {{--decoder: layer 0's attention: the keys and values must be repeated alike, each KV head for as many consecutive query heads}}
    %k5 = infc.reshape %k : tensor<1x2x?x8xf32> -> tensor<1x1x2x?x8xf32>
    %kb = infc.broadcast %k5 : tensor<1x1x2x?x8xf32> -> tensor<1x2x2x?x8xf32>
    %kr = infc.reshape %kb : tensor<1x2x2x?x8xf32> -> tensor<1x4x?x8xf32>
    %kt = infc.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x?x8xf32>) -> tensor<1x4x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x4x?x8xf32>, tensor<1x4x8x?xf32>) -> tensor<1x4x?x?xf32>
    %p = infc.softmax %s {axis = 3 : i64} : tensor<1x4x?x?xf32>
    %v5 = infc.reshape %v : tensor<1x2x?x8xf32> -> tensor<1x1x2x?x8xf32>
    %vb = infc.broadcast %v5 : tensor<1x1x2x?x8xf32> -> tensor<1x2x2x?x8xf32>
    %vr = infc.reshape %vb : tensor<1x2x2x?x8xf32> -> tensor<1x4x?x8xf32>
    %o = infc.matmul %p, %vr : (tensor<1x4x?x?xf32>, tensor<1x4x?x8xf32>) -> tensor<1x4x?x8xf32>
    return %o, %k, %v : tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// A causal slice of a static size (the first row of the constant, broadcast) is not the
// step's causal mask: refused.
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x2x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: 2, 1>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<2x1xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<2x1xi1>, tensor<f32>, tensor<f32>) -> tensor<2x1xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    // expected-error @+1 {{--decoder: layer 0's attention: the scores must get the causal mask}}
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<2x1xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    return %o, %k, %v : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// attention_mask read by anything but the mask (here: also added to the output) is refused:
// the library's runs never pass it.
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"}, %am: tensor<1x?xi64> {infc.name = "attention_mask"})
      -> (tensor<1x2x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}, tensor<1x?xf32> {infc.name = "lengths"}) {
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    // expected-error @+1 {{--decoder: attention_mask is read outside the attention's causal mask}}
    %lengths = infc.cast %am : tensor<1x?xi64> -> tensor<1x?xf32>
    return %o, %k, %v, %lengths : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x?xf32>
  }
}

// -----

// position_ids gathering from a table sliced to the step's length (an export that slices
// RoPE's tables to the total length, which the import made the step's): refused, since
// every position past the step's tokens would be clamped.
module attributes {infc.decoder} {
  func.func @main(%q0: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"}, %pos: tensor<1x?xi64> {infc.name = "position_ids"})
      -> (tensor<1x2x?x8xf32> {infc.name = "out"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %table = infc.constant dense<0.5> : tensor<12x8xf32>
    %sliced = infc.slice %table {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, 8>, steps = array<i64: 1, 1>} : (tensor<12x8xf32>) -> tensor<?x8xf32>
    // expected-error @+1 {{--decoder: position_ids index a table that is not a constant}}
    %rows = infc.gather %sliced, %pos {axis = 0 : i64} : (tensor<?x8xf32>, tensor<1x?xi64>) -> tensor<1x?x8xf32>
    %rows4 = infc.reshape %rows : tensor<1x?x8xf32> -> tensor<1x1x?x8xf32>
    %q = infc.add %q0, %rows4 : (tensor<1x2x?x8xf32>, tensor<1x1x?x8xf32>) -> tensor<1x2x?x8xf32>
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    return %o, %k, %v : tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// The LM head: `logits` as the hidden rows times constant weights, and nothing else,
// becomes infc.decoder_logits (the rows the step uses only), and the runtime function it
// calls is declared beside the kernel.
// CHECK-LABEL: func @main
// CHECK: %[[A:.*]] = infc.paged_attention
// CHECK: %[[H:.*]] = infc.reshape %[[A]] : tensor<1x2x?x8xf32> -> tensor<1x?x16xf32>
// CHECK: %[[L:.*]] = infc.decoder_logits %[[H]], %{{.*}} : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
// CHECK-NEXT: return %[[L]] : tensor<1x?x10xf32>
// CHECK: func.func private @infc__paged_attention
// CHECK: func.func private @infc__llm_logit_rows(i64, i64, memref<1xf32>, memref<1xf32>) -> i64
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x?x10xf32> {infc.name = "logits"}, tensor<1x2x?x8xf32> {infc.name = "present.0.key"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    %h = infc.reshape %o : tensor<1x2x?x8xf32> -> tensor<1x?x16xf32>
    %w = infc.constant dense<0.5> : tensor<16x10xf32>
    %logits = infc.matmul %h, %w : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
    return %logits, %k, %v : tensor<1x?x10xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}

// -----

// An LM head whose product something else reads too (here: a scaled copy as a second
// output) stays a matmul: every row's logits, and no runtime function declared.
// CHECK-LABEL: func @main
// CHECK: %[[L:.*]] = infc.matmul %{{.*}}, %{{.*}} : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
// CHECK-NOT: infc.decoder_logits
// CHECK-NOT: infc__llm_logit_rows
module attributes {infc.decoder} {
  func.func @main(%q: tensor<1x2x?x8xf32> {infc.name = "q"}, %k: tensor<1x2x?x8xf32> {infc.name = "k"},
                  %v: tensor<1x2x?x8xf32> {infc.name = "v"})
      -> (tensor<1x?x10xf32> {infc.name = "logits"}, tensor<1x?x10xf32> {infc.name = "scaled"},
          tensor<1x2x?x8xf32> {infc.name = "present.0.key"}, tensor<1x2x?x8xf32> {infc.name = "present.0.value"}) {
    %causal = infc.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
    %c = infc.slice %causal {offsets = array<i64: 0, 0>, sizes = array<i64: -9223372036854775808, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<2x2xi1>) -> tensor<?x?xi1>
    %zero = infc.constant dense<0.0> : tensor<f32>
    %neg = infc.constant dense<-1.0e9> : tensor<f32>
    %mask = infc.where %c, %zero, %neg : (tensor<?x?xi1>, tensor<f32>, tensor<f32>) -> tensor<?x?xf32>
    %kt = infc.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
    %s = infc.matmul %q, %kt : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
    %sm = infc.add %s, %mask : (tensor<1x2x?x?xf32>, tensor<?x?xf32>) -> tensor<1x2x?x?xf32>
    %p = infc.softmax %sm {axis = 3 : i64} : tensor<1x2x?x?xf32>
    %o = infc.matmul %p, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
    %h = infc.reshape %o : tensor<1x2x?x8xf32> -> tensor<1x?x16xf32>
    %w = infc.constant dense<0.5> : tensor<16x10xf32>
    %logits = infc.matmul %h, %w : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
    %two = infc.constant dense<2.0> : tensor<f32>
    %scaled = infc.mul %logits, %two : (tensor<1x?x10xf32>, tensor<f32>) -> tensor<1x?x10xf32>
    return %logits, %scaled, %k, %v : tensor<1x?x10xf32>, tensor<1x?x10xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
  }
}
