// REQUIRES: mlir-runner
// DEFINE: %{lower} = mlir-opt --convert-scf-to-cf --convert-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -entry-point-result=i32
// RUN: infc-opt %s -infc-gpu-launch-to-loops | %{lower} | %{run} -e racy \
// RUN:   | FileCheck %s --check-prefix=PLAIN
// RUN: infc-opt %s -infc-gpu-launch-to-loops=race-check | %{lower} | %{run} -e racy \
// RUN:   | FileCheck %s --check-prefix=RACE
// RUN: infc-opt %s -infc-gpu-launch-to-loops | %{lower} | %{run} -e synced \
// RUN:   | FileCheck %s --check-prefix=SYNCED
// RUN: infc-opt %s -infc-gpu-launch-to-loops=race-check | %{lower} | %{run} -e synced \
// RUN:   | FileCheck %s --check-prefix=SYNCED
// RUN: infc-opt %s -infc-gpu-launch-to-loops=race-check \
// RUN:   | mlir-opt --generate-runtime-verification | %{lower} \
// RUN:   | not --crash stdbuf -oL %{run} -e outOfBounds 2>&1 | FileCheck %s --check-prefix=BOUNDS

// The emulator's race check, run: thread t stores t + 1 into shared[t] and reads
// shared[t - 1] (thread 0 its own) with no barrier between, then the host adds up what the
// threads read. A plain run takes the threads in order, so every thread finds its
// neighbour's value and the sum is right (1 + 1 + 2 + ... + 63 = 2017): the race is
// invisible. With race-check the threads run last first over poisoned shared memory, so
// all but thread 0 read 0xA5A5A5A5: the sum is 1 + 63 * 0xA5A5A5A5 (mod 2^32, as i32) and
// the race shows. With the barrier both runs give 2017.
// PLAIN: {{^}}2017{{$}}
// RACE: {{^}}-1010580580{{$}}
// SYNCED: {{^}}2017{{$}}

// Thread 63 of @outOfBounds reads a[64] of a 64-element buffer: on a GPU an illegal address
// or the next buffer's data; with the bounds checks that --emulator-checks adds
// (generate-runtime-verification, after the emulation), the emulated run prints what and
// where, then aborts (stdbuf: the message is put on stdout, which abort does not flush).
// BOUNDS: ERROR: Runtime op verification failed
// BOUNDS-NEXT: memref.load
// BOUNDS-NEXT: ^ out-of-bounds access

func.func @racy() -> i32 {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloca() : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<64xi32, #gpu.address_space<workgroup>>) {
    %t = arith.index_cast %tx : index to i32
    %one = arith.constant 1 : i32
    %v = arith.addi %t, %one : i32
    memref.store %v, %shared[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    %c0k = arith.constant 0 : index
    %c1k = arith.constant 1 : index
    %first = arith.cmpi eq, %tx, %c0k : index
    %prev = arith.subi %tx, %c1k : index
    %from = arith.select %first, %c0k, %prev : index
    %x = memref.load %shared[%from] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  %sum = func.call @total(%out) : (memref<64xi32>) -> i32
  return %sum : i32
}

func.func @synced() -> i32 {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloca() : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%shared : memref<64xi32, #gpu.address_space<workgroup>>) {
    %t = arith.index_cast %tx : index to i32
    %one = arith.constant 1 : i32
    %v = arith.addi %t, %one : i32
    memref.store %v, %shared[%tx] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c0k = arith.constant 0 : index
    %c1k = arith.constant 1 : index
    %first = arith.cmpi eq, %tx, %c0k : index
    %prev = arith.subi %tx, %c1k : index
    %from = arith.select %first, %c0k, %prev : index
    %x = memref.load %shared[%from] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  %sum = func.call @total(%out) : (memref<64xi32>) -> i32
  return %sum : i32
}

func.func private @total(%out: memref<64xi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0 : i32
  %sum = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (i32) {
    %x = memref.load %out[%i] : memref<64xi32>
    %s = arith.addi %acc, %x : i32
    scf.yield %s : i32
  }
  return %sum : i32
}

func.func @outOfBounds() -> i32 {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %a = memref.alloca() : memref<64xi32>
  %out = memref.alloca() : memref<64xi32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %c1k = arith.constant 1 : index
    %next = arith.addi %tx, %c1k : index
    %x = memref.load %a[%next] : memref<64xi32>
    memref.store %x, %out[%tx] : memref<64xi32>
    gpu.terminator
  }
  %sum = func.call @total(%out) : (memref<64xi32>) -> i32
  return %sum : i32
}
