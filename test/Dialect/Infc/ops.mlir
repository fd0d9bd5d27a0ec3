// RUN: infc-opt %s | infc-opt | FileCheck %s
// RUN: infc-opt %s -mlir-print-op-generic | infc-opt | FileCheck %s

// Round trip of every infc op in its custom assembly format.

// CHECK-LABEL: func @elementwise
func.func @elementwise(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  // CHECK: infc.add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = infc.add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.relu %{{.*}} : tensor<2x3xf32>
  %1 = infc.relu %0 : tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// CHECK-LABEL: func @constant_and_shape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
func.func @constant_and_shape(%x: tensor<2x3x4xf32>) -> (tensor<2x2xi64>, tensor<3xi64>, tensor<4xf32>) {
  // CHECK: infc.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
  %c = infc.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK: infc.constant dense<5.000000e-01> : tensor<4xf32>
  %s = infc.constant dense<0.5> : tensor<4xf32>
  // CHECK: infc.shape %[[X]] : tensor<2x3x4xf32> -> tensor<3xi64>
  %0 = infc.shape %x : tensor<2x3x4xf32> -> tensor<3xi64>
  return %c, %0, %s : tensor<2x2xi64>, tensor<3xi64>, tensor<4xf32>
}

// CHECK-LABEL: func @unary
func.func @unary(%a: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) {
  // CHECK: infc.neg %{{.*}} : tensor<4xf32>
  %0 = infc.neg %a : tensor<4xf32>
  // CHECK: infc.abs %{{.*}} : tensor<4xi32>
  %1 = infc.abs %i : tensor<4xi32>
  // CHECK: infc.sqrt %{{.*}} : tensor<4xf32>
  %2 = infc.sqrt %a : tensor<4xf32>
  // CHECK: infc.exp %{{.*}} : tensor<4xf32>
  %3 = infc.exp %a : tensor<4xf32>
  // CHECK: infc.log %{{.*}} : tensor<4xf32>
  %4 = infc.log %a : tensor<4xf32>
  // CHECK: infc.erf %{{.*}} : tensor<4xf32>
  %5 = infc.erf %a : tensor<4xf32>
  // CHECK: infc.tanh %{{.*}} : tensor<4xf32>
  %6 = infc.tanh %a : tensor<4xf32>
  // CHECK: infc.sigmoid %{{.*}} : tensor<4xf32>
  %7 = infc.sigmoid %a : tensor<4xf32>
  // CHECK: infc.relu %{{.*}} : tensor<4xf32>
  %8 = infc.relu %a : tensor<4xf32>
  // CHECK: infc.reciprocal %{{.*}} : tensor<4xf32>
  %9 = infc.reciprocal %a : tensor<4xf32>
  // CHECK: infc.floor %{{.*}} : tensor<4xf32>
  %10 = infc.floor %a : tensor<4xf32>
  // CHECK: infc.ceil %{{.*}} : tensor<4xf32>
  %11 = infc.ceil %a : tensor<4xf32>
  // CHECK: infc.not %{{.*}} : tensor<4xi1>
  %12 = infc.not %p : tensor<4xi1>
  // CHECK: infc.clip %{{.*}} {max = 6.000000e+00 : f64, min = 0.000000e+00 : f64} : tensor<4xf32>
  %13 = infc.clip %a {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  // CHECK: infc.leaky_relu %{{.*}} {alpha = 1.000000e-01 : f64} : tensor<4xf32>
  %14 = infc.leaky_relu %a {alpha = 0.1 : f64} : tensor<4xf32>
  // CHECK: infc.cast %{{.*}} : tensor<4xf32> -> tensor<4xi32>
  %15 = infc.cast %a : tensor<4xf32> -> tensor<4xi32>
  // CHECK: infc.cast %{{.*}} : tensor<4xi1> -> tensor<4xf16>
  %16 = infc.cast %p : tensor<4xi1> -> tensor<4xf16>
  return
}

// CHECK-LABEL: func @binary
func.func @binary(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %i: tensor<2x1xi64>, %j: tensor<1x4xi64>,
                  %p: tensor<2xi1>, %q: tensor<2xi1>) {
  // CHECK: infc.sub %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %0 = infc.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.mul %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = infc.mul %b, %a : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.div %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  %2 = infc.div %i, %j : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  // CHECK: infc.pow %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = infc.pow %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.max %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %4 = infc.max %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.min %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = infc.min %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.and %{{.*}}, %{{.*}} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %6 = infc.and %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK: infc.or %{{.*}}, %{{.*}} : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %7 = infc.or %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  // CHECK: infc.xor %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  %x = infc.xor %i, %j : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  // CHECK: infc.and %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  %y = infc.and %i, %j : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi64>
  // CHECK: infc.not %{{.*}} : tensor<2x1xi64>
  %z = infc.not %i : tensor<2x1xi64>
  // CHECK: infc.bitcast %{{.*}} : tensor<2x3xf32> -> tensor<2x3xui32>
  %w = infc.bitcast %a : tensor<2x3xf32> -> tensor<2x3xui32>
  // CHECK: infc.equal %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %8 = infc.equal %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: infc.less %{{.*}}, %{{.*}} : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi1>
  %9 = infc.less %i, %j : (tensor<2x1xi64>, tensor<1x4xi64>) -> tensor<2x4xi1>
  // CHECK: infc.greater %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %10 = infc.greater %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: infc.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = infc.where %8, %b, %a : (tensor<2x3xi1>, tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// CHECK-LABEL: func @linear
func.func @linear(%m: tensor<2x4x5xf32>, %n: tensor<5x6xf32>, %bm: tensor<1x5x6xf32>,
                  %x: tensor<1x4x8x8xf32>, %w: tensor<8x4x3x3xf32>, %bias: tensor<8xf32>,
                  %dw: tensor<4x1x3x3xf32>) {
  // CHECK: infc.matmul %{{.*}}, %{{.*}} : (tensor<2x4x5xf32>, tensor<5x6xf32>) -> tensor<2x4x6xf32>
  %0 = infc.matmul %m, %n : (tensor<2x4x5xf32>, tensor<5x6xf32>) -> tensor<2x4x6xf32>
  // CHECK: infc.matmul %{{.*}}, %{{.*}} : (tensor<2x4x5xf32>, tensor<1x5x6xf32>) -> tensor<2x4x6xf32>
  %1 = infc.matmul %m, %bm : (tensor<2x4x5xf32>, tensor<1x5x6xf32>) -> tensor<2x4x6xf32>
  // CHECK: infc.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %2 = infc.conv %x, %w, %bias {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, group = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  // Without a bias, strided and depthwise.
  // CHECK: infc.conv %{{[^,]*}}, %{{[^,]*}} {dilations = array<i64: 1, 1>, group = 4 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  %3 = infc.conv %x, %dw {strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x3x3xf32>
  return
}

// CHECK-LABEL: func @pooling
func.func @pooling(%x: tensor<1x4x8x8xf32>) {
  // CHECK: infc.max_pool %{{.*}} {ceil_mode = false, dilations = array<i64: 1, 1>, kernel = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %0 = infc.max_pool %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: infc.max_pool %{{.*}} {ceil_mode = true, {{.*}}kernel = array<i64: 3, 3>{{.*}}} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %1 = infc.max_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  // CHECK: infc.avg_pool %{{.*}} {ceil_mode = false, count_include_pad = false, dilations = array<i64: 1, 1>, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %2 = infc.avg_pool %x {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>, ceil_mode = false, count_include_pad = false} : (tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return
}

// CHECK-LABEL: func @reductions
func.func @reductions(%x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>, %s: tensor<4xf32>) {
  // CHECK: infc.reduce_sum %{{.*}} {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %0 = infc.reduce_sum %x {axes = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  // CHECK: infc.reduce_mean %{{.*}} {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = infc.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  // CHECK: infc.reduce_max %{{.*}} {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  %2 = infc.reduce_max %i {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>
  // CHECK: infc.reduce_min %{{.*}} {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  %3 = infc.reduce_min %x {axes = array<i64: 0, 1, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<f32>
  // CHECK: infc.reduce_prod %{{.*}} {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %4 = infc.reduce_prod %x {axes = array<i64: 2>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  // CHECK: infc.softmax %{{.*}} {axis = 2 : i64} : tensor<2x3x4xf32>
  %5 = infc.softmax %x {axis = 2 : i64} : tensor<2x3x4xf32>
  // CHECK: infc.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %6 = infc.layer_norm %x, %s, %s {axis = 2 : i64, epsilon = 9.9999997473787516E-6 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  // CHECK: infc.layer_norm %{{[^,]*}}, %{{[^,]*}} {axis = 2 : i64, epsilon = 1.000000e-05 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %7 = infc.layer_norm %x, %s {axis = 2 : i64, epsilon = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  return
}

// CHECK-LABEL: func @math_and_arg_reductions
func.func @math_and_arg_reductions(%a: tensor<4xf32>, %x: tensor<2x3x4xf32>, %i: tensor<2x3xi32>,
                                   %j: tensor<3xi32>) {
  // CHECK: infc.round %{{.*}} : tensor<4xf32>
  %0 = infc.round %a : tensor<4xf32>
  // CHECK: infc.sin %{{.*}} : tensor<4xf32>
  %1 = infc.sin %a : tensor<4xf32>
  // CHECK: infc.cos %{{.*}} : tensor<4xf32>
  %2 = infc.cos %a : tensor<4xf32>
  // CHECK: infc.tan %{{.*}} : tensor<4xf32>
  %3 = infc.tan %a : tensor<4xf32>
  // CHECK: infc.asin %{{.*}} : tensor<4xf32>
  %4 = infc.asin %a : tensor<4xf32>
  // CHECK: infc.acos %{{.*}} : tensor<4xf32>
  %5 = infc.acos %a : tensor<4xf32>
  // CHECK: infc.atan %{{.*}} : tensor<4xf32>
  %6 = infc.atan %a : tensor<4xf32>
  // CHECK: infc.sinh %{{.*}} : tensor<4xf32>
  %7 = infc.sinh %a : tensor<4xf32>
  // CHECK: infc.cosh %{{.*}} : tensor<4xf32>
  %8 = infc.cosh %a : tensor<4xf32>
  // CHECK: infc.asinh %{{.*}} : tensor<4xf32>
  %9 = infc.asinh %a : tensor<4xf32>
  // CHECK: infc.acosh %{{.*}} : tensor<4xf32>
  %10 = infc.acosh %a : tensor<4xf32>
  // CHECK: infc.atanh %{{.*}} : tensor<4xf32>
  %11 = infc.atanh %a : tensor<4xf32>
  // CHECK: infc.rem %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %12 = infc.rem %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: infc.shift_left %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %13 = infc.shift_left %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: infc.shift_right %{{.*}}, %{{.*}} : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  %14 = infc.shift_right %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
  // CHECK: infc.arg_max %{{.*}} {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  %15 = infc.arg_max %x {axis = 1 : i64, keepdims = true, select_last_index = false} : (tensor<2x3x4xf32>) -> tensor<2x1x4xi64>
  // CHECK: infc.arg_min %{{.*}} {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<3xi64>
  %16 = infc.arg_min %i {axis = 0 : i64, keepdims = false, select_last_index = true} : (tensor<2x3xi32>) -> tensor<3xi64>
  return
}

// CHECK-LABEL: func @data_movement
func.func @data_movement(%x: tensor<2x3xf32>, %v: tensor<3xf32>, %i: tensor<2x2xi64>, %j: tensor<i32>) {
  // CHECK: infc.reshape %{{.*}} : tensor<2x3xf32> -> tensor<3x1x2xf32>
  %0 = infc.reshape %x : tensor<2x3xf32> -> tensor<3x1x2xf32>
  // CHECK: infc.broadcast %{{.*}} : tensor<3xf32> -> tensor<4x2x3xf32>
  %1 = infc.broadcast %v : tensor<3xf32> -> tensor<4x2x3xf32>
  // CHECK: infc.transpose %{{.*}} {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %2 = infc.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  // CHECK: infc.concat %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  %3 = infc.concat %x, %x, %x {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x9xf32>
  // CHECK: infc.slice %{{.*}} {offsets = array<i64: 1, 2>, sizes = array<i64: 1, 3>, steps = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %4 = infc.slice %x {offsets = array<i64: 1, 2>, sizes = array<i64: 1, 3>, steps = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  // CHECK: infc.gather %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  %5 = infc.gather %x, %i {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2x2xf32>
  // CHECK: infc.gather %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<3xf32>
  %6 = infc.gather %x, %j {axis = 0 : i64} : (tensor<2x3xf32>, tensor<i32>) -> tensor<3xf32>
  return
}

// CHECK-LABEL: func @indexing
func.func @indexing(%x: tensor<2x3xf32>, %v: tensor<f32>, %i: tensor<1x3xi64>, %u: tensor<1x3xf32>) {
  // CHECK: infc.pad %{{.*}}, %{{.*}} {high = array<i64: 0, 2>, low = array<i64: 1, 0>, mode = "constant"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  %0 = infc.pad %x, %v {high = array<i64: 0, 2>, low = array<i64: 1, 0>, mode = "constant"} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  // CHECK: infc.pad %{{.*}} {high = array<i64: 1, 1>, low = array<i64: 1, 1>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  %1 = infc.pad %x {high = array<i64: 1, 1>, low = array<i64: 1, 1>, mode = "reflect"} : (tensor<2x3xf32>) -> tensor<4x5xf32>
  // CHECK: infc.cumsum %{{.*}} {axis = 1 : i64, exclusive = true, reverse = false} : tensor<2x3xf32>
  %2 = infc.cumsum %x {axis = 1 : i64, exclusive = true, reverse = false} : tensor<2x3xf32>
  // CHECK: infc.scatter %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %3 = infc.scatter %x, %i, %u {axis = 0 : i64, reduction = "add"} : (tensor<2x3xf32>, tensor<1x3xi64>, tensor<1x3xf32>) -> tensor<2x3xf32>
  // CHECK: infc.topk %{{.*}} {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<2x3xf32> -> tensor<2x2xf32>, tensor<2x2xi64>
  %4:2 = infc.topk %x {axis = 1 : i64, k = 2 : i64, largest = false} : tensor<2x3xf32> -> tensor<2x2xf32>, tensor<2x2xi64>
  return
}

// Unsigned integers (ONNX uint8..uint64) and the half floats are element types like any other.
// CHECK-LABEL: func @unsigned_and_half_types
func.func @unsigned_and_half_types(%a: tensor<2x3xui8>, %b: tensor<3xui64>, %h: tensor<3xf16>,
                                   %g: tensor<3xbf16>) {
  // CHECK: infc.add %{{.*}}, %{{.*}} : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  %0 = infc.add %a, %a : (tensor<2x3xui8>, tensor<2x3xui8>) -> tensor<2x3xui8>
  // CHECK: infc.less %{{.*}}, %{{.*}} : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xi1>
  %1 = infc.less %b, %b : (tensor<3xui64>, tensor<3xui64>) -> tensor<3xi1>
  // CHECK: infc.cast %{{.*}} : tensor<3xf16> -> tensor<3xbf16>
  %2 = infc.cast %h : tensor<3xf16> -> tensor<3xbf16>
  // CHECK: infc.constant dense<255> : tensor<3xui8>
  %3 = infc.constant dense<255> : tensor<3xui8>
  // CHECK: infc.reduce_sum %{{.*}} {axes = array<i64: 0>, keepdims = false} : (tensor<3xbf16>) -> tensor<bf16>
  %4 = infc.reduce_sum %g {axes = array<i64: 0>, keepdims = false} : (tensor<3xbf16>) -> tensor<bf16>
  return
}

// float8/float4 and int4/int2; cast's `saturate` prints only when false.
// CHECK-LABEL: func @small_types
func.func @small_types(%a: tensor<4xf32>, %b: tensor<4xi4>) {
  // CHECK: infc.cast %{{.*}} {saturate = false} : tensor<4xf32> -> tensor<4xf8E4M3FNUZ>
  %0 = infc.cast %a {saturate = false} : tensor<4xf32> -> tensor<4xf8E4M3FNUZ>
  // CHECK: infc.cast %{{.*}} : tensor<4xf32> -> tensor<4xf4E2M1FN>
  %1 = infc.cast %a {saturate = true} : tensor<4xf32> -> tensor<4xf4E2M1FN>
  // CHECK: infc.cast %{{.*}} : tensor<4xi4> -> tensor<4xui2>
  %2 = infc.cast %b : tensor<4xi4> -> tensor<4xui2>
  return
}

// CHECK-LABEL: func @quantization
func.func @quantization(%x: tensor<2x4xf32>, %s: tensor<f32>, %z: tensor<ui8>, %sa: tensor<4xf32>,
                        %sb: tensor<2x2xf32>, %q: tensor<2x4xi4>, %zb: tensor<2x2xi4>) {
  // CHECK: infc.quantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  %0 = infc.quantize %x, %s, %z {axis = 0 : i64, block_size = 0 : i64} : (tensor<2x4xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
  // CHECK: infc.quantize %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 0 : i64, saturate = false} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf8E4M3FN>
  %1 = infc.quantize %x, %sa {axis = 1 : i64, block_size = 0 : i64, saturate = false} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf8E4M3FN>
  // CHECK: infc.dequantize %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xf16>
  %2 = infc.dequantize %q, %sb, %zb {axis = 1 : i64, block_size = 2 : i64} : (tensor<2x4xi4>, tensor<2x2xf32>, tensor<2x2xi4>) -> tensor<2x4xf16>
  return
}

// CHECK-LABEL: func @cumprod
func.func @cumprod(%x: tensor<2x3xf32>) {
  // CHECK: infc.cumprod %{{.*}} {axis = 0 : i64, exclusive = false, reverse = true} : tensor<2x3xf32>
  %0 = infc.cumprod %x {axis = 0 : i64, exclusive = false, reverse = true} : tensor<2x3xf32>
  return
}

// A `?` slice size is the symbolic dim's run-time size (generic code's slice of a constant's
// first entries); a reshape of `?` dims keeps as many of them and the static product.
// CHECK-LABEL: func @symbolic_slice_and_reshape
// CHECK: infc.slice %{{.*}} {offsets = array<i64: 0, 0>, sizes = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, 1>}
// CHECK: infc.reshape %{{.*}} : tensor<1x?x6xf32> -> tensor<?x2x3xf32>
func.func @symbolic_slice_and_reshape(%c: tensor<1x8xi64>, %x: tensor<1x?x6xf32>) -> (tensor<1x?xi64>, tensor<?x2x3xf32>) {
  %0 = infc.slice %c {offsets = array<i64: 0, 0>, sizes = array<i64: 1, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<1x8xi64>) -> tensor<1x?xi64>
  %1 = infc.reshape %x : tensor<1x?x6xf32> -> tensor<?x2x3xf32>
  return %0, %1 : tensor<1x?xi64>, tensor<?x2x3xf32>
}

// CHECK-LABEL: func @decoder_logits
// CHECK: infc.decoder_logits %{{.*}}, %{{.*}} : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
func.func @decoder_logits(%h: tensor<1x?x16xf32>, %w: tensor<16x10xf32>) -> tensor<1x?x10xf32> {
  %0 = infc.decoder_logits %h, %w : (tensor<1x?x16xf32>, tensor<16x10xf32>) -> tensor<1x?x10xf32>
  return %0 : tensor<1x?x10xf32>
}

// CHECK-LABEL: func @paged_attention
// CHECK: infc.paged_attention %{{.*}}, %{{.*}}, %{{.*}} {layer = 3 : i64, scale = 1.250000e-01 : f64} : (tensor<1x9x?x64xf32>, tensor<1x3x?x64xf32>, tensor<1x3x?x64xf32>) -> tensor<1x9x?x64xf32>
func.func @paged_attention(%q: tensor<1x9x?x64xf32>, %k: tensor<1x3x?x64xf32>, %v: tensor<1x3x?x64xf32>) -> tensor<1x9x?x64xf32> {
  %0 = infc.paged_attention %q, %k, %v {layer = 3 : i64, scale = 0.125 : f64} : (tensor<1x9x?x64xf32>, tensor<1x3x?x64xf32>, tensor<1x3x?x64xf32>) -> tensor<1x9x?x64xf32>
  return %0 : tensor<1x9x?x64xf32>
}
