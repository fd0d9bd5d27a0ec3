// RUN: infc-opt %s -infc-pack-weights -split-input-file -verify-diagnostics | FileCheck %s

// Each constant the entry reads becomes a view into one weights argument (after the
// workspace), at 64-byte aligned offsets; a global read twice is stored once. Their bytes,
// in that layout, make the public constant @infc__weights.

// CHECK-LABEL: module attributes {infc.weights_bytes = 128 : i64}
// CHECK-NOT: memref.global "private"
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[WS:.*]]: memref<64xi8>, %[[W:.*]]: memref<128xi8> {infc.weights}, %[[OUT:.*]]: memref<4xf32>)
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[W]][%[[O0]]][] : memref<128xi8> to memref<4xf32>
// CHECK: %[[O1:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %[[W]][%[[O1]]][] : memref<128xi8> to memref<2xi16>
// CHECK: %[[O2:.*]] = arith.constant 0 : index
// CHECK: %[[A2:.*]] = memref.view %[[W]][%[[O2]]][] : memref<128xi8> to memref<4xf32>
// CHECK: linalg.add ins(%[[A]], %[[A2]] : memref<4xf32>, memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK: memref.global constant @infc__weights : memref<128xi8> = dense<"0x0000803F000000400000404000008040{{0+}}0100FFFF{{0+}}"> {alignment = 64 : i64}
memref.global "private" constant @a : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" constant @b : memref<2xi16> = dense<[1, -1]>
func.func @main(%ws: memref<64xi8>, %out: memref<4xf32>) {
  %a = memref.get_global @a : memref<4xf32>
  %b = memref.get_global @b : memref<2xi16>
  %a2 = memref.get_global @a : memref<4xf32>
  linalg.add ins(%a, %a2 : memref<4xf32>, memref<4xf32>) outs(%out : memref<4xf32>)
  return
}

// -----

// A model without constants still gets a (64-byte) weights argument: the runtime always
// passes one.
// CHECK-LABEL: module attributes {infc.weights_bytes = 64 : i64}
// CHECK: func.func @main(%{{.*}}: memref<64xi8>, %{{.*}}: memref<64xi8> {infc.weights}, %{{.*}}: memref<4xf32>)
// CHECK: memref.global constant @infc__weights : memref<64xi8> = dense<0>
func.func @main(%ws: memref<64xi8>, %out: memref<4xf32>) {
  return
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @main(%ws: memref<64xi8>, %out: memref<4xf32>) {
  // expected-error @+1 {{infc-pack-weights: @state is not a constant global with a dense value}}
  %s = memref.get_global @state : memref<4xf32>
  return
}
