// RUN: infc-opt %s -infc-gpu-launch-to-loops=race-check -cse | FileCheck %s
// RUN: infc-opt %s -infc-gpu-launch-to-loops -cse | FileCheck %s --check-prefix=PLAIN

// race-check: the blocks and the threads of each piece run last first (the id is the
// bound - 1 - the loop's counter), and each block starts with its shared memory and its
// threads' private memory poisoned: NaN for floats, the bytes 0xA5 for integers.
// CHECK-LABEL: func.func @reversed
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[SHARED:.*]] = memref.alloca() : memref<64xf32>
// CHECK: %[[PRIVATE:.*]] = memref.alloc(%{{.*}}) : memref<?x2xi32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[BX:.*]] = %[[C0]] to %[[C3]] step %[[C1]] {
// CHECK: %[[LASTB:.*]] = arith.subi %[[C3]], %[[C1]] : index
// CHECK: %[[B:.*]] = arith.subi %[[LASTB]], %[[BX]] : index
// CHECK: %[[NAN:.*]] = arith.constant 0x7FC00000 : f32
// CHECK: scf.for %[[I:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK: memref.store %[[NAN]], %[[SHARED]][%[[I]]]
// CHECK: %[[A5:.*]] = arith.constant -1515870811 : i32
// CHECK: %[[THREADS:.*]] = memref.dim %[[PRIVATE]], %[[C0]]
// CHECK: scf.for %[[J:.*]] = %[[C0]] to %[[THREADS]] step %[[C1]] {
// CHECK: scf.for %[[K:.*]] = %[[C0]] to %{{.*}} step %[[C1]] {
// CHECK: memref.store %[[A5]], %[[PRIVATE]][%[[J]], %[[K]]]
// The first piece (up to the barrier), then the second, each over the threads last first.
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for %[[TX:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK: %[[LASTT:.*]] = arith.subi %[[C64]], %[[C1]] : index
// CHECK: %[[T:.*]] = arith.subi %[[LASTT]], %[[TX]] : index
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[AT]]]
// CHECK: memref.store %[[X]], %[[SHARED]][%[[T]]]
// CHECK: scf.for %[[TX2:.*]] = %[[C0]] to %[[C64]] step %[[C1]] {
// CHECK: %[[T2:.*]] = arith.subi %{{.*}}, %[[TX2]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[T2]], %[[C1]] : index
// CHECK: %[[WRAP:.*]] = arith.remui %[[NEXT]], %[[C64]] : index
// CHECK: memref.load %[[SHARED]][%[[WRAP]]]
// CHECK-NOT: gpu.

// A plain run: counters are ids, nothing poisoned.
// PLAIN-LABEL: func.func @reversed
// PLAIN-NOT: 0x7FC00000
// PLAIN-NOT: arith.subi
// PLAIN: return
func.func @reversed(%a: memref<192xf32>, %b: memref<192xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c3, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<64xf32, #gpu.address_space<workgroup>>)
             private(%mine : memref<2xi32, #gpu.address_space<private>>) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %base, %tx : index
    %x = memref.load %a[%i] : memref<192xf32>
    memref.store %x, %shared[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %next = arith.addi %tx, %c1 : index
    %wrap = arith.remui %next, %c64 : index
    %y = memref.load %shared[%wrap] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %b[%i] : memref<192xf32>
    gpu.terminator
  }
  return
}

// The workspace filled with the bytes 0xFF when a run starts (NaN in every float type): a
// buffer read before a kernel of the run wrote it would hold the last run's leftovers.
// CHECK-LABEL: func.func @workspace
// CHECK-SAME: (%[[WS:.*]]: memref<256xi8> {infc.workspace}
// CHECK: %[[FF:.*]] = arith.constant -1 : i8
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.store %[[FF]], %[[WS]][%[[I]]]
// PLAIN-LABEL: func.func @workspace
// PLAIN-NOT: scf.for
func.func @workspace(%ws: memref<256xi8> {infc.workspace}, %x: memref<4xf32>) {
  return
}

// Each 1-D vector.load and vector.store asserted inside its memref's footprint: the first
// element's linear offset t * 4 at most 255 - 3 in a 64 x 4 view (unsigned: a negative
// offset fails too); a vector longer than the whole view fails always; plain runs none.
// CHECK-LABEL: func.func @vectors
// CHECK: scf.for %[[TX:.*]] = %{{.*}} to %c64
// CHECK: %[[T:.*]] = arith.subi %{{.*}}, %[[TX]] : index
// CHECK: %[[ROW:.*]] = arith.muli %[[T]], %c4
// CHECK: %[[OK:.*]] = arith.cmpi ule, %{{.*}}, %c252
// CHECK: cf.assert %[[OK]], "infc emulator: vector.load of vector<4xf32> past the end of memref<64x4xf32> at loc(
// CHECK: vector.load
// CHECK: cf.assert {{.*}} "infc emulator: vector.store of vector<4xf32> past the end of memref<64x4xf32> at
// CHECK: vector.store
// CHECK: %[[NEVER:.*]] = arith.constant false
// CHECK: cf.assert %[[NEVER]], "infc emulator: vector.load of vector<8xf32> past the end of memref<4xf32>
// PLAIN-LABEL: func.func @vectors
// PLAIN-NOT: cf.assert
func.func @vectors(%a: memref<64x4xf32>, %b: memref<64x4xf32>, %small: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %v = vector.load %a[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    vector.store %v, %b[%tx, %c0] : memref<64x4xf32>, vector<4xf32>
    %w = vector.load %small[%c0] : memref<4xf32>, vector<8xf32>
    gpu.terminator
  }
  return
}
