"""The timed window on CUDA for cudal1's Python workers (the reference's and
a ModelNew candidate's), framed as the native worker frames its own
(src/device/cuda_device.cu): start event, the call, a device-wide
synchronization, end event, wait for the end event.

The events are recorded and the device synchronized through the driver
(cuEventRecord, cuCtxSynchronize, cuEventSynchronize), bound with ctypes when
the window is made. torch's Event.record and torch.cuda.synchronize reach the
same calls after a device guard, a current-stream lookup and Python frames of
their own, about 4 us more per window on an H200 host
(bench/reference_framing.py): host time inside the window, which moves with
the host's speed and is charged to the reference and a ModelNew alike but not
to a native candidate.
"""
import ctypes
import time


def cuda_window(torch):
    """(begin, finish, which): begin() records the start event on the current
    stream; finish() synchronizes the device, records the end event, waits
    for it and returns the milliseconds between the two events. `which` is
    "driver" or, where the driver's functions or torch's event handles are
    not reachable, "torch" (the same steps through torch). Errors raise
    RuntimeError (finish() only after the whole sequence ran, so the end
    event is never left unrecorded)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    # torch creates an event at its first record; elapsed_time reads them.
    start.record()
    end.record()
    end.synchronize()
    elapsed = torch.cuda.Event.elapsed_time
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        record, ctx_sync, ev_sync, name = (cuda.cuEventRecord, cuda.cuCtxSynchronize, cuda.cuEventSynchronize,
                                           cuda.cuGetErrorName)
        s, e = ctypes.c_void_p(start.cuda_event), ctypes.c_void_p(end.cuda_event)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    except (OSError, AttributeError):
        return _torch_window(torch, start, end)
    record.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    ev_sync.argtypes = [ctypes.c_void_p]
    name.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]

    def fail(step, rc):
        text = ctypes.c_char_p()
        name(rc, ctypes.byref(text))
        raise RuntimeError(f"{step} failed: {(text.value or b'CUDA error %d' % rc).decode()}")

    def begin():
        rc = record(s, stream)
        if rc:
            fail("cuEventRecord", rc)

    def finish():
        rc_sync = ctx_sync()
        rc_record = record(e, stream)
        rc_wait = ev_sync(e)
        for step, rc in (("cuCtxSynchronize", rc_sync), ("cuEventRecord", rc_record), ("cuEventSynchronize", rc_wait)):
            if rc:
                fail(step, rc)
        return elapsed(start, end)
    return begin, finish, "driver"


def _torch_window(torch, start, end):
    synchronize, record, wait, elapsed = (torch.cuda.synchronize, torch.cuda.Event.record,
                                          torch.cuda.Event.synchronize, torch.cuda.Event.elapsed_time)

    def begin():
        record(start)

    def finish():
        synchronize()
        record(end)
        wait(end)
        return elapsed(start, end)
    return begin, finish, "torch"


def host_probe():
    """A fixed piece of pure Python (calls, dict and attribute reads, as
    PyTorch's dispatch does), timed in microseconds: the host's speed at
    that moment, reported beside each timed run of the reference (judgment
    "host"), so a slow reference can be told from a slow host. The benches
    that watch the host's speed (bench/cpu_monitor.py,
    bench/window_headstart.py) time the same piece."""
    d = {"a": 1}

    def f(x):
        return x + d["a"]

    t0 = time.perf_counter()
    s = 0
    for _ in range(400):
        s = f(s)
    return (time.perf_counter() - t0) * 1e6
