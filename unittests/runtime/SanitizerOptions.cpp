//===- SanitizerOptions.cpp - sanitizer defaults for the runtime tests -----===//
//
// Read by ASan/UBSan at start-up when the tests are built with INFC_SANITIZE (unused otherwise),
// so the settings hold however the binary is run. allocator_may_return_null: a test asks for a
// 4 EiB workspace and expects INFC_ERR_OUT_OF_MEMORY, not an ASan abort. halt_on_error: UBSan
// only prints by default, which would let a test pass.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allocator_may_return_null=1:detect_leaks=1";
}

extern "C" const char *__ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }
