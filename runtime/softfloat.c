/* softfloat.c - the float -> bfloat16 conversions LLVM calls out for (__truncsfbf2,
 * __truncdfbf2). They live in compiler-rt or in libgcc from GCC 13 on; Debian 12's libgcc
 * (GCC 12) has neither, and a model.so may need nothing beyond libc and libm. Round to
 * nearest, ties to even, like the hardware conversions; NaN stays a (quiet) NaN. */
#include <stdint.h>
#include <string.h>

#if defined(__clang__) && (defined(__x86_64__) || defined(__aarch64__))
/* Hidden: resolved inside model.so at link time, never exported to the host. */
#define INFC_BUILTIN __attribute__((visibility("hidden")))

static __bf16 bits_to_bf16(uint16_t h) {
  __bf16 r;
  memcpy(&r, &h, sizeof r);
  return r;
}

static uint16_t float_to_bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep the sign, force a quiet payload */
    return (uint16_t)((u >> 16) | 0x0040u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

INFC_BUILTIN __bf16 __truncsfbf2(float f) { return bits_to_bf16(float_to_bf16_bits(f)); }

/* double -> float rounding to odd keeps enough bits (23 > 7 + 1) that the second rounding,
 * to bfloat16, is the correctly rounded result of the double. */
INFC_BUILTIN __bf16 __truncdfbf2(double d) {
  float f = (float)d;
  if (d == d && (double)f != d) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    if (f != f || (f < 0 ? -(double)f > -d : (double)f > d)) /* rounded away from zero */
      u -= 1u;                                               /* one ulp toward zero */
    u |= 1u;                                                 /* sticky bit: odd */
    memcpy(&f, &u, sizeof f);
  }
  return bits_to_bf16(float_to_bf16_bits(f));
}
#endif
