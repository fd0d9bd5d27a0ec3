//===- infc.cpp - the infc command line: compile, run, bench, inspect, verify ===//
#include "Commands.h"

#include <cstdio>
#include <cstring>

static const char *kUsage =
    "usage: infc <command> [options]\n"
    "\n"
    "commands:\n"
    "  compile MODEL.onnx -o MODEL.so   compile an ONNX model into a self-contained library\n"
    "      --input-shape NAME=D0xD1,...  static shapes for inputs with symbolic dims\n"
    "      --input-value NAME=x.npy       specialize an input to this value (runs must pass it)\n"
    "      --specialize DIM=V1,V2,...     one static variant per value of a named dim\n"
    "                                   (repeatable: every combination, at most 64)\n"
    "      --dim DIM=MIN..MAX             the sizes runs may give a named dim (repeatable)\n"
    "      --decoder                      a decoder LLM (past/present inputs and outputs):\n"
    "                                     its KV cache in the runtime, steps of sequences\n"
    "      --emit=so|infc|linalg|llvm|asm|ptx  stop after a stage and write it (-o - for\n"
    "                                   stdout; ptx: a CUDA model's kernels)\n"
    "      --emit=c -o DIR              the model as C source: model.c, model.h, the\n"
    "                                   weights file and the runtime's sources (build with\n"
    "                                   cc DIR/*.c; tiles for --cpu, default x86-64-v3)\n"
    "      --emit=cuda -o DIR           with --target cuda: the kernels as CUDA C++ (model.cu,\n"
    "                                   nvcc -fatbin) beside the host side as --emit=c's\n"
    "      --embed-weights              with --emit=c|cuda: the weights as C arrays (weights.c)\n"
    "      --no-malloc                  with --emit=c: model_run_static(workspace, in...,\n"
    "                                   out...) alone, serial, no runtime, no allocation\n"
    "      --header FILE.h              also write a typed C header for this model\n"
    "      --cpu NAME                   target CPU (default: this machine's, e.g. znver4)\n"
    "      --target-triple aarch64-linux-gnu  a library for 64-bit ARM Linux (--cpu generic,\n"
    "                                   neoverse-n1, ...; default generic)\n"
    "      --target cpu|cuda            run on the CPU (default) or an NVIDIA GPU\n"
    "                                   (cuda-emulator: the CUDA kernels run on the CPU,\n"
    "                                   to test the GPU lowering without a GPU)\n"
    "      --emulator-checks            cuda-emulator: blocks and threads last first over\n"
    "                                   poisoned memory, every load and store bounds-checked\n"
    "                                   (a plain run's bits unless a kernel races, reads\n"
    "                                   memory nothing wrote, or aborts out of bounds)\n"
    "      --gpu sm_80,sm_90            CUDA: architectures that get a cubin (plus the PTX)\n"
    "      --cuda-path DIR              CUDA: toolkit with ptxas and fatbinary\n"
    "                                   (default $CUDA_PATH, else /usr/local/cuda)\n"
    "      --precision fp32|tf32|fp16|bf16|auto\n"
    "                                   CUDA: matmul/conv operands in fp16 or bf16 (or\n"
    "                                   f32 on tensor cores as TF32), f32 sums; CPU with\n"
    "                                   AMX-BF16 or AVX512_BF16: bf16 (auto: bf16 where the\n"
    "                                   target CPU has AMX-BF16, else fp32; default fp32)\n"
    "      --weights fp32|int8|int4     CPU: matmul weights stored per group of K values of a\n"
    "                                   column (int8: a scale; int4: a scale and a minimum)\n"
    "                                   and widened to f32 in the kernel (default fp32)\n"
    "      --weight-group G             with --weights: K values per group, a power of two\n"
    "                                   from 16 or 0 (a column); default 64 int8, 32 int4\n"
    "      --activations half|rounded|fp32  with --precision fp16|bf16: activations between\n"
    "                                   kernels in that type (half: default for fp16),\n"
    "                                   only where rounded to it anyway (rounded: default\n"
    "                                   for bf16, the results of fp32 storage), or fp32\n"
    "      --gpu-layout nhwc|nchw       CUDA: the layout convolutions and pools run in\n"
    "                                   (default nhwc; nchw: the model's own)\n"
    "      --gpu-index-bits 64|32       CUDA: the kernels' index arithmetic (default 64;\n"
    "                                   32 needs every buffer static, within 2^30 elements)\n"
    "      -O0|-O1|-O2|-O3              LLVM optimization level (default -O3)\n"
    "      --profile                    also build a copy of the code that times each\n"
    "                                   kernel, for INFC_PROFILE and infc bench --per-node\n"
    "                                   (plain runs never execute it; the compile takes\n"
    "                                   about 1.7x as long)\n"
    "      --quantize int8 --calibration DIR  int8 post-training quantization, calibrated on\n"
    "                                   DIR/<sample>/<input>.npy by running the float model\n"
    "      --calibration-method percentile[=P]|minmax  how activation ranges are chosen\n"
    "                                   (default percentile=99.99)\n"
    "      --keep-float NAME,...        node names or op types to leave in float\n"
    "      --report                     each Conv/MatMul/Gemm: int8 or float, expected error\n"
    "  run MODEL.so --input NAME=x.npy ... [--output-dir DIR] [--threads N]\n"
    "      [--profile TRACE.json]       a chrome trace of the run: kernels by ONNX node,\n"
    "                                   workers (also INFC_PROFILE=TRACE.json)\n"
    "  bench MODEL.so [--threads N] [--warmup W] [--iters I] [--input NAME=x.npy ...]\n"
    "      [--interval-ms N]            a pause before each call (latency after idle)\n"
    "      [--input-shape NAME=D0xD1x...]  random data of this shape (--specialize)\n"
    "      [--profile TRACE.json] [--per-node[=N]]  profile the runs; print the top N\n"
    "                                   kernels (default 25) by time and share\n"
    "  generate LLM.so --prompt-ids 1,2,3 [--max-new-tokens N] [--stop IDS] [--threads N]\n"
    "      [--temperature T] [--top-k K] [--top-p P] [--seed S] [--max-blocks B]\n"
    "      [--draft-tokens K [--draft-ngram N]]  prompt-lookup speculative decoding\n"
    "                                   a --decoder library's tokens (greedy by default),\n"
    "                                   with its time to first token and per output token\n"
    "  inspect MODEL.onnx               inputs, outputs, opsets, op histogram\n"
    "  verify MODEL.onnx [--input NAME=x.npy ...] [--input-shape ...] [--rtol R] [--atol A]\n"
    "         [--bisect OUT.onnx] [-- COMPILE FLAGS]\n"
    "                                   the first node whose output differs from\n"
    "                                   onnxruntime's (python3 with onnxruntime and onnx)\n"
    "\n"
    "See docs/cli.md.\n";

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
      !strcmp(argv[1], "help")) {
    fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  infc::Args args(argv + 2, argv + argc);
  std::string command = argv[1];
  if (command == "compile")
    return infc::compileCommand(args, argv[0]);
  if (command == "inspect")
    return infc::inspectCommand(args);
  if (command == "run")
    return infc::runCommand(args);
  if (command == "bench")
    return infc::benchCommand(args);
  if (command == "generate")
    return infc::generateCommand(args);
  if (command == "verify")
    return infc::verifyCommand(args, argv[0]);
  fprintf(stderr, "infc: error: unknown command '%s'\n\n%s", command.c_str(), kUsage);
  return 2;
}
