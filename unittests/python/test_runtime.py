"""infc unit tests — the Python wrapper (python/infc) against the fake model.so files.

CTest sets INFC_TEST_MODEL (fake_add: sum = a + b, row_sum, total), INFC_TEST_MODEL2 (doubler:
y = 2 * x on int32[4]) and INFC_TEST_FUTURE_ABI (a library claiming ABI major 2), and PYTHONPATH
to python/. By hand: INFC_TEST_MODEL=... python3 -m pytest unittests/python/test_runtime.py
"""

import os
import subprocess
import threading

import numpy as np
import pytest

import infc

MODEL = os.environ.get("INFC_TEST_MODEL")
MODEL2 = os.environ.get("INFC_TEST_MODEL2")
FUTURE_ABI = os.environ.get("INFC_TEST_FUTURE_ABI")
pytestmark = pytest.mark.skipif(not MODEL, reason="INFC_TEST_MODEL is not set")

A = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
B = np.array([10, 20, 30], dtype=np.float32)


@pytest.fixture
def model():
    with infc.load(MODEL) as m:
        yield m


def check_results(out, a=A, b=B):
    want = a + b
    np.testing.assert_array_equal(out["sum"], want)
    assert out["sum"].dtype == np.float32
    np.testing.assert_array_equal(out["row_sum"], want.sum(axis=1).astype(np.int64))
    assert out["row_sum"].dtype == np.int64
    assert out["total"].shape == () and out["total"].dtype == np.float64
    assert out["total"] == want.astype(np.float64).sum()


def test_introspection(model):
    assert model.name == "fake_add"
    assert model.workspace_bytes == 100
    assert [(io.name, io.dtype, io.shape) for io in model.inputs] == [
        ("a", np.dtype(np.float32), (2, 3)),
        ("b", np.dtype(np.float32), (3,)),
    ]
    assert model.inputs[0].dims == (infc.Dim(None, 2, 2, 2), infc.Dim(None, 3, 3, 3))
    assert [io.name for io in model.outputs] == ["sum", "row_sum", "total"]
    assert model.outputs[1].dtype == np.int64
    assert model.outputs[2].shape == ()
    assert model.num_threads >= 1  # 0 asked for the default: all usable CPUs
    assert repr(model) == ("<infc.Model 'fake_add' (a: float32[2,3], b: float32[3]) -> "
                           "(sum: float32[2,3], row_sum: int64[2], total: float64[])>")


def test_output_shapes_checks_like_a_run(model):
    assert model.output_shapes(a=(2, 3), b=(3,)) == {"sum": (2, 3), "row_sum": (2,),
                                                     "total": ()}
    with pytest.raises(infc.Error) as e:
        model.output_shapes(a=(2, 4), b=(3,))
    assert e.value.status == infc.Status.SHAPE_MISMATCH
    assert "input 0 'a': dim 1 is 4, expected 3" in str(e.value)
    with pytest.raises(infc.Error, match="input 'b' is missing"):
        model.output_shapes(a=(2, 3))


def test_dims_print_as_the_model_says_them():
    assert [str(d) for d in (infc.Dim(None, 3, 3, 3), infc.Dim("batch", 1, 1, 1),
                             infc.Dim("batch", None, 1, 64), infc.Dim("seq", None, 0, None),
                             infc.Dim(None, None, 0, None), infc.Dim("n", None, 2, None))] == \
        ["3", "batch=1", "batch[1..64]", "seq", "?", "n[2..]"]


def test_status_text_matches_the_runtime(model):
    for status in infc.Status:
        assert model._lib.infc_status_string(status).decode() == str(infc.Error(status, "x"))[:-3]
    assert str(infc.Error(42, "later")) == "status 42: later"


def test_run_forms(model):
    check_results(model(a=A, b=B))
    check_results(model({"a": A, "b": B}))
    check_results(model([A, B]))
    check_results(model.run({"a": A, "b": B}))
    check_results(model.run([A, B]))
    with pytest.raises(infc.Error, match="not both"):
        model({"a": A}, b=B)


def test_inputs_are_converted(model):
    # Python lists (int64 / float64) cast to float32; a transposed view made contiguous.
    check_results(model(a=[[1, 2, 3], [4, 5, 6]], b=[10.0, 20.0, 30.0]))
    # A numpy array keeps its dtype: float64 is refused, not silently rounded.
    with pytest.raises(infc.Error) as e:
        model(a=A.astype(np.float64), b=B)
    assert e.value.status == infc.Status.DTYPE_MISMATCH
    assert str(e.value) == "dtype mismatch: input 0 'a': dtype float64 (2), expected float32"
    at = np.asfortranarray(A)
    assert not at.flags.c_contiguous
    check_results(model(a=at, b=B))
    check_results(model(a=A.T.copy().T, b=B[::-1][::-1]))


def test_results_are_fresh_arrays(model):
    r1 = model(a=A, b=B)
    r2 = model(a=A * 2, b=B)
    check_results(r1)
    check_results(r2, a=A * 2)
    assert not np.shares_memory(r1["sum"], r2["sum"])


def test_out_arrays(model):
    s = np.zeros((2, 3), np.float32)
    out = model.run({"a": A, "b": B}, out={"sum": s})
    assert out["sum"] is s
    np.testing.assert_array_equal(s, A + B)
    with pytest.raises(infc.Error) as e:
        model.run({"a": A, "b": B}, out={"sum": np.zeros((2, 3), np.float64)})
    assert e.value.status == infc.Status.DTYPE_MISMATCH
    assert "output 0 'sum': dtype float64 (2), expected float32" in str(e.value)
    with pytest.raises(infc.Error) as e:
        model.run({"a": A, "b": B}, out={"row_sum": np.zeros(3, np.int64)})
    assert e.value.status == infc.Status.SHAPE_MISMATCH
    assert "output 1 'row_sum': dim 0 is 3, expected 2" in str(e.value)
    with pytest.raises(infc.Error, match="writeable C-contiguous"):
        model.run({"a": A, "b": B}, out={"sum": np.zeros((3, 2), np.float32).T})
    with pytest.raises(infc.Error, match="no output 'nope'"):
        model.run({"a": A, "b": B}, out={"nope": s})
    with pytest.raises(infc.Error, match="overlaps input 0 'a'"):
        a = A.copy()
        model.run({"a": a, "b": B}, out={"sum": a})


def test_validation_errors(model):
    with pytest.raises(infc.Error) as e:
        model(a=np.zeros((2, 4), np.float32), b=B)
    assert e.value.status == infc.Status.SHAPE_MISMATCH
    assert str(e.value) == ("shape mismatch: input 0 'a': dim 1 is 4, expected 3 "
                            "(shape [2,4], expected [2,3])")
    with pytest.raises(infc.Error) as e:
        model(a=A, b=np.zeros((1, 3), np.float32))
    assert e.value.status == infc.Status.SHAPE_MISMATCH
    assert "input 1 'b': rank 2, expected 1" in str(e.value)
    with pytest.raises(infc.Error) as e:
        model(a=A)
    assert e.value.status == infc.Status.INVALID_ARGUMENT
    assert "input 1 'b' is missing" in str(e.value)
    with pytest.raises(infc.Error, match="the model has no input 'c'"):
        model(a=A, b=B, c=B)
    with pytest.raises(infc.Error, match="3 inputs given, the model has 2"):
        model.run([A, B, B])
    with pytest.raises(infc.Error) as e:
        model()
    assert "input 0 'a' is missing" in str(e.value)
    with pytest.raises(infc.Error) as e:
        model(a=A, b=np.zeros(3, np.complex64))
    assert e.value.status == infc.Status.DTYPE_MISMATCH
    # The session is fine after errors.
    check_results(model(a=A, b=B))


def test_dtype_conversions():
    with infc.load(MODEL2) as m:
        np.testing.assert_array_equal(m(x=np.array([1, 2, 3, -4], np.int32))["y"], [2, 4, 6, -8])
        # A list of ints (int64) -> int32 is a same_kind cast: converted.
        np.testing.assert_array_equal(m(x=[1, 2, 3, 4])["y"], [2, 4, 6, 8])
        # A list of floats is not: passed as float64 and refused by the runtime.
        with pytest.raises(infc.Error, match="dtype float64"):
            m(x=[1.5, 2, 3, 4])
        with pytest.raises(infc.Error) as e:
            m(x=np.ones(4, np.int64))
        assert "input 0 'x': dtype int64 (8), expected int32" in str(e.value)
        with pytest.raises(infc.Error) as e:
            m(x=np.ones(4))
        assert e.value.status == infc.Status.DTYPE_MISMATCH
        assert str(e.value) == "dtype mismatch: input 0 'x': dtype float64 (2), expected int32"


def test_num_threads():
    with infc.load(MODEL, num_threads=3) as m:
        assert m.num_threads == 3
        with m.session(num_threads=2) as s:
            assert s.num_threads == 2
            check_results(s(a=A, b=B))
    with pytest.raises(infc.Error) as e:
        infc.load(MODEL, num_threads=-1)
    assert e.value.status == infc.Status.INVALID_ARGUMENT
    assert "num_threads is -1, must be >= 0" in str(e.value)


def test_profile(tmp_path):
    import json
    path = tmp_path / "trace.json"
    with infc.load(MODEL, profile=path) as m:
        check_results(m(a=A, b=B))
        check_results(m(a=A, b=B))
        assert m.end_profiling() == str(path)
        check_results(m(a=A, b=B))  # not profiled any more
        with pytest.raises(infc.Error) as e:
            m.end_profiling()
        assert e.value.status == infc.Status.INVALID_ARGUMENT
        assert "does not profile" in str(e.value)
    trace = json.loads(path.read_text())
    runs = [e for e in trace["traceEvents"] if e.get("cat") == "run"]
    assert [e["args"]["run"] for e in runs] == [0, 1]
    # The fake model has no profiled entry: whole runs only, and the trace says why.
    assert trace["otherData"]["runs"] == 2
    assert "--profile" in trace["otherData"]["events"]
    # A session of its own, written when it closes.
    other = tmp_path / "other.json"
    with infc.load(MODEL) as m, m.session(profile=other) as s:
        check_results(s(a=A, b=B))
    assert json.loads(other.read_text())["otherData"]["runs"] == 1


def test_load_errors():
    with pytest.raises(infc.Error) as e:
        infc.load("/nonexistent/model.so")
    assert e.value.status == infc.Status.UNAVAILABLE
    assert "cannot load '/nonexistent/model.so'" in str(e.value)
    with pytest.raises(infc.Error) as e:
        infc.load("libm.so.6")
    assert e.value.status == infc.Status.UNAVAILABLE
    assert "not an infc model: missing symbol infc_abi_version" in str(e.value)
    if FUTURE_ABI:
        with pytest.raises(infc.Error) as e:
            infc.load(FUTURE_ABI)
        assert e.value.status == infc.Status.VERSION_MISMATCH
        assert "has ABI 2.0" in str(e.value)


def test_two_models_and_threads():
    m1, m2 = infc.load(MODEL), infc.load(MODEL2)
    assert (m1.name, m2.name) == ("fake_add", "doubler")
    failures = []

    def worker(k):
        s = m1.session()
        for i in range(300):
            a = A + k * 1000 + i
            out = s(a=a, b=B)
            if not np.array_equal(out["sum"], a + B):
                failures.append((k, i))
        s.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    np.testing.assert_array_equal(m2(x=np.arange(4, dtype=np.int32))["y"], [0, 2, 4, 6])
    m1.close()
    m2.close()


def test_closed():
    m = infc.load(MODEL)
    s = m.session()
    m.close()
    m.close()  # twice is fine
    with pytest.raises(infc.Error, match="is closed"):
        m(a=A, b=B)
    check_results(s(a=A, b=B))  # a session keeps the model alive
    s.close()
    with pytest.raises(infc.Error, match="session is closed"):
        s.run([A, B])


def test_compile_flags(monkeypatch, tmp_path):
    # infc.compile's keywords become the CLI's flags; the compiler itself is not run here.
    fake = tmp_path / "infc"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    seen = {}

    def run(argv, **kwargs):
        seen["argv"] = argv
        value = argv[argv.index("--input-value") + 1].split("=", 1)[1]
        seen["value"] = np.load(value)
        return subprocess.CompletedProcess(argv, 0, "", "")

    monkeypatch.setattr(subprocess, "run", run)
    out = infc.compile("m.onnx", "m.so", compiler=str(fake), input_shape={"x": (1, 3)},
                       input_value={"sr": np.int64(16000)}, target="cuda", gpu=["sm_80", "sm_90"],
                       emulator_checks=True, quantize=None, keep_float=False,
                       extra_args=["-O2"])
    assert out == "m.so"
    argv = seen["argv"]
    assert argv[:5] == [str(fake), "compile", "m.onnx", "-o", "m.so"]
    assert argv[argv.index("--input-shape") + 1] == "x=1x3"
    assert int(seen["value"]) == 16000 and seen["value"].shape == ()
    assert argv[argv.index("--target") + 1] == "cuda"
    assert argv[argv.index("--gpu") + 1] == "sm_80,sm_90"
    assert "--emulator-checks" in argv and "--quantize" not in argv and "--keep-float" not in argv
    assert argv[-1] == "-O2"
    with pytest.raises(FileNotFoundError, match="not found at /nonexistent"):
        infc.compile("m.onnx", "m.so", compiler="/nonexistent/infc")


def test_compile_error(monkeypatch, tmp_path):
    fake = tmp_path / "infc"
    fake.write_text("#!/bin/sh\necho \"infc: error: m.onnx: node 'n' (Relu, opset 17): bad\" >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("INFC_COMPILER", str(fake))
    with pytest.raises(infc.CompileError, match="node 'n' .Relu, opset 17.") as e:
        infc.compile("m.onnx", str(tmp_path / "m.so"))
    assert e.value.returncode == 1
