// RUN: infc-opt %s -infc-gpu-launch-to-loops -cse -split-input-file -verify-diagnostics | FileCheck %s

// The emulator: a launch becomes loops over blocks (z, y, x) then threads (z, y, x), the
// ids and sizes the loop counters and the launch's operands.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: memref<512xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %[[BX:.*]] = %[[C0]] to %[[C2]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[C1]] step %[[C1]] {
// CHECK: scf.for %[[TX:.*]] = %[[C0]] to %[[C256]] step %[[C1]] {
// CHECK: %[[B:.*]] = arith.muli %[[BX]], %[[C256]] : index
// CHECK: %[[I:.*]] = arith.addi %[[B]], %[[TX]] : index
// CHECK: memref.store %{{.*}}, %[[A]][%[[I]]]
// CHECK-NOT: gpu.
func.func @main(%a: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c256 = arith.constant 256 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %c1, %sz = %c1) {
    %b = arith.muli %bx, %sx : index
    %i = arith.addi %b, %tx : index
    memref.store %one, %a[%i] : memref<512xf32>
    gpu.terminator
  }
  return
}

// -----

// Barriers split the kernel: every thread stages its element into shared memory before any
// reads its neighbour's; in a loop with a barrier, the loop runs at block level and each
// piece between barriers over the threads. The thread's index (pure) is computed again
// after the barrier; private memory is the thread's slice of one buffer.
// CHECK-LABEL: func.func @barriers
// CHECK-SAME: (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SHARED:.*]] = memref.alloca() : memref<64xf32>
// CHECK: %[[PRIVATE:.*]] = memref.alloc(%{{.*}}) : memref<?x1xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[STEP:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T1:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK-NOT: memref.subview
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[T1]]]
// CHECK: memref.store %[[X]], %[[SHARED]][%[[T1]]]
// CHECK: }
// CHECK: }
// CHECK: }
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[T2:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK: %[[MINE:.*]] = memref.subview %[[PRIVATE]][%{{.*}}, 0] [1, 1] [1, 1]
// CHECK: %[[NEXT:.*]] = arith.addi %[[T2]], %[[C1]] : index
// CHECK: %[[WRAP:.*]] = arith.remui %[[NEXT]], %[[C64]] : index
// CHECK: %[[Y:.*]] = memref.load %[[SHARED]][%[[WRAP]]]
// CHECK: memref.store %[[Y]], %[[MINE]][%[[C0]]]
// CHECK: }
// CHECK: }
// CHECK: }
// CHECK: }
// CHECK: scf.for %[[T3:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK: %[[MINE3:.*]] = memref.subview %[[PRIVATE]][%{{.*}}, 0] [1, 1] [1, 1]
// CHECK: %[[Z:.*]] = memref.load %[[MINE3]][%[[C0]]]
// CHECK: memref.store %[[Z]], %[[B]][%[[T3]]]
// CHECK: memref.dealloc %[[PRIVATE]]
// CHECK-NOT: gpu.
func.func @barriers(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<64xf32, #gpu.address_space<workgroup>>)
             private(%mine : memref<1xf32, #gpu.address_space<private>>) {
    %next = arith.addi %tx, %c1 : index
    %wrap = arith.remui %next, %c64 : index
    scf.for %step = %c0 to %c4 step %c1 {
      %x = memref.load %a[%tx] : memref<64xf32>
      memref.store %x, %shared[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %y = memref.load %shared[%wrap] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %mine[%c0] : memref<1xf32, #gpu.address_space<private>>
      gpu.barrier
    }
    %z = memref.load %mine[%c0] : memref<1xf32, #gpu.address_space<private>>
    memref.store %z, %b[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A value loaded before a barrier cannot be recomputed after it.
func.func @crosses(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{infc-gpu-launch-to-loops: a value crosses a barrier}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32>
    gpu.barrier
    memref.store %x, %a[%c0] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A loop bound that differs between threads: a barrier in it could not be reached by all.
func.func @divergent_loop(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  // expected-error @+1 {{a thread id is used where all threads must agree}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    scf.for %i = %c0 to %tx step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A barrier under a condition.
func.func @conditional_barrier(%a: memref<64xf32>, %p: i1) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{infc-gpu-launch-to-loops: a barrier or shuffle inside 'scf.if'}}
    scf.if %p {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// A shuffle under a condition: the lanes that skip it would not leave their value.
func.func @conditional_shuffle(%a: memref<64xf32>, %p: i1) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %width = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32>
    // expected-error @+1 {{infc-gpu-launch-to-loops: a barrier or shuffle inside 'scf.if'}}
    scf.if %p {
      %s, %v = gpu.shuffle xor %x, %one, %width : f32
      memref.store %s, %a[%tx] : memref<64xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// Shuffles split the kernel as barriers do: each thread leaves the value it shares in a
// buffer (one a thread), then reads its source lane's: lane = thread mod 32, xor: lane ^ 1,
// down: lane + 16, where the source is outside the width its own (valid false). The
// shuffled value itself, used after the shuffle, is read back from the thread's element.
// CHECK-LABEL: func.func @shuffles
// CHECK-SAME: (%[[A:.*]]: memref<64xf32>, %[[B:.*]]: memref<64xf32>, %[[V:.*]]: memref<64xi1>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C1I:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[C16I:.*]] = arith.constant 16 : i32
// CHECK: %[[TS:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[XS:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.for %[[T0:.*]] = %{{.*}} to %[[C64]]
// CHECK: %[[I0:.*]] = arith.addi %{{.*}}, %[[T0]]
// CHECK: %[[X:.*]] = memref.load %[[A]][%[[T0]]]
// CHECK: memref.store %[[X]], %[[XS]][%[[I0]]]
// CHECK: scf.for %[[T1:.*]] = %{{.*}} to %[[C64]]
// CHECK: %[[I1:.*]] = arith.addi %{{.*}}, %[[T1]]
// CHECK: %[[MINE:.*]] = memref.load %[[XS]][%[[I1]]]
// CHECK: %[[OFF:.*]] = arith.index_cast %[[C1I]]
// CHECK: %[[WIDTH:.*]] = arith.index_cast
// CHECK: %[[LANE:.*]] = arith.remui %[[I1]], %c32
// CHECK: %[[WARP:.*]] = arith.subi %[[I1]], %[[LANE]]
// CHECK: %[[SRC:.*]] = arith.xori %[[LANE]], %[[OFF]]
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[SRC]], %[[WIDTH]]
// CHECK: %[[L:.*]] = arith.select %[[OK]], %[[SRC]], %[[LANE]]
// CHECK: %[[FROM:.*]] = arith.addi %[[WARP]], %[[L]]
// CHECK: %[[OTHER:.*]] = memref.load %[[XS]][%[[FROM]]]
// CHECK: %[[T:.*]] = arith.addf %[[MINE]], %[[OTHER]]
// CHECK: memref.store %[[T]], %[[TS]][%[[I1]]]
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %[[C64]]
// CHECK: %[[DOFF:.*]] = arith.index_cast %[[C16I]]
// CHECK: %[[DOWN:.*]] = arith.addi %{{.*}}, %[[DOFF]]
// CHECK: %[[OK2:.*]] = arith.cmpi ult, %[[DOWN]], %{{.*}}
// CHECK: arith.select %[[OK2]], %[[DOWN]]
// CHECK: %[[S:.*]] = memref.load %[[TS]][%{{.*}}]
// CHECK: memref.store %[[S]], %[[B]][%[[T2]]]
// CHECK: memref.store %[[OK2]], %[[V]][%[[T2]]]
// CHECK-NOT: gpu.
// CHECK: memref.dealloc
// CHECK: memref.dealloc
func.func @shuffles(%a: memref<64xf32>, %b: memref<64xf32>, %valid: memref<64xi1>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1 : i32
  %sixteen = arith.constant 16 : i32
  %width = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<64xf32>
    %s, %v = gpu.shuffle xor %x, %one, %width : f32
    %t = arith.addf %x, %s : f32
    %d, %dv = gpu.shuffle down %t, %sixteen, %width : f32
    memref.store %d, %b[%tx] : memref<64xf32>
    memref.store %dv, %valid[%tx] : memref<64xi1>
    gpu.terminator
  }
  return
}

// -----

// A loop value shuffled in its loop: the lanes read a copy made at the shuffle, since the
// loop's own buffer takes each thread's next value in the same piece.
// CHECK-LABEL: func.func @loop_shuffle
// CHECK: %[[COPY:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: %[[LOOPVALUE:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4
// CHECK: %[[P:.*]] = memref.load %[[LOOPVALUE]][%[[T:.*]]]
// CHECK-NEXT: memref.store %[[P]], %[[COPY]][%[[T]]]
// CHECK: %[[MINE:.*]] = memref.load %[[LOOPVALUE]][%[[T2:.*]]]
// CHECK: %[[OTHER:.*]] = memref.load %[[COPY]][%{{.*}}]
// CHECK: %[[NEXT:.*]] = arith.addf %[[MINE]], %[[OTHER]]
// CHECK: memref.store %[[NEXT]], %[[LOOPVALUE]][%[[T2]]]
func.func @loop_shuffle(%a: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %off = arith.constant 16 : i32
  %w = arith.constant 32 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xf32>
    %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%p = %x) -> (f32) {
      %s, %v = gpu.shuffle xor %p, %off, %w : f32
      %q = arith.addf %p, %s : f32
      scf.yield %q : f32
    }
    memref.store %r, %a[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// An mma.sync (m16n8k8 TF32) splits the kernel too: each thread leaves its A, B and C
// fragments in buffers (one a thread); then lane 0 of each warp gathers the warp's whole
// A [16][8] and B [8][8] from the 32 lanes (nvgpu's layout: affine maps of lane and value)
// for all its lanes, and each computes its 4 elements of C + A B^T: a row of A times a row
// of B^T, the operands' low 13 bits cleared (TF32), summed onto C.
// CHECK-LABEL: func.func @mma_sync
// CHECK: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[WHOLEB:.*]] = memref.alloc() : memref<8x8xf32>
// CHECK: %[[WHOLEA:.*]] = memref.alloc() : memref<16x8xf32>
// CHECK: scf.for %[[T0:.*]] =
// CHECK: vector.transfer_write %{{.*}} : vector<4x1xf32>, memref<?x4x1xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<2x1xf32>, memref<?x2x1xf32>
// CHECK: scf.for %[[T1:.*]] =
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %[[C32]]
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %{{.*}}
// CHECK: scf.if %[[FIRST]] {
// CHECK: scf.for %[[SRC:.*]] = %{{.*}} to %[[C32]]
// CHECK: affine.apply #{{.*}}(%[[SRC]], %{{.*}})
// CHECK: memref.store %{{.*}}, %[[WHOLEA]]
// CHECK: memref.store %{{.*}}, %[[WHOLEB]]
// CHECK: }
// CHECK: %[[ROWA:.*]] = vector.transfer_read %[[WHOLEA]][%{{.*}}, %{{.*}}], %{{.*}} : memref<16x8xf32>, vector<8xf32>
// CHECK: arith.andi %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: %[[ROWB:.*]] = vector.transfer_read %[[WHOLEB]][%{{.*}}, %{{.*}}], %{{.*}} : memref<8x8xf32>, vector<8xf32>
// CHECK: arith.andi %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: %[[PRODUCTS:.*]] = arith.mulf
// CHECK: %[[SUM:.*]] = vector.reduction <add>, %[[PRODUCTS]], %{{.*}} : vector<8xf32> into f32
// CHECK: vector.from_elements %[[SUM]], %{{.*}}, %{{.*}}, %{{.*}} : vector<2x2xf32>
// CHECK-NOT: nvgpu.
func.func @mma_sync(%a: memref<32xf32>, %out: memref<32x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<2x2xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xf32>
    %fa = vector.broadcast %x : f32 to vector<4x1xf32>
    %fb = vector.broadcast %x : f32 to vector<2x1xf32>
    %d = nvgpu.mma.sync(%fa, %fb, %zero) {mmaShape = [16, 8, 8], tf32Enabled} : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
    vector.transfer_write %d, %out[%tx, %c0, %c0] {in_bounds = [true, true]} : vector<2x2xf32>, memref<32x2x2xf32>
    gpu.terminator
  }
  return
}

// -----

// An mma.sync of f16 summed in f16: not one the emulator knows.
func.func @mma_sync_f16_sums(%a: memref<32xf16>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<2x2xf16>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xf16>
    %fa = vector.broadcast %x : f16 to vector<4x2xf16>
    %fb = vector.broadcast %x : f16 to vector<2x2xf16>
    // expected-error @+1 {{infc-gpu-launch-to-loops: an mma.sync other than TF32 or f16 operands summed in f32}}
    %d = nvgpu.mma.sync(%fa, %fb, %zero) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
    gpu.terminator
  }
  return
}

// -----

// nvvm.mma.sync m16n8k16 bf16 (nvgpu's has no bf16): the registers are i32 pairs of bf16
// (the first element in the low half), each lane's in a buffer of one a thread. Two
// independent mma.syncs in a row share one piece and, as they read the same A, one gather
// of it; the result struct is rebuilt for its llvm.extractvalue users.
// CHECK-LABEL: func.func @nvvm_mma_sync
// (The scratch buffers are allocated before the loops, the latest first.)
// CHECK: %[[WHOLEB2:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK: %[[WHOLEB:.*]] = memref.alloc() : memref<8x16xbf16>
// CHECK: %[[WHOLEA:.*]] = memref.alloc() : memref<16x16xbf16>
// CHECK: scf.if
// CHECK: scf.for
// CHECK: %[[WORD:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: %[[LOW:.*]] = arith.trunci %[[WORD]] : i32 to i16
// CHECK: arith.bitcast %[[LOW]] : i16 to bf16
// CHECK: %[[HIGH:.*]] = arith.shrui %{{.*}}, %c16_i32 : i32
// CHECK: arith.trunci %[[HIGH]] : i32 to i16
// CHECK: memref.store %{{.*}}, %[[WHOLEA]]
// CHECK: memref.store %{{.*}}, %[[WHOLEB]]
// CHECK: arith.extf %{{.*}} : vector<16xbf16> to vector<16xf32>
// CHECK: vector.reduction <add>
// CHECK: llvm.mlir.undef : !llvm.struct<(f32, f32, f32, f32)>
// CHECK: llvm.insertvalue
// CHECK: scf.if
// CHECK-NOT: memref.store %{{.*}}, %[[WHOLEA]]
// CHECK: memref.store %{{.*}}, %[[WHOLEB2]]
// CHECK: }
// CHECK: vector.reduction <add>
// CHECK: llvm.extractvalue
// CHECK-NOT: nvvm.
func.func @nvvm_mma_sync(%a: memref<32xi32>, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xi32>
    %y = arith.addi %x, %x : i32
    %d = nvvm.mma.sync A[%x, %x, %x, %x] B[%x, %x] C[%zero, %zero, %zero, %zero]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %e = nvvm.mma.sync A[%x, %x, %x, %x] B[%y, %y] C[%zero, %zero, %zero, %zero]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    %e3 = llvm.extractvalue %e[3] : !llvm.struct<(f32, f32, f32, f32)>
    %s = arith.addf %d0, %e3 : f32
    memref.store %s, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// nvvm.mma.sync m16n8k16 f16: each register a vector<2xf16>, in a buffer [threads][2].
// CHECK-LABEL: func.func @nvvm_mma_sync_f16
// CHECK: %[[WHOLEB:.*]] = memref.alloc() : memref<8x16xf16>
// CHECK: %[[WHOLEA:.*]] = memref.alloc() : memref<16x16xf16>
// CHECK: %[[REGS:.*]] = memref.alloc(%{{.*}}) : memref<?x2xf16>
// CHECK: vector.transfer_write %{{.*}}, %[[REGS]]
// CHECK: scf.if
// CHECK: %[[LOW:.*]] = memref.load %[[REGS]][%{{.*}}, %c0] : memref<?x2xf16>
// CHECK: memref.store %[[LOW]], %[[WHOLEA]]
// CHECK: %[[HIGH:.*]] = memref.load %[[REGS]][%{{.*}}, %c1] : memref<?x2xf16>
// CHECK: memref.store %[[HIGH]], %[[WHOLEA]]
// CHECK: memref.store %{{.*}}, %[[WHOLEB]]
// CHECK: vector.transfer_read %[[WHOLEA]]{{.*}} : memref<16x16xf16>, vector<16xf16>
// CHECK: arith.extf %{{.*}} : vector<16xf16> to vector<16xf32>
// CHECK: vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: nvvm.
func.func @nvvm_mma_sync_f16(%a: memref<32x2xf16>, %out: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = vector.load %a[%tx, %c0] : memref<32x2xf16>, vector<2xf16>
    %d = nvvm.mma.sync A[%v, %v, %v, %v] B[%v, %v] C[%zero, %zero, %zero, %zero]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    memref.store %d0, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// nvvm.mma.sync m16n8k32 of bytes: each i32 register holds 4 (the first in the low byte),
// gathered as signless i8 and widened as each side's PTX type says (A s8: extsi, B u8:
// extui); the sums are i32.
// CHECK-LABEL: func.func @nvvm_mma_sync_bytes
// CHECK: %[[WHOLEB:.*]] = memref.alloc() : memref<8x32xi8>
// CHECK: %[[WHOLEA:.*]] = memref.alloc() : memref<16x32xi8>
// CHECK: scf.if
// CHECK: %[[WORD:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: %[[BYTE0:.*]] = arith.trunci %[[WORD]] : i32 to i8
// CHECK: memref.store %[[BYTE0]], %[[WHOLEA]]
// CHECK: arith.shrui %{{.*}}, %c8_i32 : i32
// CHECK: arith.shrui %{{.*}}, %c16_i32 : i32
// CHECK: arith.shrui %{{.*}}, %c24_i32 : i32
// CHECK: memref.store %{{.*}}, %[[WHOLEB]]
// CHECK: %[[X:.*]] = vector.transfer_read %[[WHOLEA]]{{.*}} : memref<16x32xi8>, vector<32xi8>
// CHECK: %[[XW:.*]] = arith.extsi %[[X]] : vector<32xi8> to vector<32xi32>
// CHECK: %[[Y:.*]] = vector.transfer_read %[[WHOLEB]]{{.*}} : memref<8x32xi8>, vector<32xi8>
// CHECK: %[[YW:.*]] = arith.extui %[[Y]] : vector<32xi8> to vector<32xi32>
// CHECK: %[[P:.*]] = arith.muli %[[XW]], %[[YW]] : vector<32xi32>
// CHECK: vector.reduction <add>, %[[P]], %{{.*}} : vector<32xi32> into i32
// CHECK: llvm.mlir.undef : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: nvvm.
func.func @nvvm_mma_sync_bytes(%a: memref<32xi32>, %out: memref<32xi32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xi32>
    %d = nvvm.mma.sync A[%x, %x, %x, %x] B[%x, %x] C[%zero, %zero, %zero, %zero]
      {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>,
       layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<u8>,
       shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
    %d0 = llvm.extractvalue %d[0] : !llvm.struct<(i32, i32, i32, i32)>
    memref.store %d0, %out[%tx] : memref<32xi32>
    gpu.terminator
  }
  return
}

// -----

// An nvvm.mma.sync the emulator does not know (f16 sums, two vector<2xf16> registers).
func.func @nvvm_mma_sync_f16_sums(%a: memref<32x2xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %v = vector.load %a[%tx, %c0] : memref<32x2xf16>, vector<2xf16>
    // expected-error @+1 {{infc-gpu-launch-to-loops: an nvvm.mma.sync other than row.col m16n8k16 of f16 or bf16 summed in f32 or m16n8k32 of bytes summed in i32}}
    %d = nvvm.mma.sync A[%v, %v, %v, %v] B[%v, %v] C[%v, %v]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
    gpu.terminator
  }
  return
}

// -----

// nvgpu.ldmatrix x4: lane l's register r is 2 halves at column 2 (l % 4) of the row lane
// 8 r + l / 4 points at, that lane's indices computed again from its thread id (the
// shared memory was written before the barrier: no piece of its own).
// CHECK-LABEL: func.func @ldmatrix
// CHECK: memref.store %{{.*}} : memref<16x16xf16>
// CHECK: %[[LANE:.*]] = arith.remui %[[T:.*]], %c32 : index
// CHECK: %[[WARP:.*]] = arith.subi %[[T]], %[[LANE]] : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK: %[[QUAD:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[COLUMN:.*]] = arith.muli %[[QUAD]], %c2 : index
// CHECK: %[[SOURCE:.*]] = arith.addi %[[WARP]], %{{.*}} : index
// CHECK: %[[SX:.*]] = arith.remui %[[SOURCE]], %c32 : index
// CHECK: %[[SROW:.*]] = arith.remui %[[SX]], %c16 : index
// CHECK: %[[SHALF:.*]] = arith.divui %[[SX]], %c16 : index
// CHECK: %[[SCOL:.*]] = arith.muli %[[SHALF]], %c8 : index
// CHECK: %[[AT:.*]] = arith.addi %[[SCOL]], %[[COLUMN]] : index
// CHECK: %[[R0:.*]] = vector.transfer_read %{{.*}}[%[[SROW]], %[[AT]]]{{.*}} : memref<16x16xf16>, vector<2xf16>
// CHECK: vector.insert %[[R0]], %{{.*}} [0] : vector<2xf16> into vector<4x2xf16>
// CHECK-COUNT-3: vector.insert
// CHECK-NOT: nvgpu.
func.func @ldmatrix(%a: memref<16x16xf16>, %out: memref<32x4x2xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16x16xf16, #gpu.address_space<workgroup>>) {
    %row = arith.remui %tx, %c16 : index
    %half = arith.divui %tx, %c16 : index
    %col = arith.muli %half, %c8 : index
    %v = memref.load %a[%row, %col] : memref<16x16xf16>
    memref.store %v, %tile[%row, %col] : memref<16x16xf16, #gpu.address_space<workgroup>>
    gpu.barrier
    %m = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = false}
      : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    vector.store %m, %out[%tx, %c0, %c0] : memref<32x4x2xf16>, vector<4x2xf16>
    gpu.terminator
  }
  return
}

// -----

// nvgpu.ldmatrix x4 transposed: lane l's register r is matrix r's column l / 4, elements
// 2 (l % 4) and 2 (l % 4) + 1: element l / 4 of the rows lanes 8 r + 2 (l % 4) and the
// next point at, each lane's indices computed again from its thread id.
// CHECK-LABEL: func.func @ldmatrix_transposed
// CHECK: %[[LANE:.*]] = arith.remui %[[T:.*]], %c32 : index
// CHECK: %[[WARP:.*]] = arith.subi %[[T]], %[[LANE]] : index
// CHECK: %[[GROUP:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK: %[[QUAD:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[COLUMN:.*]] = arith.muli %[[QUAD]], %c2 : index
// CHECK: %[[SOURCE0:.*]] = arith.addi %[[WARP]], %[[COLUMN]] : index
// CHECK: %[[SX0:.*]] = arith.remui %[[SOURCE0]], %c32 : index
// CHECK: %[[SROW0:.*]] = arith.remui %[[SX0]], %c16 : index
// CHECK: %[[SCOL0:.*]] = arith.muli %{{.*}}, %c8 : index
// CHECK: %[[AT0:.*]] = arith.addi %[[SCOL0]], %[[GROUP]] : index
// CHECK: %[[E0:.*]] = memref.load %{{.*}}[%[[SROW0]], %[[AT0]]] : memref<16x16xf16>
// CHECK: vector.insert %[[E0]], %{{.*}} [0, 0] : f16 into vector<4x2xf16>
// CHECK: %[[NEXT:.*]] = arith.addi %[[COLUMN]], %c1 : index
// CHECK: arith.addi %[[WARP]], %[[NEXT]] : index
// CHECK: %[[E1:.*]] = memref.load
// CHECK: vector.insert %[[E1]], %{{.*}} [0, 1] : f16 into vector<4x2xf16>
// CHECK-COUNT-6: vector.insert
// CHECK-NOT: nvgpu.
func.func @ldmatrix_transposed(%a: memref<16x16xf16>, %out: memref<32x4x2xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16x16xf16, #gpu.address_space<workgroup>>) {
    %row = arith.remui %tx, %c16 : index
    %half = arith.divui %tx, %c16 : index
    %col = arith.muli %half, %c8 : index
    %v = memref.load %a[%row, %col] : memref<16x16xf16>
    memref.store %v, %tile[%row, %col] : memref<16x16xf16, #gpu.address_space<workgroup>>
    gpu.barrier
    %m = nvgpu.ldmatrix %tile[%row, %col] {numTiles = 4 : i32, transpose = true}
      : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
    vector.store %m, %out[%tx, %c0, %c0] : memref<32x4x2xf16>, vector<4x2xf16>
    gpu.terminator
  }
  return
}

// -----

// A kernel's vector loads and stores promise the GPU buffers' alignment; on the CPU the
// caller's host memory need not have it, so the emulator drops the promise and asserts
// what the GPU relies on instead: the element's offset from its buffer's start (offset +
// index x stride) a multiple of 16 bytes.
// CHECK-LABEL: func.func @vector_alignment
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}, %[[STRIDE:.*]] = memref.extract_strided_metadata %{{.*}} : memref<128xf32>
// CHECK: %[[SCALED:.*]] = arith.muli %[[I:.*]], %[[STRIDE]] : index
// CHECK: %[[AT:.*]] = arith.addi %[[OFFSET]], %[[SCALED]] : index
// CHECK: %[[REM:.*]] = arith.remui %[[AT]], %c4 : index
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[REM]], %c0 : index
// CHECK: cf.assert %[[OK]], "infc-gpu-launch-to-loops: a misaligned vector load or store"
// CHECK: vector.load %{{.*}}[%[[I]]] : memref<128xf32>, vector<4xf32>
// CHECK: cf.assert
// CHECK: vector.store %{{.*}} : memref<128xf32>, vector<4xf32>
func.func @vector_alignment(%a: memref<128xf32>, %b: memref<128xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %i = arith.muli %tx, %c4 : index
    %v = vector.load %a[%i] {alignment = 16 : i64} : memref<128xf32>, vector<4xf32>
    vector.store %v, %b[%i] {alignment = 16 : i64} : memref<128xf32>, vector<4xf32>
    gpu.terminator
  }
  return
}

// -----

// An ldmatrix address from a loop value: another lane's may already be its next step's.
func.func @ldmatrix_loop_value(%out: memref<32x4x2xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  // expected-error @+1 {{infc-gpu-launch-to-loops: an ldmatrix address computed from a loop value}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<16x16xf16, #gpu.address_space<workgroup>>) {
    %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%row = %c0) -> (index) {
      gpu.barrier
      %m = nvgpu.ldmatrix %tile[%row, %c0] {numTiles = 4 : i32, transpose = false}
        : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
      vector.store %m, %out[%tx, %c0, %c0] : memref<32x4x2xf16>, vector<4x2xf16>
      %next = arith.addi %row, %c1 : index
      scf.yield %next : index
    }
    gpu.terminator
  }
  return
}

// -----

// A result struct used past the next warp-level op: no buffer holds it.
func.func @struct_past_exchange(%a: memref<32xi32>, %out: memref<32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %x = memref.load %a[%tx] : memref<32xi32>
    %d = nvvm.mma.sync A[%x, %x, %x, %x] B[%x, %x] C[%zero, %zero, %zero, %zero]
      {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>,
       multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>,
       shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
    %r = llvm.extractvalue %d[0] : !llvm.struct<(f32, f32, f32, f32)>
    %c1_i32 = arith.constant 1 : i32
    %c32_i32 = arith.constant 32 : i32
    // expected-error @+1 {{infc-gpu-launch-to-loops: a struct value}}
    %s, %valid = gpu.shuffle xor %r, %c1_i32, %c32_i32 : f32
    %t = llvm.extractvalue %d[1] : !llvm.struct<(f32, f32, f32, f32)>
    %u = arith.addf %s, %t : f32
    memref.store %u, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A vector loop value of a loop with barriers (an mma.sync's accumulator) lives in a
// buffer of one per thread: stored before the loop, loaded and stored back each step,
// loaded after it.
// CHECK-LABEL: func.func @vector_loop_value
// CHECK: %[[SPILL:.*]] = memref.alloc(%{{.*}}) : memref<?x2x2xf32>
// CHECK: vector.transfer_write %{{.*}}, %[[SPILL]]
// CHECK: scf.for
// CHECK: vector.transfer_read %[[SPILL]]
// CHECK: vector.reduction <add>
// CHECK: vector.transfer_write %{{.*}}, %[[SPILL]]
// CHECK: vector.transfer_read %[[SPILL]]
// CHECK: memref.dealloc %[[SPILL]]
// CHECK-NOT: gpu.
func.func @vector_loop_value(%a: memref<32xf32>, %out: memref<32x2x2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant dense<0.0> : vector<2x2xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %sum = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (vector<2x2xf32>) {
      gpu.barrier
      %x = memref.load %a[%tx] : memref<32xf32>
      %fa = vector.broadcast %x : f32 to vector<4x1xf32>
      %fb = vector.broadcast %x : f32 to vector<2x1xf32>
      %next = nvgpu.mma.sync (%fa, %fb, %acc) {mmaShape = [16, 8, 8], tf32Enabled}
        : (vector<4x1xf32>, vector<2x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
      scf.yield %next : vector<2x2xf32>
    }
    vector.store %sum, %out[%tx, %c0, %c0] : memref<32x2x2xf32>, vector<2x2xf32>
    gpu.terminator
  }
  return
}

// -----

// Loop values that swap places each step: both are read from their buffers before either
// buffer is written.
// CHECK-LABEL: func.func @swapped_loop_values
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.store %[[ZERO]], %[[X:[a-z_0-9]+]][
// CHECK: memref.store %[[ONE]], %[[Y:[a-z_0-9]+]][
// CHECK: scf.for
// CHECK-DAG: %[[XV:.*]] = memref.load %[[X]][%{{.*}}]
// CHECK-DAG: %[[YV:.*]] = memref.load %[[Y]][%{{.*}}]
// CHECK: memref.store %[[YV]], %[[X]][%{{.*}}]
// CHECK: memref.store %[[XV]], %[[Y]][%{{.*}}]
func.func @swapped_loop_values(%a: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%x = %zero, %y = %one) -> (f32, f32) {
      gpu.barrier
      scf.yield %y, %x : f32, f32
    }
    memref.store %r#0, %a[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
