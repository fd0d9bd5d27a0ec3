"""infc — ctypes declarations of include/infc/runtime.h (ABI 1.x) and the dtype tables."""

import ctypes
import enum

import numpy as np

ABI_VERSION_MAJOR = 1
TENSOR_DEVICE = 1  # infc_tensor.flags: device memory (ABI 1.2)


class Status(enum.IntEnum):
    OK = 0
    INVALID_ARGUMENT = 1
    SHAPE_MISMATCH = 2
    DTYPE_MISMATCH = 3
    OUT_OF_MEMORY = 4
    UNAVAILABLE = 5
    VERSION_MISMATCH = 6
    INTERNAL = 7


# As infc_status_string() words them.
STATUS_TEXT = {
    Status.OK: "ok",
    Status.INVALID_ARGUMENT: "invalid argument",
    Status.SHAPE_MISMATCH: "shape mismatch",
    Status.DTYPE_MISMATCH: "dtype mismatch",
    Status.OUT_OF_MEMORY: "out of memory",
    Status.UNAVAILABLE: "unavailable",
    Status.VERSION_MISMATCH: "version mismatch",
    Status.INTERNAL: "internal error",
}


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("byte_size", ctypes.c_size_t),
        ("flags", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class IOInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int32),
        ("rank", ctypes.c_int32),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("byte_size", ctypes.c_size_t),
    ]


class DimInfo(ctypes.Structure):  # ABI 1.4
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("value", ctypes.c_int64),
        ("min", ctypes.c_int64),
        ("max", ctypes.c_int64),
    ]


class LlmInfo(ctypes.Structure):  # ABI 1.5
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("layers", ctypes.c_int32),
        ("heads", ctypes.c_int32),
        ("kv_heads", ctypes.c_int32),
        ("head_dim", ctypes.c_int32),
        ("block_tokens", ctypes.c_int32),
        ("vocab", ctypes.c_int64),
        ("max_step_tokens", ctypes.c_int64),
        ("max_blocks", ctypes.c_int32),
        ("free_blocks", ctypes.c_int32),
        ("kv_bytes_per_token", ctypes.c_int64),
        ("max_positions", ctypes.c_int64),
        ("drafted", ctypes.c_int64),  # ABI 1.6
        ("accepted", ctypes.c_int64),
    ]


class LlmSampling(ctypes.Structure):  # ABI 1.5
    _fields_ = [("temperature", ctypes.c_float), ("top_k", ctypes.c_int32),
                ("top_p", ctypes.c_float)]


class LlmGenerateOptions(ctypes.Structure):  # ABI 1.5
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("max_new_tokens", ctypes.c_int32),
        ("stop_tokens", ctypes.POINTER(ctypes.c_int64)),
        ("num_stop_tokens", ctypes.c_int32),
        ("sampling", LlmSampling),
        ("seed", ctypes.c_uint64),
        ("draft_tokens", ctypes.c_int32),  # ABI 1.6
        ("draft_ngram", ctypes.c_int32),
    ]


class SessionOptions(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("num_threads", ctypes.c_int32),
        ("error_buffer", ctypes.c_void_p),
        ("error_buffer_size", ctypes.c_size_t),
        ("cuda_stream", ctypes.c_void_p),  # ABI 1.2
        ("profile_path", ctypes.c_char_p),  # ABI 1.3
    ]


def _ml_dtype(name):
    # The 8-, 4- and 2-bit types (ABI 1.1) exist in numpy only through ml_dtypes.
    try:
        import ml_dtypes

        return np.dtype(getattr(ml_dtypes, name))
    except (ImportError, AttributeError):
        return None


def _bfloat16():
    # numpy has no bfloat16; ml_dtypes (shipped with jax/tensorflow) does. Without it bfloat16
    # tensors travel as their raw uint16 bits.
    try:
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    except ImportError:
        return np.dtype(np.uint16)


# infc_dtype code -> numpy dtype; the codes are ABI.
DTYPES = {
    1: np.dtype(np.float32),
    2: np.dtype(np.float64),
    3: np.dtype(np.float16),
    4: _bfloat16(),
    5: np.dtype(np.int8),
    6: np.dtype(np.int16),
    7: np.dtype(np.int32),
    8: np.dtype(np.int64),
    9: np.dtype(np.uint8),
    10: np.dtype(np.uint16),
    11: np.dtype(np.uint32),
    12: np.dtype(np.uint64),
    13: np.dtype(np.bool_),
}
for _code, _name in ((14, "float8_e4m3fn"), (15, "float8_e4m3fnuz"), (16, "float8_e5m2"),
                     (17, "float8_e5m2fnuz"), (18, "float4_e2m1fn"), (19, "int4"),
                     (20, "uint4"), (21, "int2"), (22, "uint2")):
    if _ml_dtype(_name) is not None:
        DTYPES[_code] = _ml_dtype(_name)
BF16_IS_RAW = DTYPES[4] == np.dtype(np.uint16)
# numpy dtype -> code; a uint16 array is U16 (a raw-bits bfloat16 is matched by the model's dtype).
CODES = {dt: code for code, dt in DTYPES.items() if not (code == 4 and BF16_IS_RAW)}

_p = ctypes.c_void_p
_size = ctypes.c_size_t
_status = ctypes.c_int
_SIGNATURES = {
    "infc_abi_version": (ctypes.c_uint32, []),
    "infc_status_string": (ctypes.c_char_p, [_status]),
    "infc_model_create": (_status, [ctypes.POINTER(_p)]),
    "infc_model_release": (None, [_p]),
    "infc_model_name": (ctypes.c_char_p, [_p]),
    "infc_model_num_inputs": (_size, [_p]),
    "infc_model_num_outputs": (_size, [_p]),
    "infc_model_workspace_bytes": (_size, [_p]),
    "infc_model_input_info": (_status, [_p, _size, ctypes.POINTER(IOInfo)]),
    "infc_model_output_info": (_status, [_p, _size, ctypes.POINTER(IOInfo)]),
    "infc_session_create": (_status, [_p, ctypes.POINTER(SessionOptions), ctypes.POINTER(_p)]),
    "infc_session_release": (None, [_p]),
    "infc_session_error": (ctypes.c_char_p, [_p]),
    "infc_session_num_threads": (ctypes.c_int32, [_p]),
    "infc_run": (_status, [_p, ctypes.POINTER(Tensor), _size, ctypes.POINTER(Tensor), _size]),
    "infc_run_named": (
        _status,
        [_p, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(Tensor), _size,
         ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(Tensor), _size],
    ),
}
# Functions of later minor versions: declared where the library has them.
_OPTIONAL_SIGNATURES = {
    "infc_session_end_profiling": (_status, [_p]),  # ABI 1.3
    "infc_model_input_dim": (_status, [_p, _size, ctypes.c_int32, ctypes.POINTER(DimInfo)]),  # 1.4
    "infc_model_output_dim": (_status, [_p, _size, ctypes.c_int32, ctypes.POINTER(DimInfo)]),
    "infc_session_prepare": (_status, [_p, ctypes.POINTER(Tensor), _size]),
    "infc_session_output_shape": (
        _status, [_p, _size, ctypes.POINTER(ctypes.c_int32),
                  ctypes.POINTER(ctypes.POINTER(ctypes.c_int64))]),
    "infc_llm_info": (_status, [_p, ctypes.POINTER(LlmInfo)]),  # ABI 1.5
    "infc_llm_open": (_status, [_p, ctypes.c_int32]),
    "infc_llm_sequence_add": (_status, [_p, ctypes.POINTER(ctypes.c_int32)]),
    "infc_llm_sequence_remove": (_status, [_p, ctypes.c_int32]),
    "infc_llm_sequence_length": (_status, [_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64)]),
    "infc_llm_seed": (ctypes.c_uint64, [ctypes.c_uint64]),
    "infc_llm_sample": (_status, [ctypes.POINTER(ctypes.c_float), ctypes.c_int64,
                                  ctypes.POINTER(LlmSampling), ctypes.POINTER(ctypes.c_uint64),
                                  ctypes.POINTER(ctypes.c_int64)]),
    "infc_llm_generate": (_status, [_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_int64), _size,
                                    ctypes.POINTER(LlmGenerateOptions),
                                    ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(_size)]),
    "infc_llm_step": (_status, [_p, _size, ctypes.POINTER(ctypes.c_int32),
                                ctypes.POINTER(ctypes.c_int32), ctypes.POINTER(ctypes.c_int64),
                                ctypes.POINTER(ctypes.c_float)]),
    "infc_llm_step_all": (_status, [_p, _size, ctypes.POINTER(ctypes.c_int32),  # ABI 1.6
                                    ctypes.POINTER(ctypes.c_int32),
                                    ctypes.POINTER(ctypes.c_int64),
                                    ctypes.POINTER(ctypes.c_float)]),
    "infc_llm_sequence_truncate": (_status, [_p, ctypes.c_int32, ctypes.c_int64]),
}


class LoadError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def open_library(path):
    """dlopen()s a model.so with its own symbol scope and declares the ABI on it."""
    try:
        # RTLD_LOCAL: every model.so carries its own runtime; they must not see each other.
        lib = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
    except OSError as e:
        raise LoadError(Status.UNAVAILABLE, f"cannot load '{path}': {e}") from None
    for name, (restype, argtypes) in _SIGNATURES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise LoadError(
                Status.UNAVAILABLE, f"'{path}' is not an infc model: missing symbol {name}"
            ) from None
        fn.restype = restype
        fn.argtypes = argtypes
    for name, (restype, argtypes) in _OPTIONAL_SIGNATURES.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = restype
            fn.argtypes = argtypes
    version = lib.infc_abi_version()
    if version >> 16 != ABI_VERSION_MAJOR:
        raise LoadError(
            Status.VERSION_MISMATCH,
            f"'{path}' has ABI {version >> 16}.{version & 0xFFFF}; this wrapper speaks "
            f"{ABI_VERSION_MAJOR}.x",
        )
    return lib
