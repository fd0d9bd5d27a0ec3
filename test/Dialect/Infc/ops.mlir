// RUN: infc-opt %s | infc-opt | FileCheck %s

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: infc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.relu %{{.*}} : tensor<2x3xf32>
  %1 = infc.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
