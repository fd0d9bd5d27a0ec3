//===- CWriterTest.cpp - LLVM IR semantics through --emit=c's C printer ---===//
//
// Each case is a small LLVM IR function `void @f(ptr %out)` that stores results the zoo's
// models do not reach (signed i1, NaN and signed zeros, padded vectors, masks, phi swaps).
// The module is printed by writeModuleAsC, built by the C compiler with a driver that calls
// @f and prints the bytes it stored, and the bytes are compared with the values LLVM's
// LangRef defines, written out by hand below. The CUDA mode's cases (--emit=cuda) check the
// printed text only: e2e_emit_cuda builds and runs whole models' kernels.
//
//===----------------------------------------------------------------------===//
#include "infc/Target/Target.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {
/// Prints `ir` as C, builds it with a driver that calls `f` on a zeroed buffer of `bytes`
/// bytes, and returns the bytes as hex (two digits each), or "error: ..." .
std::string runThroughC(const std::string &ir, size_t bytes) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(
      "target datalayout = \"e-m:e-i64:64-i128:128-n32:64-S128\"\n" + ir, diag, ctx);
  if (!m)
    return "error: IR: " + diag.getMessage().str();
  std::string c, error;
  llvm::raw_string_ostream os(c);
  infc::CWriterOptions options;
  if (failed(infc::writeModuleAsC(*m, options, os, error)))
    return "error: " + error;
  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("cwriter", dir))
    return "error: no temporary directory";
  std::string src = (dir + "/t.c").str(), exe = (dir + "/t").str(), out = (dir + "/out").str();
  std::ofstream(src) << c << "\n#include <stdio.h>\nint main(void) {\n  static uint8_t buf["
                     << bytes
                     << "] __attribute__((aligned(64)));\n  f(buf);\n  for (int i = 0; i < "
                     << bytes << "; ++i) printf(\"%02x\", buf[i]);\n  return 0;\n}\n";
  std::vector<llvm::StringRef> build = {INFC_TEST_CC, "-O2", "-Wall", "-Wextra", "-Werror",
                                        src,          "-o",  exe,     "-lm"};
  std::string why;
  if (llvm::sys::ExecuteAndWait(INFC_TEST_CC, build, std::nullopt, {}, 120, 0, &why) != 0)
    return "error: the C compiler failed on:\n" + c;
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(out), std::nullopt};
  if (llvm::sys::ExecuteAndWait(exe, {exe}, std::nullopt, redirects, 60, 0, &why) != 0)
    return "error: the program failed: " + why;
  std::stringstream text;
  text << std::ifstream(out).rdbuf();
  llvm::sys::fs::remove_directories(dir);
  return text.str();
}

TEST(CWriter, SignedI1AndIntegerWidths) {
  // icmp slt i1 1, 0: true (1 is -1); sext i1 1 to i8: ff; i8 200 + 100 wraps to 44;
  // ashr i8 -128, 7: ff; udiv i8 200, 3: 66 (0x42); i16 mul wraps: 300*300 = 0x5f90.
  std::string ir = R"(
define void @f(ptr %out) {
  %a = icmp slt i1 true, false
  store i1 %a, ptr %out
  %b = sext i1 true to i8
  %p1 = getelementptr i8, ptr %out, i64 1
  store i8 %b, ptr %p1
  %c = add i8 200, 100
  %p2 = getelementptr i8, ptr %out, i64 2
  store i8 %c, ptr %p2
  %d = ashr i8 -128, 7
  %p3 = getelementptr i8, ptr %out, i64 3
  store i8 %d, ptr %p3
  %e = udiv i8 200, 3
  %p4 = getelementptr i8, ptr %out, i64 4
  store i8 %e, ptr %p4
  %g = mul i16 300, 300
  %p5 = getelementptr i8, ptr %out, i64 5
  store i16 %g, ptr %p5
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 7), "01ff2cff42905f");
}

TEST(CWriter, MaximumMinimumNaNAndSignedZero) {
  // llvm.maximum/minimum on <4 x float>: NaN wins, +0 > -0.
  // a = <1.0, NaN, -0.0, +0.0>, b = <2.0, 1.0, +0.0, -0.0>
  // maximum = <2.0, NaN, +0.0, +0.0>; minimum = <1.0, NaN, -0.0, -0.0>
  std::string ir = R"(
declare <4 x float> @llvm.maximum.v4f32(<4 x float>, <4 x float>)
declare <4 x float> @llvm.minimum.v4f32(<4 x float>, <4 x float>)
define void @f(ptr %out) {
  %x = call <4 x float> @llvm.maximum.v4f32(<4 x float> <float 1.0, float 0x7FF8000000000000, float -0.0, float 0.0>, <4 x float> <float 2.0, float 1.0, float 0.0, float -0.0>)
  store <4 x float> %x, ptr %out
  %n = call <4 x float> @llvm.minimum.v4f32(<4 x float> <float 1.0, float 0x7FF8000000000000, float -0.0, float 0.0>, <4 x float> <float 2.0, float 1.0, float 0.0, float -0.0>)
  %p = getelementptr i8, ptr %out, i64 16
  store <4 x float> %n, ptr %p
  ret void
}
)";
  // Little-endian bytes: 2.0 = 00000040, NaN = 0000c07f, +0 = 00000000, 1.0 = 0000803f,
  // -0 = 00000080.
  EXPECT_EQ(runThroughC(ir, 32), std::string("00000040") + "0000c07f" + "00000000" + "00000000" +
                                     "0000803f" + "0000c07f" + "00000080" + "00000080");
}

TEST(CWriter, UnorderedComparesAndMasks) {
  // fcmp ueq/uno/one on <4 x float> with a NaN lane, the mask bitcast to i4 -> zext i8.
  // a = <1, NaN, 2, 3>, b = <1, 1, 3, 3>: ueq = 1,1,0,1 -> 0b1011; uno = 0,1,0,0 -> 0b0010;
  // one = 0,0,1,0 -> 0b0100.
  std::string ir = R"(
define void @f(ptr %out) {
  %a = fcmp ueq <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %b = fcmp uno <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %c = fcmp one <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %ab = bitcast <4 x i1> %a to i4
  %bb = bitcast <4 x i1> %b to i4
  %cb = bitcast <4 x i1> %c to i4
  %az = zext i4 %ab to i8
  %bz = zext i4 %bb to i8
  %cz = zext i4 %cb to i8
  store i8 %az, ptr %out
  %p1 = getelementptr i8, ptr %out, i64 1
  store i8 %bz, ptr %p1
  %p2 = getelementptr i8, ptr %out, i64 2
  store i8 %cz, ptr %p2
  ret void
}
)";
  // ueq 0b1011, uno 0b0010, one 0b0100 (an i4 held in a byte, see OddWidthIntegers).
  EXPECT_EQ(runThroughC(ir, 3), "0b0204");
  // The same masks through i8 lanes: sext <4 x i1> to <4 x i8>.
  std::string lanes = R"(
define void @f(ptr %out) {
  %a = fcmp ueq <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %b = fcmp uno <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %c = fcmp one <4 x float> <float 1.0, float 0x7FF8000000000000, float 2.0, float 3.0>, <float 1.0, float 1.0, float 3.0, float 3.0>
  %as = sext <4 x i1> %a to <4 x i8>
  %bs = zext <4 x i1> %b to <4 x i8>
  %sel = select <4 x i1> %c, <4 x i8> <i8 7, i8 7, i8 7, i8 7>, <4 x i8> <i8 9, i8 9, i8 9, i8 9>
  store <4 x i8> %as, ptr %out
  %p1 = getelementptr i8, ptr %out, i64 4
  store <4 x i8> %bs, ptr %p1
  %p2 = getelementptr i8, ptr %out, i64 8
  store <4 x i8> %sel, ptr %p2
  ret void
}
)";
  EXPECT_EQ(runThroughC(lanes, 12), "ffff00ff"
                                    "00010000"
                                    "09090709");
}

TEST(CWriter, OddWidthIntegers) {
  // i4 (int4 models): 7 + -4 = 3; -6 sdiv 2 = -3 (0xd); sext -3 to i8 = 0xfd; trunc 200 (0xc8)
  // to i4 = 8; icmp slt 8 (-8), 7 = 1; ashr -8, 2 = -2 (0xe); 5 * 5 = 25 mod 16 = 9;
  // sitofp i4 -8 = -8.0f (0xc1000000).
  std::string ir = R"(
define void @f(ptr %out) {
  %a = add i4 7, -4
  %b = sdiv i4 -6, 2
  %c = sext i4 -3 to i8
  %d = trunc i8 200 to i4
  %e = icmp slt i4 8, 7
  %g = ashr i4 -8, 2
  %h = mul i4 5, 5
  %f = sitofp i4 -8 to float
  %az = zext i4 %a to i8
  %bz = zext i4 %b to i8
  %dz = zext i4 %d to i8
  %ez = zext i1 %e to i8
  %gz = zext i4 %g to i8
  %hz = zext i4 %h to i8
  store i8 %az, ptr %out
  %p1 = getelementptr i8, ptr %out, i64 1
  store i8 %bz, ptr %p1
  %p2 = getelementptr i8, ptr %out, i64 2
  store i8 %c, ptr %p2
  %p3 = getelementptr i8, ptr %out, i64 3
  store i8 %dz, ptr %p3
  %p4 = getelementptr i8, ptr %out, i64 4
  store i8 %ez, ptr %p4
  %p5 = getelementptr i8, ptr %out, i64 5
  store i8 %gz, ptr %p5
  %p6 = getelementptr i8, ptr %out, i64 6
  store i8 %hz, ptr %p6
  %p7 = getelementptr i8, ptr %out, i64 7
  store float %f, ptr %p7
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 11), "030dfd08010e09000000c1");
}

TEST(CWriter, GatherThroughVectorOfPointers) {
  // A gather from a table through a getelementptr of vector indices, one lane masked off.
  std::string ir = R"(
@table = internal constant [4 x i32] [i32 10, i32 20, i32 30, i32 40]
declare <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr>, i32, <4 x i1>, <4 x i32>)
define void @f(ptr %out) {
  %p = getelementptr i32, ptr @table, <4 x i64> <i64 3, i64 0, i64 2, i64 1>
  %g = call <4 x i32> @llvm.masked.gather.v4i32.v4p0(<4 x ptr> %p, i32 4, <4 x i1> <i1 true, i1 true, i1 false, i1 true>, <4 x i32> <i32 7, i32 7, i32 7, i32 7>)
  store <4 x i32> %g, ptr %out
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 16), "280000000a0000000700000014000000");
}

TEST(CWriter, CastsOfI1AndHalf) {
  // sitofp <4 x i32> <-1, 2, -3, 4> to half: bc00 4000 c200 4400; trunc <2, 3, 0, 1> to i1,
  // sext: 00 ff 00 ff; fptoui 0.5 to i1: 0; fptosi -1.0 to i1: 1 (-1); sitofp i1 true:
  // -1.0f; icmp ult <2 x i1> <0, 1>, <1, 1>, sext: ff 00.
  std::string ir = R"(
define void @f(ptr %out) {
  %h = sitofp <4 x i32> <i32 -1, i32 2, i32 -3, i32 4> to <4 x half>
  store <4 x half> %h, ptr %out
  %t = trunc <4 x i8> <i8 2, i8 3, i8 0, i8 1> to <4 x i1>
  %ts = sext <4 x i1> %t to <4 x i8>
  %p1 = getelementptr i8, ptr %out, i64 8
  store <4 x i8> %ts, ptr %p1
  %u = fptoui float 0.5 to i1
  %uz = zext i1 %u to i8
  %p2 = getelementptr i8, ptr %out, i64 12
  store i8 %uz, ptr %p2
  %s = fptosi float -1.0 to i1
  %sz = zext i1 %s to i8
  %p3 = getelementptr i8, ptr %out, i64 13
  store i8 %sz, ptr %p3
  %f = sitofp i1 true to float
  %p4 = getelementptr i8, ptr %out, i64 14
  store float %f, ptr %p4
  %c = icmp ult <2 x i1> <i1 false, i1 true>, <i1 true, i1 true>
  %cs = sext <2 x i1> %c to <2 x i8>
  %p5 = getelementptr i8, ptr %out, i64 18
  store <2 x i8> %cs, ptr %p5
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 20),
            std::string("00bc004000c20044") + "00ff00ff" + "00" + "01" + "000080bf" + "ff00");
}

TEST(CWriter, DoubleToHalfRoundsOnce) {
  // 1 + 2^-11 + 2^-40 rounds up to f16's 1 + 2^-10 (0x3c01); through a float it would lose
  // the 2^-40, tie, and round to even (1.0). Likewise 1 + 2^-8 + 2^-40 to bf16's 1 + 2^-7;
  // -1.5 * 2^-24 to the subnormal -2^-23 (ties to even); 1e10 to infinity.
  std::string ir = R"(
define void @f(ptr %out) {
  %a = fptrunc double 0x3FF0020000001000 to half
  store half %a, ptr %out
  %p1 = getelementptr i8, ptr %out, i64 2
  %b = fptrunc double 0x3FF0100000001000 to bfloat
  store bfloat %b, ptr %p1
  %p2 = getelementptr i8, ptr %out, i64 4
  %c = fptrunc double 0xBE78000000000000 to half
  store half %c, ptr %p2
  %p3 = getelementptr i8, ptr %out, i64 6
  %d = fptrunc double 1.0e10 to half
  store half %d, ptr %p3
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 8), "013c813f0280007c");
}

TEST(CWriter, MaskedLoadAndStore) {
  // masked.load of <4 x i32> {10,20,30,40} under <1,0,1,1> with passthru 7: 10,7,30,40;
  // masked.store of <1,2,3,4> under <0,1,0,1> over 9s: 9,2,9,4.
  std::string ir = R"(
@table = internal constant [4 x i32] [i32 10, i32 20, i32 30, i32 40]
declare <4 x i32> @llvm.masked.load.v4i32.p0(ptr, i32, <4 x i1>, <4 x i32>)
declare void @llvm.masked.store.v4i32.p0(<4 x i32>, ptr, i32, <4 x i1>)
define void @f(ptr %out) {
  %l = call <4 x i32> @llvm.masked.load.v4i32.p0(ptr @table, i32 4, <4 x i1> <i1 true, i1 false, i1 true, i1 true>, <4 x i32> <i32 7, i32 7, i32 7, i32 7>)
  store <4 x i32> %l, ptr %out
  %p = getelementptr i8, ptr %out, i64 16
  store <4 x i32> <i32 9, i32 9, i32 9, i32 9>, ptr %p
  call void @llvm.masked.store.v4i32.p0(<4 x i32> <i32 1, i32 2, i32 3, i32 4>, ptr %p, i32 4, <4 x i1> <i1 false, i1 true, i1 false, i1 true>)
  ret void
}
)";
  EXPECT_EQ(runThroughC(ir, 32),
            std::string("0a000000070000001e00000028000000") + "09000000020000000900000004000000");
}

TEST(CWriter, PaddedVectorsAndShuffles) {
  // <3 x float> (padded to 4 lanes in C): a shuffle picking from both operands, a store of
  // exactly 12 bytes (the 13th..16th stay 0xAA), an extract and insert at a run-time index.
  std::string ir = R"(
define void @f(ptr %out) {
  call void @llvm.memset.p0.i64(ptr %out, i8 -86, i64 20, i1 false)
  %s = shufflevector <3 x float> <float 1.0, float 2.0, float 3.0>, <3 x float> <float 4.0, float 5.0, float 6.0>, <3 x i32> <i32 5, i32 0, i32 3>
  store <3 x float> %s, ptr %out
  %i = add i64 1, 1
  %e = extractelement <3 x float> %s, i64 %i
  %v = insertelement <3 x float> %s, float %e, i64 0
  %w = extractelement <3 x float> %v, i64 0
  %p = getelementptr i8, ptr %out, i64 16
  store float %w, ptr %p
  ret void
}
declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
)";
  EXPECT_EQ(runThroughC(ir, 20), "0000c0400000803f00008040aaaaaaaa00008040");
}

TEST(CWriter, PhiSwap) {
  // Two phis that swap each round: after 3 rounds from (1, 2), (2, 1).
  std::string ir = R"(
define void @f(ptr %out) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %n, %loop ]
  %a = phi i32 [ 1, %entry ], [ %b, %loop ]
  %b = phi i32 [ 2, %entry ], [ %a, %loop ]
  %n = add i32 %i, 1
  %done = icmp eq i32 %n, 3
  br i1 %done, label %exit, label %loop
exit:
  store i32 %a, ptr %out
  %p = getelementptr i8, ptr %out, i64 4
  store i32 %b, ptr %p
  ret void
}
)";
  // Round 1 reads (1, 2), round 2 (2, 1), round 3 (1, 2); the exit sees round 3's phis.
  EXPECT_EQ(runThroughC(ir, 8), "0100000002000000");
}

TEST(CWriter, RefusesTargetIntrinsics) {
  std::string ir = R"(
declare <16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32>, <16 x i32>, <16 x i32>)
define void @f(ptr %out) {
  %r = call <16 x i32> @llvm.x86.avx512.vpdpbusd.512(<16 x i32> zeroinitializer, <16 x i32> zeroinitializer, <16 x i32> zeroinitializer)
  store <16 x i32> %r, ptr %out
  ret void
}
)";
  std::string got = runThroughC(ir, 64);
  EXPECT_NE(got.find("llvm.x86.avx512.vpdpbusd.512"), std::string::npos) << got;
  EXPECT_EQ(got.rfind("error: ", 0), 0u) << got;
}
/// `ir` (an NVPTX module) printed in CUDA mode, or "error: ...".
std::string printAsCuda(const std::string &ir) {
  llvm::LLVMContext ctx;
  llvm::SMDiagnostic diag;
  std::unique_ptr<llvm::Module> m = llvm::parseAssemblyString(
      "target datalayout = \"e-p3:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
      "target triple = \"nvptx64-nvidia-cuda\"\n" +
          ir,
      diag, ctx);
  if (!m)
    return "error: IR: " + diag.getMessage().str();
  std::string text, error;
  llvm::raw_string_ostream os(text);
  infc::CWriterOptions options;
  options.cuda = true;
  if (failed(infc::writeModuleAsC(*m, options, os, error)))
    return "error: " + error;
  return text;
}

TEST(CWriter, CudaKernelSharedMemoryAndWarpShuffle) {
  std::string got = printAsCuda(R"(
@tile = internal addrspace(3) global [64 x float] undef, align 16
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)
declare float @__nv_expf(float)
define ptx_kernel void @k0_node(ptr %out) #0 {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr float, ptr addrspace(3) @tile, i32 %t
  %v = load <4 x float>, ptr %out, align 16
  %x = extractelement <4 x float> %v, i32 0
  %e = call float @__nv_expf(float %x)
  store float %e, ptr addrspace(3) %p, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %y = load float, ptr addrspace(3) %p, align 4
  %s = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %y, i32 16, i32 31)
  store float %s, ptr %out, align 4
  ret void
}
attributes #0 = { "nvvm.maxntid"="64,1,1" }
)");
  for (const char *want :
       {"extern \"C\" __global__ __launch_bounds__(64) void k0_node(uint8_t * a0)",
        "static __shared__", "__align__(16) infc_t0 tile;", "= (uint32_t)threadIdx.x;",
        "__syncthreads();", "= expf(", "struct __align__(16) infc_v4f32 {",
        "__builtin_assume_aligned(a0, 16), 16);", "shfl.sync.bfly.b32 %0, %1, %2, %3, %4;",
        "#ifdef INFC_CUDA_EMULATION"})
    EXPECT_NE(got.find(want), std::string::npos) << want << " not in:\n" << got;
}

TEST(CWriter, CudaRefusesVectorArithmeticAndUnknownIntrinsics) {
  // nvcc has no vector types in device code: arithmetic must be scalarized first.
  std::string got = printAsCuda(R"(
define ptx_kernel void @k(ptr %out) {
  %v = load <4 x float>, ptr %out, align 16
  %w = fadd <4 x float> %v, %v
  store <4 x float> %w, ptr %out, align 16
  ret void
}
)");
  EXPECT_EQ(got.rfind("error: ", 0), 0u) << got;
  EXPECT_NE(got.find("left after scalarization"), std::string::npos) << got;
  got = printAsCuda(R"(
declare i32 @llvm.nvvm.read.ptx.sreg.clock()
define ptx_kernel void @k(ptr %out) {
  %c = call i32 @llvm.nvvm.read.ptx.sreg.clock()
  store i32 %c, ptr %out, align 4
  ret void
}
)");
  EXPECT_EQ(got.rfind("error: ", 0), 0u) << got;
  EXPECT_NE(got.find("llvm.nvvm.read.ptx.sreg.clock"), std::string::npos) << got;
}
} // namespace
