// RUN: infc-opt %s -convert-infc-to-linalg -canonicalize | FileCheck %s

// A decoder's runtime calls (docs/decoder-llm.md). infc.paged_attention: a call of the
// runtime's kernel on dense buffers of q, k, v and a fresh output, each passed as a view of
// one element (a bare pointer). infc.decoder_logits: the runtime packs the rows whose
// logits the step uses at the front of a copy of the hidden rows and returns their count;
// the row blocks of the LM head then run over that count only, into a result of every
// row's size (the rest left unset); their matmuls are marked infc.lm_head (for
// infc-weight-only-matmul).

// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x?x8xf32>, %[[K:.*]]: tensor<1x2x?x8xf32>, %[[V:.*]]: tensor<1x2x?x8xf32>)
// CHECK-DAG: %[[QB:.*]] = bufferization.to_buffer %[[Q]] read_only : tensor<1x4x?x8xf32> to memref<1x4x?x8xf32>
// CHECK-DAG: %[[KB:.*]] = bufferization.to_buffer %[[K]] read_only
// CHECK-DAG: %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only
// CHECK: %[[ROWS:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[OUT:.*]] = memref.alloc(%[[ROWS]]) : memref<1x4x?x8xf32>
// CHECK: %[[R64:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: call @infc__paged_attention(%c1_i32, %[[R64]], %c4_i32, %c2_i32, %c8_i32, %cst, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i32, i64, i32, i32, i32, f32, memref<1xf32>, memref<1xf32>, memref<1xf32>, memref<1xf32>) -> ()
// CHECK: %[[A:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[A]]
module {
  func.func @attention(%q: tensor<1x4x?x8xf32>, %k: tensor<1x2x?x8xf32>, %v: tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32> {
    %0 = infc.paged_attention %q, %k, %v {layer = 1 : i64, scale = 0.125 : f64} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x4x?x8xf32>
    return %0 : tensor<1x4x?x8xf32>
  }

  // CHECK-LABEL: func @logits
  // CHECK-SAME: (%[[H:.*]]: tensor<1x?x16xf32>) -> tensor<1x?x10xf32>
  // CHECK: %[[HB:.*]] = bufferization.to_buffer %[[H]] read_only : tensor<1x?x16xf32> to memref<1x?x16xf32>
  // CHECK: %[[T:.*]] = tensor.dim %[[H]], %c1
  // CHECK: %[[PACKED:.*]] = memref.alloc(%[[T]]) : memref<1x?x16xf32>
  // CHECK: %[[COUNT:.*]] = call @infc__llm_logit_rows(%{{.*}}, %c16_i64, %{{.*}}, %{{.*}}) : (i64, i64, memref<1xf32>, memref<1xf32>) -> i64
  // CHECK: %[[ROWS:.*]] = bufferization.to_tensor %[[PACKED]] restrict writable
  // CHECK: %[[A:.*]] = tensor.collapse_shape %[[ROWS]] {{\[}}[0, 1], [2]] : tensor<1x?x16xf32> into tensor<?x16xf32>
  // CHECK: %[[N:.*]] = arith.index_cast %[[COUNT]] : i64 to index
  // The blocks' bounds come from the count, not from the rows.
  // CHECK: arith.cmpi uge, %[[N]], %c24
  // CHECK: scf.for
  // CHECK: linalg.matmul {infc.lm_head} ins(%{{.*}}, %{{.*}} : tensor<24x16xf32>, tensor<16x10xf32>)
  // CHECK: } {infc.row_blocks}
  // CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [1, %{{.*}}, 10] : tensor<?x10xf32> into tensor<1x?x10xf32>
  func.func @logits(%h: tensor<1x?x16xf32>) -> tensor<1x?x10xf32> {
    %w = infc.constant dense<0.5> : tensor<16x10xf32>
    %0 = infc.decoder_logits %h, %w : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
    return %0 : tensor<1x?x10xf32>
  }

  func.func private @infc__paged_attention(i32, i64, i32, i32, i32, f32, memref<1xf32>, memref<1xf32>, memref<1xf32>, memref<1xf32>)
  func.func private @infc__llm_logit_rows(i64, i64, memref<1xf32>, memref<1xf32>) -> i64
}
