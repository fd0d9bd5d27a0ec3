"""infc — run compiled model.so files on numpy arrays, through the runtime's C ABI (ctypes).

    import infc
    infc.compile("model.onnx", "model.so", input_shape={"a": (2, 3)})  # runs `infc compile`
    m = infc.load("model.so", num_threads=2)
    m.inputs                     # (IOInfo(name='a', dtype=dtype('float32'), shape=(2, 3),
                                 #         dims=(Dim(...), ...)), ...)
    out = m(a=x, b=y)            # or m({"a": x, "b": y}) or m([x, y]): {name: array}
    m.run({"a": x, "b": y}, out={"sum": buf})   # write an output into your own array

A numpy array must have the input's dtype (no silent precision loss: a float64 array for a
float32 input is refused); Python lists and scalars are converted when numpy's 'same_kind'
casting allows. Arrays are made C-contiguous. Everything else is checked by the runtime, whose
message comes back in an infc.Error. For a model compiled with --target cuda, an input or
an `out=` array may also be GPU memory: any object with __cuda_array_interface__ (a CuPy
array, a PyTorch CUDA tensor), C-contiguous, on the model's device; no copy goes through the
host. `m.session(cuda_stream=s)` enqueues runs on the caller's stream (an int CUstream, or
an object with .cuda_stream or .ptr). Outputs are fresh numpy arrays the runtime writes into.
A Model is safe to call from several threads (its default session is locked); for parallel
runs give each thread its own m.session().
"""

import collections
import ctypes
import os
import threading

import numpy as np

from . import _abi
from ._abi import ABI_VERSION_MAJOR, Status
from ._compile import CompileError, compile, find_compiler

__all__ = ["load", "compile", "find_compiler", "Model", "Session", "IOInfo", "Dim", "Error",
           "CompileError", "Status", "ABI_VERSION_MAJOR"]

_INT64_MAX = 2**63 - 1


class Dim(collections.namedtuple("Dim", ["name", "value", "min", "max"])):
    """One dim of an input or output: its name in the model (ONNX dim_param) or None, its
    size or None where runs may pass several, and the sizes a run may pass (min..max; max is
    None when unbounded). Printed as the model says it: 3, batch=1, batch[1..64], seq, ?."""

    __slots__ = ()

    def __str__(self):
        if self.value is not None:
            return f"{self.name}={self.value}" if self.name else str(self.value)
        bounded = self.min > 0 or self.max is not None
        span = f"[{self.min}..{'' if self.max is None else self.max}]" if bounded else ""
        return f"{self.name or '?'}{span}"


# shape: a tuple of ints, None for a dynamic dim; dims: a Dim per dim (names and ranges).
IOInfo = collections.namedtuple("IOInfo", ["name", "dtype", "shape", "dims"])


class Error(RuntimeError):
    """A runtime call failed: .status is an infc.Status, str(e) the runtime's message."""

    def __init__(self, status, message):
        try:
            self.status = Status(status)
            text = _abi.STATUS_TEXT[self.status]
        except ValueError:  # a status newer than this wrapper
            self.status = int(status)
            text = f"status {status}"
        super().__init__(f"{text}: {message}")


def load(path, num_threads=0, profile=None):
    """Opens a compiled model.so and creates its default session. profile: a chrome-trace
    JSON file the session's runs are profiled into (see Session.end_profiling)."""
    return Model(path, num_threads=num_threads, profile=profile)


def _io_infos(handle, count, getter, dim_getter):
    """The IOInfo tuple and the raw infc dtype codes (raw-bits bfloat16 and uint16 share a
    numpy dtype, so the code is what the runtime is told). dim_getter: None for a library
    older than ABI 1.4 (its dims then have no names)."""
    infos, codes = [], []
    for i in range(count):
        info = _abi.IOInfo()
        _check(getter(handle, i, ctypes.byref(info)), "reading the model's signature")
        shape = tuple(None if info.shape[k] < 0 else int(info.shape[k]) for k in range(info.rank))
        dims = []
        for k, size in enumerate(shape):
            d = _abi.DimInfo()
            if dim_getter is None:
                d.min, d.max = (size, size) if size is not None else (0, _INT64_MAX)
            else:
                _check(dim_getter(handle, i, k, ctypes.byref(d)), "reading the model's dims")
            dims.append(Dim(d.name.decode() if d.name else None, size, int(d.min),
                            None if d.max == _INT64_MAX else int(d.max)))
        infos.append(IOInfo(info.name.decode(), _abi.DTYPES[info.dtype], shape, tuple(dims)))
        codes.append(info.dtype)
    return tuple(infos), tuple(codes)


class _DeviceArray:
    """A C-contiguous array in GPU memory, read from its __cuda_array_interface__."""

    def __init__(self, obj, what):
        iface = obj.__cuda_array_interface__
        self.shape = tuple(int(d) for d in iface["shape"])
        self.dtype = np.dtype(iface["typestr"])
        self.ptr, self.readonly = int(iface["data"][0]), bool(iface["data"][1])
        strides = iface.get("strides")
        dense = []
        step = self.dtype.itemsize
        for d in reversed(self.shape):
            dense.insert(0, step)
            step *= d
        if strides is not None and tuple(strides) != tuple(dense) and 0 not in self.shape:
            raise Error(Status.INVALID_ARGUMENT, f"{what}: a GPU array must be C-contiguous")
        self.ndim = len(self.shape)
        self.nbytes = step


def _stream_handle(stream):
    if stream is None:
        return None
    for attr in ("cuda_stream", "ptr"):
        if hasattr(stream, attr):
            return int(getattr(stream, attr))
    return int(stream)


def _merge_inputs(inputs, kwargs):
    """The positional dict/sequence form or the keyword form, not both."""
    if inputs is not None and kwargs:
        raise Error(Status.INVALID_ARGUMENT, "give the inputs as keywords or as one dict or "
                    "sequence, not both")
    return kwargs if inputs is None else inputs


def _prepare_error(lib):
    """': why' of a C source build's failed infc_model_create (--emit=c or --emit=cuda: a
    weights or kernels file it could not read, told by infc_weights_error), or ''."""
    try:
        fn = lib.infc_weights_error
    except AttributeError:
        return ""
    fn.restype = ctypes.c_char_p
    fn.argtypes = []
    why = fn()
    return f": {why.decode(errors='replace')}" if why else ""


def _check(status, what):
    if status != Status.OK:
        raise Error(status, what)


class _Closeable:
    """`with` support and release on garbage collection for classes with a close()."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass


class Model(_Closeable):
    """One model.so: its signature, and a default session that __call__/run use."""

    def __init__(self, path, num_threads=0, profile=None):
        self.path = str(path)
        self._handle = None
        self._session = None
        try:
            self._lib = _abi.open_library(self.path)
        except _abi.LoadError as e:
            raise Error(e.status, str(e)) from None
        handle = ctypes.c_void_p()
        status = self._lib.infc_model_create(ctypes.byref(handle))
        if status != Status.OK:
            raise Error(status, f"opening '{self.path}'" + _prepare_error(self._lib))
        self._handle = handle
        lib = self._lib
        self.name = lib.infc_model_name(handle).decode()
        self.workspace_bytes = lib.infc_model_workspace_bytes(handle)
        self.inputs, self._input_codes = _io_infos(
            handle, lib.infc_model_num_inputs(handle), lib.infc_model_input_info,
            getattr(lib, "infc_model_input_dim", None))
        self.outputs, self._output_codes = _io_infos(
            handle, lib.infc_model_num_outputs(handle), lib.infc_model_output_info,
            getattr(lib, "infc_model_output_dim", None))
        self._session = Session(self, num_threads, profile=profile)

    def session(self, num_threads=0, cuda_stream=None, profile=None):
        """A new, independent session (its own workspace): one per thread runs in parallel.
        cuda_stream (a --target cuda model): the CUstream its runs are enqueued on.
        profile: a chrome-trace JSON file its runs are profiled into."""
        return Session(self, num_threads, cuda_stream, profile)

    def end_profiling(self):
        """Writes the default session's trace and stops profiling; returns the file."""
        return self._session.end_profiling()

    def output_shapes(self, shapes=None, /, **kwargs):
        """The default session's Session.output_shapes."""
        if self._session is None:
            raise Error(Status.INVALID_ARGUMENT, f"model '{self.name}' is closed")
        return self._session.output_shapes(shapes, **kwargs)

    def run(self, inputs, out=None):
        """Runs the default session; see Session.run."""
        if self._session is None:
            raise Error(Status.INVALID_ARGUMENT, f"model '{self.name}' is closed")
        return self._session.run(inputs, out=out)

    def __call__(self, inputs=None, /, **kwargs):
        """m(a=x, b=y), m({"a": x, "b": y}) or m([x, y]): every keyword is an input."""
        return self.run(_merge_inputs(inputs, kwargs))

    @property
    def num_threads(self):
        return self._session.num_threads

    def generate(self, prompt, max_new_tokens, **kwargs):
        """Generation on the default session (a --decoder library); see Session.generate."""
        return self._session.generate(prompt, max_new_tokens, **kwargs)

    def stream(self, prompt, max_new_tokens, **kwargs):
        """Generation on the default session, token by token; see Session.stream."""
        return self._session.stream(prompt, max_new_tokens, **kwargs)

    def close(self):
        """Releases the default session and the model handle (sessions from session() keep the
        model alive until they are closed too)."""
        if self._session is not None:
            self._session.close()
            self._session = None
        if self._handle is not None:
            self._lib.infc_model_release(self._handle)
            self._handle = None

    def __repr__(self):
        def fmt(ios):
            return ", ".join(
                f"{io.name}: {io.dtype}[{','.join(str(d) for d in io.dims)}]"
                for io in ios)

        return f"<infc.Model '{self.name}' ({fmt(self.inputs)}) -> ({fmt(self.outputs)})>"


def _lookup_draft(history, ngram, limit):
    """Prompt lookup (the runtime's lookup_draft in sampling.c): the tokens (at most limit)
    after the most recent earlier occurrence of the longest n-gram, of at most `ngram`
    tokens, that ends `history`."""
    for n in range(min(ngram, len(history) - 1), 0, -1):
        suffix = history[len(history) - n:]
        for i in range(len(history) - n - 1, -1, -1):
            if history[i:i + n] == suffix:
                return history[i + n:i + n + limit]
    return []


class Session(_Closeable):
    """A runtime session: workspace and buffers allocated once; one run at a time (locked)."""

    def __init__(self, model, num_threads=0, cuda_stream=None, profile=None):
        self.model = model  # keeps the library and the model alive
        self._lib = model._lib
        self._handle = None
        self._lock = threading.Lock()
        self.profile = None if profile is None else os.fspath(profile)
        if self.profile is not None and not hasattr(self._lib, "infc_session_end_profiling"):
            raise Error(Status.UNAVAILABLE,
                        f"'{model.path}' predates profiling (ABI 1.3); compile it again")
        err = ctypes.create_string_buffer(512)
        opts = _abi.SessionOptions(ctypes.sizeof(_abi.SessionOptions), int(num_threads),
                                   ctypes.cast(err, ctypes.c_void_p), len(err),
                                   _stream_handle(cuda_stream),
                                   None if self.profile is None else os.fsencode(self.profile))
        handle = ctypes.c_void_p()
        status = self._lib.infc_session_create(model._handle, ctypes.byref(opts),
                                               ctypes.byref(handle))
        if status != Status.OK:
            raise Error(status, err.value.decode(errors="replace"))
        self._handle = handle
        self.num_threads = self._lib.infc_session_num_threads(handle)

    def run(self, inputs, out=None):
        """Runs the model and returns {output name: array}.

        inputs: {name: array} or a sequence in model input order.
        out: optional {output name: array} to write into (C-contiguous, writeable, of the
        output's dtype and shape); the other outputs are newly allocated.
        """
        named = self._named_inputs(inputs)
        index = {io.name: i for i, io in enumerate(self.model.inputs)}
        keep = []  # the arrays and shapes the C call points into
        in_names = (ctypes.c_char_p * max(len(named), 1))()
        in_tensors = (_abi.Tensor * max(len(named), 1))()
        for k, (name, value) in enumerate(named.items()):
            if hasattr(value, "__cuda_array_interface__"):
                arr = _DeviceArray(value, f"input '{name}'")
                io = self.model.inputs[index[name]] if name in index else None
                code = (self.model._input_codes[index[name]] if io and arr.dtype == io.dtype
                        else _abi.CODES.get(arr.dtype, 0))
                keep.append(value)
                in_names[k] = name.encode()
                in_tensors[k] = self._tensor(arr, code, keep)
                continue
            arr, code = self._to_array(value, index.get(name), name)
            keep.append(arr)
            in_names[k] = name.encode()
            in_tensors[k] = self._tensor(arr, code, keep)

        out = dict(out or {})
        results = {}
        library_owned = []
        outs = self.model.outputs
        out_names = (ctypes.c_char_p * max(len(outs), 1))()
        out_tensors = (_abi.Tensor * max(len(outs), 1))()
        for j, io in enumerate(outs):
            if io.name in out and hasattr(out[io.name], "__cuda_array_interface__"):
                results[io.name] = obj = out.pop(io.name)
                arr = _DeviceArray(obj, f"out['{io.name}']")
                if arr.readonly:
                    raise Error(Status.INVALID_ARGUMENT, f"out['{io.name}'] is read-only")
                code = (self.model._output_codes[j] if arr.dtype == io.dtype
                        else _abi.CODES.get(arr.dtype, 0))
                keep.append(obj)
                out_names[j] = io.name.encode()
                out_tensors[j] = self._tensor(arr, code, keep)
                continue
            if io.name in out:
                arr = out.pop(io.name)
                if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous or \
                        not arr.flags.writeable:
                    raise Error(Status.INVALID_ARGUMENT, f"out['{io.name}'] must be a "
                                "writeable C-contiguous numpy array")
                code = (self.model._output_codes[j] if arr.dtype == io.dtype
                        else _abi.CODES.get(arr.dtype))
                if code is None:
                    raise Error(Status.DTYPE_MISMATCH, f"out['{io.name}']: dtype {arr.dtype} "
                                f"has no infc equivalent, expected {io.dtype}")
            elif None in io.shape:
                # A dim that varies (a --specialize library): the session's buffer, copied
                # out once the run has set its shape.
                library_owned.append(j)
                out_names[j] = io.name.encode()
                continue
            else:
                arr = np.empty(io.shape, dtype=io.dtype)
                code = self.model._output_codes[j]
            keep.append(arr)
            results[io.name] = arr
            out_names[j] = io.name.encode()
            out_tensors[j] = self._tensor(arr, code, keep)
        if out:
            raise Error(Status.INVALID_ARGUMENT, f"out: the model has no output "
                        f"'{next(iter(out))}' (outputs: {', '.join(io.name for io in outs)})")

        with self._lock:
            if self._handle is None:
                raise Error(Status.INVALID_ARGUMENT, "session is closed")
            status = self._lib.infc_run_named(self._handle, in_names, in_tensors, len(named),
                                              out_names, out_tensors, len(outs))
            if status != Status.OK:
                raise Error(status, self._lib.infc_session_error(self._handle).decode())
            for j in library_owned:  # before the next run reuses the buffers
                t, io = out_tensors[j], outs[j]
                shape = tuple(t.shape[k] for k in range(t.rank))
                arr = np.empty(shape, dtype=io.dtype)
                if t.byte_size:
                    ctypes.memmove(arr.ctypes.data, t.data, t.byte_size)
                results[io.name] = arr
        return {io.name: results[io.name] for io in outs if io.name in results}

    def __call__(self, inputs=None, /, **kwargs):
        """s(a=x, b=y), s({"a": x, "b": y}) or s([x, y]): every keyword is an input."""
        return self.run(_merge_inputs(inputs, kwargs))

    def _named_inputs(self, inputs):
        if inputs is None:
            return {}
        if isinstance(inputs, dict):
            return dict(inputs)
        values = list(inputs)
        if len(values) > len(self.model.inputs):
            raise Error(Status.INVALID_ARGUMENT, f"{len(values)} inputs given, the model has "
                        f"{len(self.model.inputs)}")
        return {io.name: v for io, v in zip(self.model.inputs, values)}

    def _to_array(self, value, index, name):
        """The C-contiguous array to pass for input `name` (model input `index`, or None if
        the model has no such input) and its infc dtype code."""
        arr = np.asarray(value)
        io = None if index is None else self.model.inputs[index]
        # Only values without a dtype of their own (lists, Python scalars) are converted.
        if io is not None and not isinstance(value, (np.ndarray, np.generic)) and \
                arr.dtype != io.dtype and np.can_cast(arr.dtype, io.dtype, casting="same_kind"):
            arr = arr.astype(io.dtype)
        arr = np.require(arr, requirements="C")  # unlike ascontiguousarray, keeps 0-d arrays 0-d
        if io is not None and arr.dtype == io.dtype:
            return arr, self.model._input_codes[index]
        code = _abi.CODES.get(arr.dtype)
        if code is None:
            raise Error(Status.DTYPE_MISMATCH, f"input '{name}': dtype {arr.dtype} has no infc "
                        f"equivalent" + (f", expected {io.dtype}" if io else ""))
        return arr, code  # the runtime reports the mismatch (or the unknown name)

    @staticmethod
    def _tensor(arr, code, keep):
        shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
        keep.append(shape)
        device = isinstance(arr, _DeviceArray)
        return _abi.Tensor(arr.ptr if device else arr.ctypes.data, code, arr.ndim,
                           ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), arr.nbytes,
                           _abi.TENSOR_DEVICE if device else 0, 0)

    def output_shapes(self, shapes=None, /, **kwargs):
        """The output shapes a run with inputs of these shapes produces, checked as a run
        checks them (named dims, ranges, variants): output_shapes(x=(4, 3, 224, 224)) or
        output_shapes({"x": (4, 3, 224, 224)}) gives {output name: shape}. Every input's
        shape is needed; a --specialize library's output shapes follow them."""
        shapes = _merge_inputs(shapes, kwargs)
        if isinstance(shapes, dict):
            shapes = dict(shapes)
        else:
            shapes = {io.name: s for io, s in zip(self.model.inputs, shapes)}
        keep = []
        tensors = (_abi.Tensor * max(len(self.model.inputs), 1))()
        for i, io in enumerate(self.model.inputs):
            if io.name not in shapes:
                raise Error(Status.INVALID_ARGUMENT, f"output_shapes: input '{io.name}' is "
                            "missing")
            dims = tuple(int(d) for d in shapes.pop(io.name))
            shape = (ctypes.c_int64 * max(len(dims), 1))(*dims)
            keep.append(shape)
            tensors[i] = _abi.Tensor(None, self.model._input_codes[i], len(dims),
                                     ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), 0, 0, 0)
        if shapes:
            raise Error(Status.INVALID_ARGUMENT, "output_shapes: the model has no input "
                        f"'{next(iter(shapes))}'")
        with self._lock:
            if self._handle is None:
                raise Error(Status.INVALID_ARGUMENT, "the session is closed")
            if not hasattr(self._lib, "infc_session_prepare"):
                raise Error(Status.UNAVAILABLE, f"'{self.model.path}' predates ABI 1.4; "
                            "compile it again")
            status = self._lib.infc_session_prepare(self._handle, tensors,
                                                    len(self.model.inputs))
            if status != Status.OK:
                raise Error(status, self._lib.infc_session_error(self._handle).decode(
                    errors="replace"))
            result = {}
            for j, io in enumerate(self.model.outputs):
                rank, shape = ctypes.c_int32(), ctypes.POINTER(ctypes.c_int64)()
                _check(self._lib.infc_session_output_shape(self._handle, j, ctypes.byref(rank),
                                                           ctypes.byref(shape)),
                       "reading an output shape")
                result[io.name] = tuple(int(shape[k]) for k in range(rank.value))
            return result

    def end_profiling(self):
        """Writes the trace (chrome://tracing, ui.perfetto.dev) and stops profiling; returns
        its path. Closing a profiling session writes it too."""
        with self._lock:
            if self._handle is None:
                raise Error(Status.INVALID_ARGUMENT, "the session is closed")
            if not hasattr(self._lib, "infc_session_end_profiling"):
                raise Error(Status.UNAVAILABLE, f"'{self.model.path}' predates profiling")
            status = self._lib.infc_session_end_profiling(self._handle)
            if status != Status.OK:
                raise Error(status, self._lib.infc_session_error(self._handle).decode(
                    errors="replace"))
            path, self.profile = self.profile, None
            return path

    # ---- Decoder LLMs (a library compiled with `infc compile --decoder`; ABI 1.5) ----

    def _llm_call(self, name, *args):
        if self._handle is None:
            raise Error(Status.INVALID_ARGUMENT, "the session is closed")
        fn = getattr(self._lib, name, None)
        if fn is None:
            since = "1.6" if name in ("infc_llm_step_all", "infc_llm_sequence_truncate") else "1.5"
            raise Error(Status.UNAVAILABLE, f"'{self.model.path}' has no {name} (ABI {since}); "
                                            "compile it again")
        status = fn(self._handle, *args)
        if status != Status.OK:
            raise Error(status, self._lib.infc_session_error(self._handle).decode(
                errors="replace"))

    def llm_info(self):
        """The decoder's geometry and the KV cache's use, as a dict."""
        with self._lock:
            info = _abi.LlmInfo(ctypes.sizeof(_abi.LlmInfo))
            self._llm_call("infc_llm_info", ctypes.byref(info))
            return {name: getattr(info, name) for name, _ in _abi.LlmInfo._fields_
                    if name != "struct_size"}

    def llm_open(self, max_blocks):
        """Reserves the KV cache: max_blocks blocks of llm_info()['block_tokens'] positions."""
        with self._lock:
            self._llm_call("infc_llm_open", int(max_blocks))

    def _open_for(self, tokens, max_blocks):
        """Opens the cache unless it is: max_blocks, or room for `tokens` and at least 4096
        positions (what one generate then has to stay within)."""
        with self._lock:
            info = _abi.LlmInfo(ctypes.sizeof(_abi.LlmInfo))
            self._llm_call("infc_llm_info", ctypes.byref(info))
            if info.max_blocks == 0:
                blocks = max_blocks if max_blocks is not None else \
                    -(-max(tokens, 4096) // info.block_tokens)
                self._llm_call("infc_llm_open", int(blocks))

    def add_sequence(self):
        """A new, empty sequence; returns its id."""
        with self._lock:
            seq = ctypes.c_int32()
            self._llm_call("infc_llm_sequence_add", ctypes.byref(seq))
            return seq.value

    def remove_sequence(self, seq):
        """Frees the sequence's KV blocks."""
        with self._lock:
            self._llm_call("infc_llm_sequence_remove", int(seq))

    def sequence_length(self, seq):
        with self._lock:
            n = ctypes.c_int64()
            self._llm_call("infc_llm_sequence_length", int(seq), ctypes.byref(n))
            return n.value

    def truncate_sequence(self, seq, length):
        """Keeps the sequence's first `length` positions and frees the blocks past them (ABI
        1.6): its next step continues at position `length`."""
        with self._lock:
            self._llm_call("infc_llm_sequence_truncate", int(seq), int(length))

    def step(self, tokens_by_sequence, all_logits=False):
        """One step: {sequence id: new token ids}; returns {id: the float32 logits after its
        last new token}, or with all_logits ([count, vocab]) those after each of its new
        tokens (ABI 1.6)."""
        ids = [int(k) for k in tokens_by_sequence]
        chunks = [np.asarray(v, dtype=np.int64).reshape(-1) for v in tokens_by_sequence.values()]
        tokens = np.ascontiguousarray(np.concatenate(chunks)) if chunks else np.zeros(0, np.int64)
        with self._lock:
            info = _abi.LlmInfo(ctypes.sizeof(_abi.LlmInfo))
            self._llm_call("infc_llm_info", ctypes.byref(info))
            rows = tokens.size if all_logits else len(ids)
            logits = np.empty((rows, info.vocab), np.float32)
            c_ids = (ctypes.c_int32 * len(ids))(*ids)
            counts = (ctypes.c_int32 * len(ids))(*[len(c) for c in chunks])
            self._llm_call("infc_llm_step_all" if all_logits else "infc_llm_step", len(ids),
                           c_ids, counts, tokens.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                           logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        if not all_logits:
            return dict(zip(ids, logits))
        starts = np.cumsum([0] + [len(c) for c in chunks])
        return {k: logits[starts[i]:starts[i + 1]] for i, k in enumerate(ids)}

    def _check_drafts(self, draft_tokens, draft_ngram):
        if not 0 <= int(draft_tokens) <= 64 or not 0 <= int(draft_ngram) <= 64:
            raise Error(Status.INVALID_ARGUMENT,
                        "draft_tokens and draft_ngram must be in [0, 64]")
        if draft_tokens and not hasattr(self._lib, "infc_llm_step_all"):
            raise Error(Status.UNAVAILABLE, f"'{self.model.path}' predates speculative "
                                            "decoding (ABI 1.6)")

    def stream(self, prompt, max_new_tokens, stop=(), temperature=0.0, top_k=0, top_p=1.0,
               seed=0, max_blocks=None, draft_tokens=0, draft_ngram=0):
        """Generation from `prompt` (token ids), one token at a time: yields each new token
        until max_new_tokens or a token in `stop` (yielded too). Greedy at temperature 0;
        else each token is drawn at the temperature from the top_k most likely (0: all) and
        the fewest of them whose probability reaches top_p, by the runtime's generator seeded
        with `seed` (the same tokens as generate with the same arguments). draft_tokens > 0
        turns on prompt-lookup speculative decoding as in generate (the same tokens in fewer
        steps, which then come in bursts). The sequence is removed at the end. The
        session's cache is opened at the first generate that finds it closed: max_blocks
        blocks, or room for this sequence and at least 4096 positions (open it yourself,
        llm_open, to choose)."""
        prompt = [int(t) for t in prompt]
        stop = {int(t) for t in stop}
        if not prompt or max_new_tokens < 1:
            raise Error(Status.INVALID_ARGUMENT,
                        "stream: needs a prompt and max_new_tokens of at least 1")
        if not hasattr(self._lib, "infc_llm_sample"):
            raise Error(Status.UNAVAILABLE, f"'{self.model.path}' predates decoders (ABI 1.5)")
        self._check_drafts(draft_tokens, draft_ngram)
        self._open_for(len(prompt) + max_new_tokens, max_blocks)
        params = _abi.LlmSampling(float(temperature), int(top_k), float(top_p))
        state = ctypes.c_uint64(self._lib.infc_llm_seed(int(seed)))
        ngram = int(draft_ngram) or 3
        seq = self.add_sequence()
        try:
            history = list(prompt)
            rows = self.step({seq: prompt})[seq][None]
            drafts = []
            made = 0
            while True:
                # Each row's token as plain decoding would choose it, kept while the next
                # row's input was that token (infc_llm_generate's loop).
                for j in range(len(rows)):
                    logits = rows[j]
                    token = ctypes.c_int64()
                    status = self._lib.infc_llm_sample(
                        logits.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), logits.size,
                        ctypes.byref(params), ctypes.byref(state), ctypes.byref(token))
                    if status != Status.OK:
                        raise Error(status, "infc_llm_sample: a NaN or +inf logit, or a "
                                            "parameter out of range (temperature finite and "
                                            ">= 0, top_k >= 0, top_p in [0, 1])")
                    made += 1
                    history.append(token.value)
                    yield token.value
                    if token.value in stop or made == max_new_tokens:
                        return
                    if j == len(drafts) or drafts[j] != token.value:
                        break
                if j < len(drafts):  # the drafts after the first miss leave the cache
                    self.truncate_sequence(seq, self.sequence_length(seq) - len(drafts) + j)
                limit = min(int(draft_tokens), max_new_tokens - made - 1, self._room(seq) - 1)
                drafts = _lookup_draft(history, ngram, limit) if limit > 0 else []
                feed = [history[-1]] + drafts
                rows = (self.step({seq: feed}, all_logits=True)[seq] if drafts
                        else self.step({seq: feed})[seq][None])
        finally:
            if self._handle is not None:
                self.remove_sequence(seq)

    def _room(self, seq):
        """Positions sequence `seq` can still take in a step (the runtime's infc__llm_room):
        its blocks' free slots and the free blocks, up to max_positions. (A sequence whose
        step failed in the model keeps the blocks it reserved, which this counts as free
        slots of no block: fewer drafts then, never other tokens.)"""
        info = self.llm_info()
        length = self.sequence_length(seq)
        room = (-(-length // info["block_tokens"]) + info["free_blocks"]) * \
            info["block_tokens"] - length
        if info["max_positions"] > 0:
            room = min(room, info["max_positions"] - length)
        return max(room, 0)

    def generate(self, prompt, max_new_tokens, stop=(), temperature=0.0, top_k=0, top_p=1.0,
                 seed=0, max_blocks=None, draft_tokens=0, draft_ngram=0):
        """The new tokens as a list: the runtime's generation loop (infc_llm_generate), the
        same tokens as stream with the same arguments. draft_tokens > 0: prompt-lookup
        speculative decoding (ABI 1.6): up to draft_tokens tokens that followed an earlier
        occurrence of the sequence's last n-gram (at most draft_ngram tokens, 3 when 0) are
        checked in the same step as the last token; the tokens are those of plain decoding,
        in fewer steps (llm_info()'s drafted and accepted count the drafts)."""
        prompt = np.ascontiguousarray(np.asarray(prompt, dtype=np.int64).reshape(-1))
        if prompt.size == 0:
            raise Error(Status.INVALID_ARGUMENT, "generate: the prompt is empty")
        self._check_drafts(draft_tokens, draft_ngram)
        self._open_for(prompt.size + max_new_tokens, max_blocks)
        stops = np.ascontiguousarray(np.asarray(list(stop), dtype=np.int64))
        opts = _abi.LlmGenerateOptions(
            ctypes.sizeof(_abi.LlmGenerateOptions), int(max_new_tokens),
            stops.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), stops.size,
            _abi.LlmSampling(float(temperature), int(top_k), float(top_p)), int(seed),
            int(draft_tokens), int(draft_ngram))
        out = np.zeros(max(int(max_new_tokens), 1), np.int64)
        count = ctypes.c_size_t()
        seq = self.add_sequence()
        try:
            with self._lock:
                self._llm_call("infc_llm_generate", seq,
                               prompt.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), prompt.size,
                               ctypes.byref(opts),
                               out.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)),
                               ctypes.byref(count))
        finally:
            if self._handle is not None:
                self.remove_sequence(seq)
        return [int(t) for t in out[:count.value]]

    def close(self):
        with self._lock:
            if self._handle is not None:
                self._lib.infc_session_release(self._handle)
                self._handle = None

