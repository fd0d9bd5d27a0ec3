// RUN: infc-opt %s -infc-pack-matmul-panels -split-input-file -mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s
// RUN: infc-opt %s -infc-pack-matmul-panels -split-input-file | FileCheck %s --check-prefix=MM

// A batch of weights (Winograd's 16 positions, convert-infc-to-linalg): a matmul in a loop
// marked infc.weight_batch whose B is slice %xi [3, 40] of a constant [2, 3, 40], %xi the
// loop's index (B[b][k][n] = 1000b + 40k + n). Every matrix is packed at compile time:
// the full panels (16 wide at 256 bits) into one [2, 2, 3, 16] constant whose element
// [b][p][k][j] is B[b][k][16p + j], the 8 columns left into a [2, 1, 3, 8] one; in the
// loop, slice %xi of each is what the panel loop and the tail matmul read.
// CHECK-LABEL: func.func @weight_batch
// CHECK: scf.for %[[XI:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:[a-z0-9_]+]] = %{{.*}}) -> (tensor<2x64x40xf32>)
// CHECK-DAG: %[[P:.*]] = arith.constant dense<{{\[\[\[}}[0.000000e+00, 1.000000e+00, {{.*}}, 1.500000e+01], {{.*}}]]], {{\[\[}}[1.000000e+03, 1.001000e+03, {{.*}}> : tensor<2x2x3x16xf32>
// CHECK-DAG: %[[T:.*]] = arith.constant dense<{{\[\[\[}}[3.200000e+01, {{.*}}, 3.900000e+01], {{.*}}> : tensor<2x1x3x8xf32>
// CHECK-DAG: %[[PX:.*]] = tensor.extract_slice %[[P]][%[[XI]], 0, 0, 0] [1, 2, 3, 16] [1, 1, 1, 1] : tensor<2x2x3x16xf32> to tensor<2x3x16xf32>
// CHECK-DAG: %[[TX:.*]] = tensor.extract_slice %[[T]][%[[XI]], 0, 0, 0] [1, 1, 3, 8] [1, 1, 1, 1] : tensor<2x1x3x8xf32> to tensor<1x3x8xf32>
// CHECK: scf.for %[[I:[a-z0-9_]+]] = {{.*}} -> (tensor<64x40xf32>)
// CHECK: tensor.extract_slice %[[PX]][%[[I]], 0, 0] [1, 3, 16] [1, 1, 1] : tensor<2x3x16xf32> to tensor<3x16xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x3xf32>, tensor<3x16xf32>)
// CHECK: } {infc.parallel}
// CHECK: tensor.extract_slice %[[TX]][0, 0, 0] [1, 3, 8] [1, 1, 1] : tensor<1x3x8xf32> to tensor<3x8xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x3xf32>, tensor<3x8xf32>)
// CHECK: } {infc.weight_batch}
// No matmul against the unpacked [3, 40] slice is left in the loop:
// MM-LABEL: func.func @weight_batch
// MM-NOT: tensor<3x40xf32>) outs
// MM: } {infc.weight_batch}
func.func @weight_batch(%a: tensor<2x64x3xf32>) -> tensor<2x64x40xf32> {
  %w = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0], [80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0]], [[1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1005.0, 1006.0, 1007.0, 1008.0, 1009.0, 1010.0, 1011.0, 1012.0, 1013.0, 1014.0, 1015.0, 1016.0, 1017.0, 1018.0, 1019.0, 1020.0, 1021.0, 1022.0, 1023.0, 1024.0, 1025.0, 1026.0, 1027.0, 1028.0, 1029.0, 1030.0, 1031.0, 1032.0, 1033.0, 1034.0, 1035.0, 1036.0, 1037.0, 1038.0, 1039.0], [1040.0, 1041.0, 1042.0, 1043.0, 1044.0, 1045.0, 1046.0, 1047.0, 1048.0, 1049.0, 1050.0, 1051.0, 1052.0, 1053.0, 1054.0, 1055.0, 1056.0, 1057.0, 1058.0, 1059.0, 1060.0, 1061.0, 1062.0, 1063.0, 1064.0, 1065.0, 1066.0, 1067.0, 1068.0, 1069.0, 1070.0, 1071.0, 1072.0, 1073.0, 1074.0, 1075.0, 1076.0, 1077.0, 1078.0, 1079.0], [1080.0, 1081.0, 1082.0, 1083.0, 1084.0, 1085.0, 1086.0, 1087.0, 1088.0, 1089.0, 1090.0, 1091.0, 1092.0, 1093.0, 1094.0, 1095.0, 1096.0, 1097.0, 1098.0, 1099.0, 1100.0, 1101.0, 1102.0, 1103.0, 1104.0, 1105.0, 1106.0, 1107.0, 1108.0, 1109.0, 1110.0, 1111.0, 1112.0, 1113.0, 1114.0, 1115.0, 1116.0, 1117.0, 1118.0, 1119.0]]]> : tensor<2x3x40xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<2x64x40xf32>
  %r = scf.for %xi = %c0 to %c2 step %c1 iter_args(%out = %e) -> (tensor<2x64x40xf32>) {
    %ax = tensor.extract_slice %a[%xi, 0, 0] [1, 64, 3] [1, 1, 1] : tensor<2x64x3xf32> to tensor<64x3xf32>
    %wx = tensor.extract_slice %w[%xi, 0, 0] [1, 3, 40] [1, 1, 1] : tensor<2x3x40xf32> to tensor<3x40xf32>
    %slot = tensor.extract_slice %out[%xi, 0, 0] [1, 64, 40] [1, 1, 1] : tensor<2x64x40xf32> to tensor<64x40xf32>
    %init = linalg.fill ins(%zero : f32) outs(%slot : tensor<64x40xf32>) -> tensor<64x40xf32>
    %m = linalg.matmul ins(%ax, %wx : tensor<64x3xf32>, tensor<3x40xf32>) outs(%init : tensor<64x40xf32>) -> tensor<64x40xf32>
    %next = tensor.insert_slice %m into %out[%xi, 0, 0] [1, 64, 40] [1, 1, 1] : tensor<64x40xf32> into tensor<2x64x40xf32>
    scf.yield %next : tensor<2x64x40xf32>
  } {infc.weight_batch}
  return %r : tensor<2x64x40xf32>
}

// -----

// The same loop without the mark, and a marked one whose B slice is not at the loop's
// index: matmuls inside loops are not this pass's (B stays the slice of the raw constant).
// CHECK-LABEL: func.func @not_a_batch
// CHECK-NOT: tensor<2x2x3x16xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x3xf32>, tensor<3x40xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x3xf32>, tensor<3x40xf32>)
func.func @not_a_batch(%a: tensor<64x3xf32>) -> (tensor<64x40xf32>, tensor<64x40xf32>) {
  %w = arith.constant dense<[[[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0], [40.0, 41.0, 42.0, 43.0, 44.0, 45.0, 46.0, 47.0, 48.0, 49.0, 50.0, 51.0, 52.0, 53.0, 54.0, 55.0, 56.0, 57.0, 58.0, 59.0, 60.0, 61.0, 62.0, 63.0, 64.0, 65.0, 66.0, 67.0, 68.0, 69.0, 70.0, 71.0, 72.0, 73.0, 74.0, 75.0, 76.0, 77.0, 78.0, 79.0], [80.0, 81.0, 82.0, 83.0, 84.0, 85.0, 86.0, 87.0, 88.0, 89.0, 90.0, 91.0, 92.0, 93.0, 94.0, 95.0, 96.0, 97.0, 98.0, 99.0, 100.0, 101.0, 102.0, 103.0, 104.0, 105.0, 106.0, 107.0, 108.0, 109.0, 110.0, 111.0, 112.0, 113.0, 114.0, 115.0, 116.0, 117.0, 118.0, 119.0]], [[1000.0, 1001.0, 1002.0, 1003.0, 1004.0, 1005.0, 1006.0, 1007.0, 1008.0, 1009.0, 1010.0, 1011.0, 1012.0, 1013.0, 1014.0, 1015.0, 1016.0, 1017.0, 1018.0, 1019.0, 1020.0, 1021.0, 1022.0, 1023.0, 1024.0, 1025.0, 1026.0, 1027.0, 1028.0, 1029.0, 1030.0, 1031.0, 1032.0, 1033.0, 1034.0, 1035.0, 1036.0, 1037.0, 1038.0, 1039.0], [1040.0, 1041.0, 1042.0, 1043.0, 1044.0, 1045.0, 1046.0, 1047.0, 1048.0, 1049.0, 1050.0, 1051.0, 1052.0, 1053.0, 1054.0, 1055.0, 1056.0, 1057.0, 1058.0, 1059.0, 1060.0, 1061.0, 1062.0, 1063.0, 1064.0, 1065.0, 1066.0, 1067.0, 1068.0, 1069.0, 1070.0, 1071.0, 1072.0, 1073.0, 1074.0, 1075.0, 1076.0, 1077.0, 1078.0, 1079.0], [1080.0, 1081.0, 1082.0, 1083.0, 1084.0, 1085.0, 1086.0, 1087.0, 1088.0, 1089.0, 1090.0, 1091.0, 1092.0, 1093.0, 1094.0, 1095.0, 1096.0, 1097.0, 1098.0, 1099.0, 1100.0, 1101.0, 1102.0, 1103.0, 1104.0, 1105.0, 1106.0, 1107.0, 1108.0, 1109.0, 1110.0, 1111.0, 1112.0, 1113.0, 1114.0, 1115.0, 1116.0, 1117.0, 1118.0, 1119.0]]]> : tensor<2x3x40xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<64x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x40xf32>) -> tensor<64x40xf32>
  %r = scf.for %xi = %c0 to %c2 step %c1 iter_args(%out = %init) -> (tensor<64x40xf32>) {
    %wx = tensor.extract_slice %w[%xi, 0, 0] [1, 3, 40] [1, 1, 1] : tensor<2x3x40xf32> to tensor<3x40xf32>
    %m = linalg.matmul ins(%a, %wx : tensor<64x3xf32>, tensor<3x40xf32>) outs(%out : tensor<64x40xf32>) -> tensor<64x40xf32>
    scf.yield %m : tensor<64x40xf32>
  }
  %s = scf.for %xi = %c0 to %c2 step %c1 iter_args(%out = %init) -> (tensor<64x40xf32>) {
    %wx = tensor.extract_slice %w[%c1, 0, 0] [1, 3, 40] [1, 1, 1] : tensor<2x3x40xf32> to tensor<3x40xf32>
    %m = linalg.matmul ins(%a, %wx : tensor<64x3xf32>, tensor<3x40xf32>) outs(%out : tensor<64x40xf32>) -> tensor<64x40xf32>
    scf.yield %m : tensor<64x40xf32>
  } {infc.weight_batch}
  return %r, %s : tensor<64x40xf32>, tensor<64x40xf32>
}
