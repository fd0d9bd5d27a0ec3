/* infc runtime — ABI version, status strings and the dtype table. */
#include "internal.h"

_Static_assert(sizeof(infc_dtype) == 4 && sizeof(infc_status) == 4, "the ABI assumes 32-bit enums");

uint32_t infc_abi_version(void) { return INFC_ABI_VERSION; }

const char *infc_status_string(infc_status status) {
  switch (status) {
  case INFC_OK:
    return "ok";
  case INFC_ERR_INVALID_ARGUMENT:
    return "invalid argument";
  case INFC_ERR_SHAPE_MISMATCH:
    return "shape mismatch";
  case INFC_ERR_DTYPE_MISMATCH:
    return "dtype mismatch";
  case INFC_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case INFC_ERR_UNAVAILABLE:
    return "unavailable";
  case INFC_ERR_VERSION_MISMATCH:
    return "version mismatch";
  case INFC_ERR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

/* Indexed by infc_dtype; the enum values are ABI, so the table is too. */
static const struct {
  const char *name;
  size_t size;
} dtype_table[] = {
    [INFC_F32] = {"float32", 4},
    [INFC_F64] = {"float64", 8},
    [INFC_F16] = {"float16", 2},
    [INFC_BF16] = {"bfloat16", 2},
    [INFC_I8] = {"int8", 1},
    [INFC_I16] = {"int16", 2},
    [INFC_I32] = {"int32", 4},
    [INFC_I64] = {"int64", 8},
    [INFC_U8] = {"uint8", 1},
    [INFC_U16] = {"uint16", 2},
    [INFC_U32] = {"uint32", 4},
    [INFC_U64] = {"uint64", 8},
    [INFC_BOOL] = {"bool", 1},
    [INFC_F8E4M3FN] = {"float8_e4m3fn", 1},
    [INFC_F8E4M3FNUZ] = {"float8_e4m3fnuz", 1},
    [INFC_F8E5M2] = {"float8_e5m2", 1},
    [INFC_F8E5M2FNUZ] = {"float8_e5m2fnuz", 1},
    [INFC_F4E2M1] = {"float4_e2m1fn", 1},
    [INFC_I4] = {"int4", 1},
    [INFC_U4] = {"uint4", 1},
    [INFC_I2] = {"int2", 1},
    [INFC_U2] = {"uint2", 1},
};

static int dtype_known(int32_t dtype) {
  return dtype > 0 && (size_t)dtype < sizeof dtype_table / sizeof dtype_table[0];
}

size_t infc__dtype_size(int32_t dtype) { return dtype_known(dtype) ? dtype_table[dtype].size : 0; }

const char *infc__dtype_name(int32_t dtype) {
  return dtype_known(dtype) ? dtype_table[dtype].name : "invalid";
}

size_t infc_dtype_size(infc_dtype dtype) { return infc__dtype_size((int32_t)dtype); }

const char *infc_dtype_name(infc_dtype dtype) { return infc__dtype_name((int32_t)dtype); }
