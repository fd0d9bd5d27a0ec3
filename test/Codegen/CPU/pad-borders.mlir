// RUN: infc-opt %s -infc-pad-borders -split-input-file | FileCheck %s

// An NHWC pad of one pixel: the input goes into the interior of an empty tensor, then the
// top and bottom rows (all columns) and the left and right columns (interior rows only)
// are filled, each border element once.
// CHECK-LABEL: func.func @nhwc_border
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x6x7x8xf32>
// CHECK: %[[IN:.*]] = tensor.insert_slice %arg0 into %[[E]][0, 1, 1, 0] [1, 4, 5, 8] [1, 1, 1, 1]
// CHECK: %[[TOP:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x7x8xf32>)
// CHECK: %[[R1:.*]] = tensor.insert_slice %[[TOP]] into %[[IN]][0, 0, 0, 0] [1, 1, 7, 8] [1, 1, 1, 1]
// CHECK: %[[BOT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x1x7x8xf32>)
// CHECK: %[[R2:.*]] = tensor.insert_slice %[[BOT]] into %[[R1]][0, 5, 0, 0] [1, 1, 7, 8] [1, 1, 1, 1]
// CHECK: %[[LEFT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x1x8xf32>)
// CHECK: %[[R3:.*]] = tensor.insert_slice %[[LEFT]] into %[[R2]][0, 1, 0, 0] [1, 4, 1, 8] [1, 1, 1, 1]
// CHECK: %[[RIGHT:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x1x8xf32>)
// CHECK: %[[R4:.*]] = tensor.insert_slice %[[RIGHT]] into %[[R3]][0, 1, 6, 0] [1, 4, 1, 8] [1, 1, 1, 1]
// CHECK-NOT: tensor.pad
// CHECK: return %[[R4]]
func.func @nhwc_border(%x: tensor<1x4x5x8xf32>) -> tensor<1x6x7x8xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x4x5x8xf32> to tensor<1x6x7x8xf32>
  return %p : tensor<1x6x7x8xf32>
}

// -----

// Padding on one side of one dim (a matmul's B widened to whole panels): one slab.
// CHECK-LABEL: func.func @one_side
// CHECK: tensor.insert_slice %arg0 into %{{.*}}[0, 0] [4, 40] [1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %{{.*}}[0, 40] [4, 8] [1, 1]
// CHECK-NOT: linalg.fill
func.func @one_side(%x: tensor<4x40xf32>) -> tensor<4x48xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0] high[0, 8] {
  ^bb0(%a: index, %b: index):
    tensor.yield %z : f32
  } : tensor<4x40xf32> to tensor<4x48xf32>
  return %p : tensor<4x48xf32>
}

// -----

// A pad whose value depends on the position stays a pad.
// CHECK-LABEL: func.func @not_constant
// CHECK: tensor.pad
func.func @not_constant(%x: tensor<4xi64>) -> tensor<6xi64> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%a: index):
    %v = arith.index_cast %a : index to i64
    tensor.yield %v : i64
  } : tensor<4xi64> to tensor<6xi64>
  return %p : tensor<6xi64>
}
