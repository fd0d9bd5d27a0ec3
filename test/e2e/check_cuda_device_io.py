#!/usr/bin/env python3
"""Device memory and a caller's stream (ABI 1.2) for --target cuda, on the stand-in driver.

    check_cuda_device_io.py --infc BUILD/bin/infc --model M.onnx --inputs M.inputs.npz
                            --mock-driver libinfc_mock_cuda.so --work DIR

Compiles the model with --target cuda and drives it through the C ABI (ctypes) with the
stand-in driver (mock_cuda.c: device memory is host memory, kernels only logged), whose log
shows what reached the driver:
  - inputs and outputs in device memory (INFC_TENSOR_DEVICE) on the caller's stream
    (infc_session_options.cuda_stream): no copy at all; the CUDA graph's kernels are rebound
    to the caller's buffers (cuGraphExecKernelNodeSetParams: the replayed launches, logged
    with their pointers by MOCK_CUDA_LOG_ARGS, take every one of them), the graph is launched
    on the caller's stream, and the run returns without synchronizing; a later run with host
    memory rebinds the kernels to the session's buffers (none of the caller's left) and
    copies in and out;
  - the same without a graph (INFC_CUDA_GRAPHS=0): no copy (the kernels get the caller's
    buffers); but buffers 2 bytes off a 16-byte boundary (the kernels' vector loads assume
    16), with the graph or without, are copied device-to-device through the session's
    buffers, the outputs written back;
  - a host input with a device output still synchronizes (the host memory is done when the
    run returns);
  - a library-owned output (data NULL) with INFC_TENSOR_DEVICE, and unknown flags, are
    refused with a message;
  - so are, before anything reaches the GPU, a device input whose allocation ends before
    the tensor does, host memory flagged INFC_TENSOR_DEVICE (the driver does not know it),
    and a host input while the caller's stream is being captured into a graph (device
    memory then is copied through the session's buffers, the graph's kernels not rebound);
  - a driver that refuses the capture (MOCK_CUDA_FAIL_CAPTURE): the session launches each
    kernel per run instead (the device buffers used in place); with INFC_CUDA_GRAPHS=require
    the session is refused with a message instead;
  - a device busy at the first session (MOCK_CUDA_FAIL_RETAIN): that session fails with the
    driver's message, and the next one retains the context and runs;
  - a driver that refuses to rebind a kernel midway (MOCK_CUDA_FAIL_SET_PARAMS): the kernels
    are bound back to the session's buffers and the run copies through them instead;
  - the last session unloads the kernel modules and frees all it allocated, a later
    session loads them again, and dlclose of the .so then calls the driver no more;
  - the Python package with objects that have __cuda_array_interface__ (as CuPy and
    PyTorch CUDA tensors do) and a caller's stream: the same device-only run (the graph's
    kernels take the arrays), the given arrays returned; without out=, host outputs copied
    back and waited for.
Each stage runs in a child process (the driver is opened once per process). Prints PASS/FAIL
per stage and exits 1 on any failure.
"""

import argparse
import collections
import ctypes
import os
import subprocess
import sys

import numpy as np

sys.dont_write_bytecode = True
import harness  # noqa: E402

DEVICE = 1  # INFC_TENSOR_DEVICE


def open_mock(path):
    """The stand-in driver (the same instance the runtime dlopens) and a stream of it."""
    mock = ctypes.CDLL(path)
    mock.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    mock.cuStreamCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    stream = ctypes.c_void_p()
    mock.cuStreamCreate(ctypes.byref(stream), 0)
    return mock, stream


def device_copy(mock, array, shift=0):
    """A copy of `array` in the stand-in driver's device memory, `shift` bytes into an
    allocation; its address."""
    ptr = ctypes.c_uint64()
    mock.cuMemAlloc_v2(ctypes.byref(ptr), max(array.nbytes, 1) + shift)
    ctypes.memmove(ptr.value + shift, array.ctypes.data, array.nbytes)
    return ptr.value + shift


class FakeGpuArray:
    """What CuPy or a PyTorch CUDA tensor show the wrapper: __cuda_array_interface__ over
    (here, the stand-in driver's) device memory."""

    def __init__(self, mock, array):
        self.ptr, self.nbytes = device_copy(mock, array), array.nbytes
        self.__cuda_array_interface__ = {"shape": array.shape, "typestr": array.dtype.str,
                                         "data": (self.ptr, False), "strides": None,
                                         "version": 3}

    def bytes(self):
        return ctypes.string_at(self.ptr, self.nbytes)


def python_child(args):
    """The Python package with GPU arrays: device inputs and outputs on a caller's stream."""
    sys.path.insert(0, harness.DEFAULT_PYTHON_DIR)
    import infc
    mock, stream = open_mock(args.mock_driver)
    model = infc.load(args.so)
    session = model.session(cuda_stream=stream.value)
    inputs = {k: FakeGpuArray(mock, v) for k, v in np.load(args.inputs).items()}
    outs = {io.name: FakeGpuArray(mock, np.full(io.shape, 7, io.dtype))
            for io in model.outputs}
    open(args.log, "w").close()
    got = session.run(inputs, out=outs)
    ops = [line.split() for line in open(args.log)]
    names = [op[0] for op in ops]
    problems = []
    if any(got[k] is not outs[k] for k in outs):
        problems.append("run() did not return the given GPU arrays")
    if "dtod" in names or "htod" in names or "sync" in names:
        problems.append(f"device run: {collections.Counter(names)}")
    # The graph's kernels take the arrays themselves (zero copy).
    given = {a.ptr for a in list(inputs.values()) + list(outs.values())}
    if not given <= replayed_pointers(ops):
        problems.append("the graph's kernels do not take every given GPU array")
    # Host outputs (library-owned): copied back, and the run waits for them.
    open(args.log, "w").close()
    host = session.run(inputs)
    names = [line.split()[0] for line in open(args.log)]
    if names.count("dtoh") != len(outs) or "sync" not in names or \
            not all(isinstance(v, np.ndarray) for v in host.values()):
        problems.append(f"host outputs: {collections.Counter(names)}")
    print("; ".join(problems) if problems else "ok")
    return 1 if problems else 0


def input_name(lib, model, i):
    from infc import _abi
    info = _abi.IOInfo()
    lib.infc_model_input_info(model, i, ctypes.byref(info))
    return info.name.decode()


def child(args):
    """One stage, in this process: prints the stage's findings, exits 0 when they hold."""
    sys.path.insert(0, harness.DEFAULT_PYTHON_DIR)
    from infc import _abi
    mock, stream = open_mock(args.mock_driver)
    lib = _abi.open_library(args.so)
    inputs = dict(np.load(args.inputs))
    model = ctypes.c_void_p()
    assert lib.infc_model_create(ctypes.byref(model)) == 0
    err = ctypes.create_string_buffer(512)
    opts = _abi.SessionOptions(ctypes.sizeof(_abi.SessionOptions), 0,
                               ctypes.cast(err, ctypes.c_void_p), 512, stream)
    session = ctypes.c_void_p()
    st = lib.infc_session_create(model, ctypes.byref(opts), ctypes.byref(session))
    if args.stage == "busy-device":  # the context refused once: this session fails, the next runs
        first = err.value.decode()
        if st != 5 or "busy or unavailable" not in first:
            print(f"the first session: status {st}: {first}")
            return 1
        st = lib.infc_session_create(model, ctypes.byref(opts), ctypes.byref(session))
        if st == 0:
            print(f"the first session refused ({first}), the second created")
    if args.stage == "graph-required":  # the capture refused, and graphs required
        print(f"session: status {st}: {err.value.decode()}")
        return 0 if st == 5 and "INFC_CUDA_GRAPHS=require" in err.value.decode() else 1
    if st:
        print(f"session: status {st}: {err.value.decode()}")
        return 1

    n_in = lib.infc_model_num_inputs(model)
    n_out = lib.infc_model_num_outputs(model)
    keep = []
    shift = 2 if args.stage in ("misaligned", "misaligned-graph") else 0

    def tensor(info, data, flags):
        shape = (ctypes.c_int64 * max(info.rank, 1))(*[info.shape[k] for k in range(info.rank)])
        keep.append(shape)
        return _abi.Tensor(data, info.dtype, info.rank, shape, 0, flags, 0)

    ins = (_abi.Tensor * n_in)()
    for i in range(n_in):
        info = _abi.IOInfo()
        lib.infc_model_input_info(model, i, ctypes.byref(info))
        value = np.ascontiguousarray(inputs[info.name.decode()])
        keep.append(value)
        host_input = args.stage == "host-input" and i == 0
        ins[i] = tensor(info, value.ctypes.data if host_input
                        else device_copy(mock, value, shift), 0 if host_input else DEVICE)
    outs = (_abi.Tensor * n_out)()
    out_bytes = []
    for j in range(n_out):
        info = _abi.IOInfo()
        lib.infc_model_output_info(model, j, ctypes.byref(info))
        sentinel = np.full(info.byte_size, 0x5A, np.uint8)  # the mock's buffers start zeroed
        out_bytes.append(info.byte_size)
        outs[j] = tensor(info, device_copy(mock, sentinel, shift), DEVICE)
    if args.stage == "library-owned":
        outs[0].data = None
    if args.stage == "bad-flags":
        ins[0].flags = 6
    first = inputs[input_name(lib, model, 0)]
    if args.stage == "short-allocation":  # its last 16 bytes past the allocation's end
        ptr = ctypes.c_uint64()
        mock.cuMemAlloc_v2(ctypes.byref(ptr), first.nbytes)
        ins[0].data = ptr.value + 16
    if args.stage == "host-as-device":  # host memory flagged as device memory
        ins[0].data = first.ctypes.data
    if args.stage in ("captured-host", "captured-device"):  # the caller's stream capturing
        mock.cuStreamBeginCapture_v2.argtypes = [ctypes.c_void_p, ctypes.c_int]
        assert mock.cuStreamBeginCapture_v2(stream, 2) == 0
    if args.stage == "captured-host":  # and a host input
        ins[0].data, ins[0].flags = first.ctypes.data, 0
    # The session's own input and output buffers: its allocations after the workspace's.
    allocs = [int(op[2], 16) for op in (line.split() for line in open(args.log))
              if op[0] == "alloc"]
    first_io = 1 if lib.infc_model_workspace_bytes(model) else 0
    session_buffers = set(allocs[first_io:first_io + n_in + n_out])
    if len(session_buffers) != n_in + n_out:
        print(f"the session's buffers not found among its allocations: {allocs}")
        return 1
    open(args.log, "w").close()  # the run's calls only
    st = lib.infc_run(session, ins, n_in, outs, n_out)
    message = lib.infc_session_error(session).decode()
    refusals = {"library-owned": "library-owned output", "bad-flags": "flags and reserved",
                "short-allocation": "lies outside its allocation",
                "host-as-device": "is not memory the CUDA driver allocated",
                "captured-host": "is being captured"}
    if args.stage in refusals:
        # refused before anything reaches the GPU: no copy, no launch
        reached = [line.split()[0] for line in open(args.log)
                   if line.split()[0] not in ("pointer-attributes",)]
        ok = st == 1 and refusals[args.stage] in message and not reached
        print(f"status {st}: {message}" + (f"; the driver saw {reached}" if reached else ""))
        return 0 if ok else 1
    if st:
        print(f"run: status {st}: {message}")
        return 1
    if args.stage == "lifetime":
        return lifetime(args, lib, model, opts, session, ins, outs)
    ops = [line.split() for line in open(args.log)]
    names = [op[0] for op in ops]
    problems = []
    graphs = args.stage not in ("no-graph", "misaligned", "capture-fails")
    host_in = args.stage == "host-input"
    copied = args.stage in ("misaligned", "misaligned-graph", "rebind-refused",
                            "captured-device")
    want_dtod = (0 if not copied else (n_in - host_in) + n_out)
    # With the graph, in place means the graph's kernels rebound to the caller's buffers:
    # every one of them among the replayed launches' pointers (MOCK_CUDA_LOG_ARGS).
    rebound = graphs and not copied
    device_pointers = {t.data for t in list(ins)[host_in:] + list(outs)}
    if args.stage == "rebind-refused":  # bound back to the session's buffers, then copies
        if names.count("set-params") == 0 or device_pointers & replayed_pointers(ops):
            problems.append("after the refusal, the kernels were not bound back")
    elif rebound != ("set-params" in names):
        problems.append("kernels rebound" if not rebound else "no kernel rebound")
    if rebound and not device_pointers <= replayed_pointers(ops):
        problems.append("the graph's kernels do not take every caller's buffer")
    if rebound and not host_in and session_buffers & replayed_pointers(ops):
        problems.append("a graph kernel still takes a session buffer")
    if names.count("dtod") != want_dtod:
        problems.append(f"{names.count('dtod')} device-to-device copies, expected {want_dtod}")
    if names.count("htod") != host_in or "dtoh" in names:
        problems.append(f"host copies: {names.count('htod')} in, {names.count('dtoh')} out")
    if ("sync" in names) != host_in:
        problems.append("synchronized" if not host_in else "did not synchronize")
    if graphs != ("graph-launch" in names):
        problems.append("graph launch missing" if graphs else "a graph without graphs")
    if copied:  # the device outputs now hold the session's (zeroed) buffers
        for j in range(n_out):
            got = np.ctypeslib.as_array(ctypes.cast(outs[j].data, ctypes.POINTER(ctypes.c_uint8)),
                                        (out_bytes[j],))
            if out_bytes[j] and (got == 0x5A).all():
                problems.append(f"output {j} was not written")
    if args.stage == "device-then-host" and not problems:
        problems += host_after_device(args, lib, model, session, ins, outs, out_bytes, inputs,
                                      device_pointers, session_buffers)
    counts = ", ".join(f"{n} {op}" for op, n in collections.Counter(names).items())
    print("; ".join(problems) if problems else f"ok: {counts}")
    return 1 if problems else 0


def replayed_pointers(ops):
    """The pointers the graph replays passed its kernels (the mock's launch lines with
    MOCK_CUDA_LOG_ARGS: name, 6 dims, then the 8-byte parameters)."""
    return {int(v, 16) for op in ops if op[0] == "launch" for v in op[8:]}


def host_after_device(args, lib, model, session, ins, outs, out_bytes, inputs,
                      device_pointers, session_buffers):
    """After a run on the caller's device buffers, a run with host memory only: the graph's
    kernels are rebound to the session's buffers (none of the caller's left among the
    replay's pointers, the session's there), the inputs copied in and the outputs out."""
    from infc import _abi
    keep, host_ins, host_outs = [], (_abi.Tensor * len(ins))(), (_abi.Tensor * len(outs))()
    for i in range(len(ins)):
        value = np.ascontiguousarray(inputs[input_name(lib, model, i)])
        keep.append(value)
        host_ins[i] = _abi.Tensor(value.ctypes.data, ins[i].dtype, ins[i].rank, ins[i].shape,
                                  0, 0, 0)
    for j in range(len(outs)):
        buffer = np.empty(out_bytes[j], np.uint8)
        keep.append(buffer)
        host_outs[j] = _abi.Tensor(buffer.ctypes.data, outs[j].dtype, outs[j].rank,
                                   outs[j].shape, 0, 0, 0)
    open(args.log, "w").close()
    st = lib.infc_run(session, host_ins, len(ins), host_outs, len(outs))
    if st:
        return [f"the host run: status {st}: {lib.infc_session_error(session).decode()}"]
    ops = [line.split() for line in open(args.log)]
    names = [op[0] for op in ops]
    problems = []
    if "set-params" not in names:
        problems.append("the host run did not rebind the kernels")
    if device_pointers & replayed_pointers(ops):
        problems.append("the host run's kernels still take the caller's device buffers")
    if not session_buffers <= replayed_pointers(ops):
        problems.append("the host run's kernels do not take every session buffer")
    if names.count("htod") != len(ins) or names.count("dtoh") != len(outs):
        problems.append(f"the host run: {names.count('htod')} copies in, "
                        f"{names.count('dtoh')} out")
    return problems


def lifetime(args, lib, model, opts, session, ins, outs):
    """The last session gives back all the device holds of the model (the modules too), and
    a later session loads them again; dlclose then reaches the driver no more."""
    def ops():
        return [line.split()[0] for line in open(args.log)]

    def run_one_session():
        session = ctypes.c_void_p()
        st = lib.infc_session_create(model, ctypes.byref(opts), ctypes.byref(session))
        if st == 0:
            st = lib.infc_run(session, ins, len(ins), outs, len(outs))
        lib.infc_session_release(session)
        return st

    problems = []
    open(args.log, "w").close()
    lib.infc_session_release(session)
    first = ops()
    if first.count("unload") != 1 or "alloc" in first or "free" not in first:
        problems.append(f"the last session's destruction: {collections.Counter(first)}")
    open(args.log, "w").close()
    if run_one_session():
        problems.append("a second session after the first had gone failed to run")
    second = ops()
    counts = collections.Counter(second)
    if counts["load"] != 1 or counts["unload"] != 1 or counts["alloc"] != counts["free"] or \
            second[-1] != "unload":
        problems.append(f"a second session: {counts} (expected one load and one unload, "
                        "every allocation freed)")
    lib.infc_model_release(model)
    open(args.log, "w").close()
    import _ctypes
    _ctypes.dlclose(lib._handle)
    if ops():
        problems.append(f"dlclose reached the driver: {ops()}")
    print("; ".join(problems) if problems else f"ok: the second session: {dict(counts)}")
    return 1 if problems else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--infc")
    ap.add_argument("--model")
    ap.add_argument("--inputs", required=True)
    ap.add_argument("--mock-driver", required=True)
    ap.add_argument("--work")
    ap.add_argument("--stage", help=argparse.SUPPRESS)
    ap.add_argument("--so", help=argparse.SUPPRESS)
    ap.add_argument("--log", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.stage == "python":
        return python_child(args)
    if args.stage:
        return child(args)
    os.makedirs(args.work, exist_ok=True)
    so = os.path.join(args.work, "model.so")
    r = harness.run_tool([args.infc, "compile", args.model, "--target", "cuda", "-o", so], 600)
    if r.returncode:
        print(f"FAIL compile\n{r.describe()}")
        return 1
    failed = 0
    stages = ("device", "device-then-host", "no-graph", "misaligned", "misaligned-graph",
              "host-input", "library-owned", "bad-flags",
              "short-allocation", "host-as-device", "captured-host", "capture-fails",
              "captured-device", "graph-required", "busy-device", "rebind-refused", "lifetime",
              "python")
    for stage in stages:
        log = os.path.join(args.work, stage + ".log")
        env = dict(os.environ, INFC_CUDA_DRIVER=args.mock_driver, MOCK_CUDA_LOG=log,
                   MOCK_CUDA_LOG_ARGS="1")
        if stage in ("no-graph", "misaligned"):
            env["INFC_CUDA_GRAPHS"] = "0"
        if stage in ("capture-fails", "graph-required"):
            env["MOCK_CUDA_FAIL_CAPTURE"] = "1"
        if stage == "graph-required":
            env["INFC_CUDA_GRAPHS"] = "require"
        if stage == "busy-device":
            env["MOCK_CUDA_FAIL_RETAIN"] = "1"
        if stage == "rebind-refused":
            env["MOCK_CUDA_FAIL_SET_PARAMS"] = "2"  # the rebinding fails midway
        p = subprocess.run([sys.executable, __file__, "--stage", stage, "--so", so,
                            "--inputs", args.inputs, "--mock-driver", args.mock_driver,
                            "--log", log], capture_output=True, text=True, env=env, timeout=300)
        ok = p.returncode == 0
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {stage}: {p.stdout.strip()} {p.stderr.strip()[-2000:]}")
    print(f"{len(stages) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
