"""cudal1's worker for KernelBench-format Python candidates (class ModelNew).

It speaks the native worker's protocol (src/worker/worker_main.cc) on fds 3
(commands) and 4 (replies), one JSON object a line, so the judge treats both
alike: hello, load, run (the judge's probes), open, run, return_params. Inputs, checks and statistics stay outside this process.

Two modes:

  cudal1_candidate.py --backend cpu|cuda --seal LIB [--sandbox-uid N] [--cpu N]
      the run worker. It imports torch, maps the exchange, warms the device,
      then seals itself with LIB (libcudal1_seal.so: Landlock, the
      unprivileged user, the process filter; the judge started it in its own
      namespaces) before the candidate's module is imported, so the module's
      own code runs sealed. Extensions are never compiled here: load_inline
      and load find what the build mode made, or fail.

  cudal1_candidate.py --build CANDIDATE --out DIR --seal LIB [--sandbox-uid N] [--arch X.Y] [--pch PCH]
      the build: imports the candidate once with the compilers allowed
      (network, files and user restricted), so load_inline/load build its
      extensions into DIR/ext, and writes DIR/manifest.json (which call built
      which library). Exit status 0, or 1 with the error on stderr. PCH: a
      precompiled <torch/extension.h> made by --make-pch.

  cudal1_candidate.py --make-pch PCH [--pch-flags "-O3 -std=c++17"]
      makes that precompiled header (torch's headers only; no candidate),
      for the -O and -std flags a candidate's extra_cflags gave.

  cudal1_candidate.py --serve SOCKET IDLE_S
      the candidate server: forks run workers and builds (see serve_main).
"""
import argparse
import contextlib
import ctypes
import hashlib
import importlib.machinery
import importlib.util
import json
import mmap
import os
import random
import sys
import time
import traceback

from cudal1_clock import cuda_window

SEAL = None          # the seal library (ctypes), once loaded


def seal_call(fn, *args):
    buf = ctypes.create_string_buffer(1 << 16)
    getattr(SEAL, fn)(*args, buf, ctypes.c_size_t(len(buf)))
    return json.loads(buf.value.decode() or "{}")


def load_seal(path):
    global SEAL
    SEAL = ctypes.CDLL(path)
    SEAL.cudal1_seal.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_int,
                                 ctypes.c_char_p, ctypes.c_size_t]


def pin_cpu(cpu):
    if cpu is not None and cpu >= 0:
        try:
            os.sched_setaffinity(0, {cpu})  # before any thread exists: all inherit it
        except OSError:
            pass


def python_reads():
    """The folders this Python reads from (its library and site-packages), for
    the sandbox's read rules where they lie outside the system's folders."""
    keep = set()
    for p in [sys.prefix, sys.exec_prefix, sys.base_prefix] + [p for p in sys.path if p]:
        p = os.path.realpath(p)
        if os.path.isdir(p) and p not in ("/", os.path.realpath(os.getcwd())):
            keep.add(p)
    return ":".join(sorted(keep))


# ---- extensions: built once outside the run sandbox, loaded inside it ---------

def extension_key(kind, args, kwargs):
    """What identifies one load_inline/load call: its sources (for load, the
    files' contents) and flags. Not where or under what name it is built: a
    name made unique per process (uuid), a build_directory from tempfile, or
    sources written to a temporary file differ between the build and the run
    while the library is the same (a false-rejection review, 2026-12-07)."""
    def norm(v):
        if isinstance(v, (list, tuple)):
            return [norm(x) for x in v]
        if isinstance(v, dict):
            return {k: norm(x) for k, x in sorted(v.items())}
        if isinstance(v, (str, int, float, bool)) or v is None:
            return v
        return repr(v)
    args, kwargs = list(args), dict(kwargs)
    if args:
        args[0] = None  # the name
    for where in ("name", "build_directory", "verbose"):
        kwargs.pop(where, None)
    if kind == "load":  # sources are files: their contents count, not their paths
        sources = kwargs.pop("sources", None)
        if sources is None and len(args) > 1:
            sources, args[1] = args[1], None
        if isinstance(sources, str):
            sources = [sources]
        contents = []
        for s in sources or []:
            try:
                with open(s, "rb") as f:
                    contents.append(hashlib.sha256(f.read()).hexdigest())
            except OSError:
                contents.append(s)
        kwargs["_source_contents"] = contents
    text = json.dumps({"kind": kind, "args": norm(args), "kwargs": norm(kwargs)}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def extension_name(args, kwargs):
    return kwargs.get("name", args[0] if args else "extension")


# The header every load_inline C++ source starts with (load_inline puts it
# first in main.cpp), and that most CUDA sources include too.
EXTENSION_HEADER = "torch/extension.h"
LIGHT_CUDA_NOTE = "// cudal1: <torch/extension.h> left out here; load_inline includes <torch/types.h>"


def lighter_cuda_sources(sources):
    """The CUDA sources without their `#include <torch/extension.h>`, or None
    where none has it. load_inline puts <torch/types.h> (ATen, the tensor
    types and factories) first in the .cu already; <torch/extension.h> adds
    the C++ frontend (nn, optim, data, jit) and pybind11 with Python.h, which
    a kernel's file seldom uses: nvcc on a .cu with it took 132 s against 35 s
    without, on a 2-core machine (the cold build's longest step). A source
    that needs it fails to compile without it and is built as written."""
    import re
    if sources is None:
        return None
    text = "\n".join(sources) if isinstance(sources, (list, tuple)) else str(sources)
    pattern = re.compile(r"^[ \t]*#[ \t]*include[ \t]*[<\"]torch/extension\.h[>\"][ \t]*$", re.M)
    if not pattern.search(text):
        return None
    return [pattern.sub(LIGHT_CUDA_NOTE, text)]


def patch_extensions_for_build(manifest, ext_dir, pch_dir=None, notes=None):
    """load_inline/load build as usual (into TORCH_EXTENSIONS_DIR), and the
    manifest records which library each call made. Two things make a cold
    build faster without changing what it makes: a precompiled
    <torch/extension.h> (pch_dir: made once per Python by --make-pch, with
    torch's own flags; gcc uses it only where the flags match, so the object
    is the same either way: bit-identical in a test), and CUDA sources tried
    first without <torch/extension.h> (lighter_cuda_sources)."""
    import torch.utils.cpp_extension as ce
    real = {"load_inline": ce.load_inline, "load": ce.load}
    notes = notes if notes is not None else {}

    def with_pch(kwargs):
        if not pch_dir:
            return kwargs
        flags = pch_flags(kwargs.get("extra_cflags"))
        variant = pch_variant(flags)
        found, why = usable_pch(os.path.join(pch_dir, variant))
        notes.setdefault("pch", []).append({"variant": variant, "state": why, "flags": flags})
        if not found:
            return kwargs
        kwargs = dict(kwargs)
        given = kwargs.get("extra_include_paths") or []
        kwargs["extra_include_paths"] = [found] + ([given] if isinstance(given, str) else list(given))
        return kwargs

    def lighter(kind, args, kwargs):
        """The call with lighter CUDA sources, or None. Its lists are copies:
        load_inline edits the lists it is given (the header put first in
        cpp_sources, the module's definition appended), and a failed light
        try would otherwise leave the retry as written with two module
        definitions (an honest source that needs <torch/extension.h> in its
        .cu was refused with "redefinition of pybind11_module_def_...")."""
        if kind != "load_inline":
            return None
        args = [list(a) if isinstance(a, list) else a for a in args]
        kwargs = {k: list(v) if isinstance(v, list) else v for k, v in kwargs.items()}
        if len(args) > 2:
            light = lighter_cuda_sources(args[2])
            args[2] = light
        else:
            light = lighter_cuda_sources(kwargs.get("cuda_sources"))
            kwargs["cuda_sources"] = light
        return (args, kwargs) if light is not None else None

    def wrap(kind):
        def built(*args, **kwargs):
            kwargs.setdefault("verbose", False)
            # The key first: load_inline changes the lists it is given.
            key = extension_key(kind, args, kwargs)
            # Built where the run will find it, whatever folder the candidate
            # named (the key does not hold it: a tempfile folder differs by run).
            kwargs.pop("build_directory", None)
            began = time.perf_counter()
            module = None
            light = lighter(kind, args, kwargs)
            if light is not None:
                import contextlib
                import io
                try:
                    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                        module = real[kind](*light[0], **with_pch(light[1]))
                    notes.setdefault("cuda_headers", []).append("types")
                except Exception:  # it needs <torch/extension.h>: built as written below
                    module = None
            if module is None:
                module = real[kind](*args, **with_pch(kwargs))
                if light is not None:
                    notes.setdefault("cuda_headers", []).append("extension")
            notes.setdefault("extension_s", []).append(round(time.perf_counter() - began, 3))
            path = getattr(module, "__file__", None)
            if not path:
                raise RuntimeError(f"{kind}: the extension has no library file (is_python_module=False is not supported)")
            manifest[key] = {
                "name": getattr(module, "__name__", extension_name(args, kwargs)),
                "library": os.path.relpath(os.path.realpath(path), os.path.realpath(ext_dir))}
            return module
        return built
    ce.load_inline = wrap("load_inline")
    ce.load = wrap("load")
    split_nvcc(ce, notes)


NVCC_DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cudal1_nvcc.py")


def split_nvcc(ce, notes):
    """torch's build.ninja runs `$nvcc`: here that is cudal1_nvcc.py in front
    of the same nvcc, which runs nvcc's host and device branches side by
    side (the object is nvcc's; see that file). CUDAL1_NVCC_SPLIT=0 leaves
    torch's nvcc as it is. The branches' seconds go into the notes."""
    if os.environ.get("CUDAL1_NVCC_SPLIT", "1") == "0" or not os.path.isfile(NVCC_DRIVER):
        return
    import shlex
    real = ce._run_ninja_build
    log = os.path.join(os.environ.get("TMPDIR") or "/tmp", "cudal1-nvcc.jsonl")
    os.environ["CUDAL1_NVCC_LOG"] = log

    def run_ninja(build_directory, *args, **kwargs):
        path = os.path.join(build_directory, "build.ninja")
        try:
            with open(path) as f:
                lines = f.read().split("\n")
        except OSError:
            lines = None
        if lines is not None:
            front = f"{shlex.quote(sys.executable)} -I {shlex.quote(NVCC_DRIVER)} "
            lines = [("nvcc = " + front + ln[len("nvcc = "):]) if ln.startswith("nvcc = ") and NVCC_DRIVER not in ln else ln
                     for ln in lines]
            with open(path, "w") as f:
                f.write("\n".join(lines))
        try:
            return real(build_directory, *args, **kwargs)
        finally:
            try:
                with open(log) as f:
                    notes["nvcc"] = [json.loads(x) for x in f if x.strip()]
            except (OSError, ValueError):
                pass
    ce._run_ninja_build = run_ninja


def extension_header_path():
    import torch.utils.cpp_extension as ce
    for d in ce.include_paths():
        path = os.path.join(d, EXTENSION_HEADER)
        if os.path.exists(path):
            return path
    return None


def pch_stamp():
    """What a precompiled header was made from: a PCH made for another torch,
    header or extension builder is not used."""
    import torch
    import torch.utils.cpp_extension as ce
    header = extension_header_path()
    if header is None:
        return None
    return {"torch": torch.__version__, "header": header, "header_mtime_ns": os.stat(header).st_mtime_ns,
            "cpp_extension_mtime_ns": os.stat(ce.__file__).st_mtime_ns, "cxx": os.environ.get("CXX", "c++")}


def pch_flags(extra_cflags):
    """The flags of a call's extra_cflags that a precompiled header must be
    made with to be used (gcc refuses one made at another optimization
    level or language standard): the last -O and the last -std, where they
    are among the usual ones."""
    import re
    opt = std = None
    if isinstance(extra_cflags, str):
        extra_cflags = extra_cflags.split()
    for f in extra_cflags or []:
        if isinstance(f, str) and re.fullmatch(r"-O[0-3sgz]?|-Ofast", f):
            opt = f
        elif isinstance(f, str) and re.fullmatch(r"-std=(c|gnu)\+\+(11|14|17|1z|20|2a|23|2b)", f):
            std = f
    return [f for f in (opt, std) if f]


def pch_variant(extra_cflags):
    """The folder name of the precompiled header for these flags."""
    return "_".join(f.lstrip("-").replace("=", "").replace("+", "x") for f in pch_flags(extra_cflags)) or "default"


def usable_pch(pch_dir):
    """pch_dir where its stamp matches this torch; else None, and why."""
    if not pch_dir:
        return None, "absent"
    try:
        with open(os.path.join(pch_dir, "stamp.json")) as f:
            stamp = json.load(f)
    except (OSError, ValueError):
        return None, "absent"
    if stamp != pch_stamp():
        return None, "stale"
    return pch_dir, "used"


def make_pch_main(a):
    """cudal1_candidate.py --make-pch BASE [--pch-flags "-O3 -std=c++17"]:
    the precompiled <torch/extension.h> for this Python's torch, made with
    the flags torch's own load_inline compiles a main.cpp with given those
    extra_cflags (read from the build.ninja it writes for a trivial
    extension; the ninja run itself is skipped), into BASE/VARIANT/torch/
    beside a link to the real header, and BASE/VARIANT/stamp.json. No
    candidate code is involved, and only the usual -O and -std flags are
    taken (pch_flags). Written to a folder beside, then renamed into place."""
    import shlex
    import shutil
    import subprocess
    import tempfile
    import torch.utils.cpp_extension as ce
    header = extension_header_path()
    if header is None:
        sys.stderr.write("no torch/extension.h in torch's include paths\n")
        return 1
    flags = pch_flags((a.pch_flags or "").split())
    target = os.path.join(a.make_pch, pch_variant(flags))
    if usable_pch(target)[0]:
        print(f"{target} is made already, for this torch")
        return 0
    os.makedirs(a.make_pch, mode=0o755, exist_ok=True)
    stage = f"{target}.tmp.{os.getpid()}"
    probe = tempfile.mkdtemp(prefix="cudal1-pch-probe-")
    try:
        class NinjaWritten(Exception):
            pass

        def stop(*args, **kwargs):
            raise NinjaWritten()
        real_run = ce._run_ninja_build
        ce._run_ninja_build = stop
        try:
            ce.load_inline("cudal1_pch_probe", "", functions=[], extra_cflags=flags, build_directory=probe,
                           verbose=False)
        except NinjaWritten:
            pass
        finally:
            ce._run_ninja_build = real_run
        ninja = {}
        with open(os.path.join(probe, "build.ninja")) as f:
            for line in f:
                if " = " in line and not line.startswith((" ", "\t")):
                    k, v = line.rstrip("\n").split(" = ", 1)
                    ninja.setdefault(k, v)
        cflags = [f for f in shlex.split(ninja.get("cflags", "")) if not f.startswith("-DTORCH_EXTENSION_NAME=")]
        post = shlex.split(ninja.get("post_cflags", ""))
        cxx = shlex.split(ninja.get("cxx", "c++"))
        os.makedirs(os.path.join(stage, "torch"))
        os.symlink(header, os.path.join(stage, EXTENSION_HEADER))
        gch = os.path.join(stage, EXTENSION_HEADER + ".gch")
        cmd = cxx + ["-x", "c++-header"] + cflags + [header, "-o", gch] + post
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            sys.stderr.write(" ".join(cmd) + "\n" + done.stdout[-4000:])
            with open(target + ".failed", "w") as f:  # not tried again for an hour
                f.write(done.stdout[-4000:])
            return 1
        with open(os.path.join(stage, "stamp.json"), "w") as f:
            json.dump(pch_stamp(), f)
        with open(os.path.join(stage, "command.txt"), "w") as f:
            f.write(" ".join(shlex.quote(c) for c in cmd) + "\n")
        os.chmod(stage, 0o755)
        shutil.rmtree(target, ignore_errors=True)
        os.rename(stage, target)
        return 0
    finally:
        shutil.rmtree(probe, ignore_errors=True)
        shutil.rmtree(stage, ignore_errors=True)


def patch_extensions_for_run(manifest, ext_dir):
    """load_inline/load return the library the build made for the same call;
    nothing is compiled in the run sandbox."""
    import torch.utils.cpp_extension as ce
    loaded = {}  # library -> its module: a second call for the same library gets the same module

    def wrap(kind):
        def prebuilt(*args, **kwargs):
            kwargs.setdefault("verbose", False)
            entry = manifest.get(extension_key(kind, args, kwargs))
            if entry is None:
                raise RuntimeError(f"{kind}({extension_name(args, kwargs)!r}): this call was not made when the "
                                   "candidate was built (extensions are built before the run, from the same code)")
            if entry["library"] in loaded:
                return loaded[entry["library"]]
            # Opened by its relative path, loaded through the descriptor: the
            # loader would make the path absolute, through folders above this
            # one that the unprivileged user may not enter. The descriptor
            # stays open for the process's life: the loader knows a library
            # by the path it was given, and with the descriptor closed the
            # next extension got the same /proc/self/fd/N, so the loader
            # handed back the first library (a review, 2026-12-07: every
            # ModelNew with two extensions failed, "dynamic module does not
            # define module export function").
            fd = os.open(os.path.join(ext_dir, entry["library"]), os.O_RDONLY | os.O_CLOEXEC)
            path = f"/proc/self/fd/{fd}"
            loader = importlib.machinery.ExtensionFileLoader(entry["name"], path)
            spec = importlib.util.spec_from_file_location(entry["name"], path, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            loaded[entry["library"]] = module
            return module
        return prebuilt
    ce.load_inline = wrap("load_inline")
    ce.load = wrap("load")


def import_candidate(path):
    """Runs the candidate's file as a module. Read by the path as given (a
    relative one stays relative: the unprivileged user reaches its folder by
    its working directory only)."""
    import types
    with open(path, "rb") as f:
        source = f.read()
    module = types.ModuleType("cudal1_candidate_module")
    module.__file__ = path
    sys.modules["cudal1_candidate_module"] = module
    exec(compile(source, os.path.basename(path), "exec"), module.__dict__)
    return module


BUILD_STARTED = "candidate-started"


def build_model(module, task_path, profile, notes, manifest):
    """ModelNew(*get_init_inputs()) once, with the task's size profile, and
    one forward on get_inputs(), so that what its __init__ or its first call
    builds with load_inline or load is built too: the
    run compiles nothing (a false-rejection review, 2026-12-07: a ModelNew
    that built its kernel in __init__ failed). On the meta device where torch
    has it, so parameters take no memory. Best effort: a failure here is the
    run's to report, where ModelNew is built again for real."""
    import torch
    import cudal1_ref  # its task loading and size profiles, as the reference's own (torch-free to import)
    began = time.perf_counter()
    try:
        task = cudal1_ref.load_task_module(task_path)
        cudal1_ref.apply_profile(task, profile, False)
        init = list(task.get_init_inputs())
        meta = hasattr(torch.device("meta"), "__enter__")
        with torch.no_grad(), (torch.device("meta") if meta else contextlib.nullcontext()):
            model = module.ModelNew(*init)
        notes["model_built"] = "on the meta device" if meta else True
        if extensions_in(source_of(module)):
            first_call(model, task, meta, manifest, notes)
    except BaseException as e:  # noqa: B902 - the candidate's __init__ may raise anything
        notes["model_built"] = f"failed: {type(e).__name__}: {str(e)[:200]}"
    notes["model_s"] = round(time.perf_counter() - began, 3)


def extensions_in(source):
    """Whether the candidate's source builds extensions at all (the only
    reason to call its forward in the build)."""
    return "cpp_extension" in source or "load_inline" in source


def source_of(module):
    try:
        with open(module.__file__, encoding="utf-8", errors="replace") as f:
            return f.read()
    except (OSError, AttributeError, TypeError):
        return ""


FIRST_CALL_TIMEOUT_S = 60


def first_call(model, task, meta, manifest, notes):
    """One forward on get_inputs(), for a load_inline made on the first call,
    in a child process: the extension's own call may crash or hang (on meta
    tensors it has no data), and whatever the call does, only the child pays
    for it. The child sends back what it built; the build goes on either way."""
    import torch
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the protocol's descriptors are not its to write
        os.close(r)
        for fd in (3, 4):
            if fd != w:
                try:
                    os.close(fd)
                except OSError:
                    pass
        before = set(manifest)
        try:
            with torch.no_grad(), (torch.device("meta") if meta else contextlib.nullcontext()):
                model(*task.get_inputs())
        except BaseException:  # noqa: B902 - the extension's own call fails on meta tensors
            pass
        try:
            os.write(w, json.dumps({k: v for k, v in manifest.items() if k not in before}).encode())
        finally:
            os._exit(0)
    os.close(w)
    chunks, deadline = [], time.monotonic() + FIRST_CALL_TIMEOUT_S
    import select
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([r], [], [], left)[0]:
            os.kill(pid, 9)
            notes["first_call"] = f"no end within {FIRST_CALL_TIMEOUT_S} s"
            break
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(r)
    os.waitpid(pid, 0)
    try:
        manifest.update(json.loads(b"".join(chunks) or b"{}"))
    except ValueError:
        notes["first_call"] = "its report could not be read"


def build_main(a):
    load_seal(a.seal)
    net = seal_call("cudal1_isolate_network")
    out = os.path.realpath(a.out)
    ext_dir = os.path.join(out, "ext")
    os.environ["TORCH_EXTENSIONS_DIR"] = ext_dir
    os.environ["TMPDIR"] = os.path.join(out, "tmp")
    # Forked by the candidate server, this process may hold the server's
    # temporary folder from an earlier tempfile call: this build's instead.
    import tempfile
    tempfile.tempdir = None
    if a.arch:
        os.environ["TORCH_CUDA_ARCH_LIST"] = a.arch
    began = time.perf_counter()
    import torch  # noqa: F401
    import torch.utils.cpp_extension  # noqa: F401
    pch_dir = a.pch if a.pch and os.path.isdir(a.pch) else None
    reads = python_reads() + (":" + pch_dir if pch_dir else "")
    layers = seal_call("cudal1_seal", out.encode(), reads.encode(), 0, a.sandbox_uid, 0)
    # Made as the sandbox's user, which owns the build folder.
    os.makedirs(ext_dir, exist_ok=True)
    os.makedirs(os.path.join(out, "tmp"), exist_ok=True)
    manifest = {}
    notes = {"import_s": round(time.perf_counter() - began, 3)}
    patch_extensions_for_build(manifest, ext_dir, pch_dir, notes)
    if os.environ.get("CUDAL1_FAULT_INJECT") == "forked-build-dies":
        os._exit(75)  # the tests' stand-in for a fork that failed in the server's state (pch_build.sh)
    # From here on a failure is the candidate's: the judge starts a forked
    # build that ended before this afresh (src/compile/python_build.cc).
    open(os.path.join(out, BUILD_STARTED), "w").close()
    try:
        module = import_candidate(a.build)
        if not hasattr(module, "ModelNew"):
            raise RuntimeError("the candidate defines no class ModelNew")
    except BaseException as e:  # noqa: B902 - a candidate's SystemExit is an error too
        sys.stderr.write("".join(traceback.format_exception(type(e), e, e.__traceback__)[-12:]))
        return 1
    if a.task:
        build_model(module, a.task, a.profile, notes, manifest)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"extensions": manifest, "sandbox": dict(layers, **net), "build": notes}, f)
    return 0


# ---- the run worker -------------------------------------------------------------


def warm_openmp():
    """Starts the system OpenMP runtime's (libgomp's) thread pool at the size
    a candidate sees as its CPUs (omp_get_num_procs), before the thread
    baseline. An extension built with -fopenmp runs its parallel regions on
    that pool, which starts its threads at the first region of a size and
    keeps them parked after: without this, an honest
    `#pragma omp parallel for num_threads(omp_get_num_procs())` started a
    thread after the baseline and was rejected as background_thread (a
    false-rejection review, 2026-12-06). Each thread runs free(NULL) once.
    Nothing where libgomp is not installed."""
    try:
        gomp = ctypes.CDLL("libgomp.so.1")
        libc = ctypes.CDLL(None)
    except OSError:
        return
    procs = gomp.omp_get_num_procs()
    if procs <= 1:
        return
    gomp.GOMP_parallel.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint, ctypes.c_uint]
    gomp.GOMP_parallel.restype = None
    gomp.GOMP_parallel(ctypes.cast(libc.free, ctypes.c_void_p), None, procs, 0)

class Worker:
    def __init__(self, backend):
        import torch
        # Imported before the seal: at import it looks for compilers with
        # subprocesses, which the sealed process may not start.
        import torch.utils.cpp_extension  # noqa: F401
        self.torch = torch
        self.clocks = window_clocks(torch)
        # What the worker's own code outside the window calls, bound now: a
        # candidate that patches torch.Tensor.copy_ (or enters a torch function
        # mode) to compute when the worker copies its result reaches neither,
        # and so returns what its buffer held when forward returned.
        self.raw_copy = torch.Tensor.copy_
        self.no_torch_function = getattr(torch._C, "DisableTorchFunction", None)
        self.backend = backend
        self.device = torch.device("cuda" if backend == "cuda" else "cpu")
        self.model = None
        self.probe_only = True
        self.driver = None
        self.pending = None  # the last run's result, until its collect

    # device facts, as the native worker's hello gives them
    def facts(self):
        torch = self.torch
        if self.backend != "cuda":
            return {"backend": "cpu", "name": cpu_name(), "l2_bytes": 32 << 20}
        p = torch.cuda.get_device_properties(0)
        return {"backend": "cuda", "name": p.name, "compute_capability": f"{p.major}.{p.minor}",
                "sm_count": p.multi_processor_count, "l2_bytes": getattr(p, "L2_cache_size", 0),
                "memory_bytes": p.total_memory, "driver_version": 0,
                "runtime_version": int(torch.version.cuda.replace(".", "")) * 10 if torch.version.cuda else 0}

    def dtype(self, name):
        t = self.torch
        return {"f32": t.float32, "f64": t.float64, "f16": t.float16, "bf16": t.bfloat16, "i32": t.int32,
                "i64": t.int64, "bool": t.bool, "u8": t.uint8, "i8": t.int8}[name]

    def view(self, base, offset, spec):
        raw = base[offset:offset + spec["nbytes"]]
        return raw.view(self.dtype(spec["dtype"])).view(spec["shape"])

    def open_exchange(self, ex):
        torch = self.torch
        if ex["kind"] == "file":
            # Not through a link, and only the reference's plain file (this
            # process is still root here; an untrusted task owns its folder).
            import stat
            fd = os.open(ex["path"], os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
            try:
                st = os.fstat(fd)
                if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_size != ex["bytes"]:
                    raise RuntimeError(f"the exchange {ex['path']} is not the reference's file "
                                       "(not a plain file of its size with one link)")
                self.mapping = mmap.mmap(fd, ex["bytes"])
            finally:
                os.close(fd)
            # Every page mapped writable now, its contents unchanged: each
            # call's arena lies at a fresh shift, and the window otherwise paid
            # a minor fault per page it touched first (cpu_device.cc).
            try:
                self.mapping.madvise(getattr(mmap, "MADV_POPULATE_WRITE", 23))
            except (OSError, ValueError):  # a kernel before 5.14: the faults stay
                pass
            return torch.frombuffer(self.mapping, dtype=torch.uint8)
        torch.cuda.synchronize()  # torch's context is current on this thread
        self.driver = ctypes.CDLL("libcuda.so.1")

        class IpcMemHandle(ctypes.Structure):  # CUipcMemHandle: 64 bytes, passed by value
            _fields_ = [("reserved", ctypes.c_char * 64)]
        open_handle = self.driver.cuIpcOpenMemHandle_v2
        open_handle.argtypes = [ctypes.POINTER(ctypes.c_uint64), IpcMemHandle, ctypes.c_uint]
        open_handle.restype = ctypes.c_int
        handle = IpcMemHandle.from_buffer_copy(bytes.fromhex(ex["handle"]))
        ptr = ctypes.c_uint64(0)
        rc = open_handle(ctypes.byref(ptr), handle, 1)  # CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS
        if rc != 0:
            raise RuntimeError(f"cuIpcOpenMemHandle failed (CUresult {rc})")
        nbytes = ex["bytes"]

        class Block:
            __cuda_array_interface__ = {"shape": (nbytes,), "typestr": "|u1", "data": (ptr.value, False), "version": 2}
        return torch.as_tensor(Block(), device=self.device)[ex.get("offset", 0):]

    def sync(self):
        if self.backend == "cuda":
            self.torch.cuda.synchronize()

    def load(self, cmd):
        torch = self.torch
        layout = cmd["layout"]
        self.layout = layout
        self.init_inputs = cmd.get("init_inputs", [])
        self.exchange = self.open_exchange(layout["exchange"])
        self.arenas = layout["arenas"]
        # What a probe's call returns, made once: after the window it is copied
        # into the outputs as a ModelNew's results are, so a probe's request
        # costs what a call's does.
        self.probe_results = [torch.zeros(s["shape"], dtype=self.dtype(s["dtype"]), device=self.device)
                              for s in layout["outputs"]]
        self.params = {s["name"]: self.view(self.exchange, s["offset"], s).clone() for s in layout["params"]}
        # What torch starts lazily starts now, before the thread baseline: its
        # intra-op pool and, on CUDA, the driver's threads and the caching
        # allocator. A ModelNew that merely uses torch is never taken for one
        # that starts threads.
        a = torch.randn(256, 256, device=self.device)
        (a @ a).sum().item()
        torch.randn(1 << 20).sum().item()
        # A candidate that asks torch for more threads than the pool warmed
        # here would start threads after the baseline and be taken for one
        # that works in the background: it gets the pool as it is.
        pool = torch.get_num_threads()
        real_set = torch.set_num_threads
        torch.set_num_threads = lambda n: real_set(max(1, min(int(n), pool)))
        if self.backend == "cpu":  # not yet run on a GPU machine (where the worker is pinned to one CPU)
            warm_openmp()
        if self.backend == "cuda":
            # The window's events and driver calls, bound before any candidate
            # code runs (cudal1_clock): the reference's window is framed alike.
            self.window_begin, self.window_finish, self.window = cuda_window(torch)
            self.persisting_l2(reset=True)
        self.sync()
        sandbox = dict(self.network)
        if self.backend == "cuda":
            # Contexts the candidate creates from here on are named by the
            # census: the window's synchronization waits for torch's only.
            sandbox.update(seal_call("cudal1_watch_contexts"))
        sandbox.update(seal_call("cudal1_seal", os.getcwd().encode(), python_reads().encode(),
                                 1 if self.backend == "cuda" else 0, self.sandbox_uid, 1))
        seal_call("cudal1_census_baseline")
        return {"ok": True, "sandbox": sandbox}

    def persisting_l2(self, reset):
        """Resets the persisting-L2 limit and lines (reset), or says what a call
        left: a limit above 0, an access-policy window on the current stream."""
        if self.driver is None:
            self.driver = ctypes.CDLL("libcuda.so.1")
        limit_persisting_l2 = 0x06  # CU_LIMIT_PERSISTING_L2_CACHE_SIZE
        if reset:
            self.driver.cuCtxSetLimit(ctypes.c_int(limit_persisting_l2), ctypes.c_size_t(0))
            self.driver.cuCtxResetPersistingL2Cache()
            return ""
        value = ctypes.c_size_t(0)
        found = ""
        if self.driver.cuCtxGetLimit(ctypes.byref(value), ctypes.c_int(limit_persisting_l2)) == 0 and value.value > 0:
            found = f"a persisting-L2 limit of {value.value} bytes"
        window = (ctypes.c_uint8 * 64)()  # CUaccessPolicyWindow inside CUstreamAttrValue: base_ptr, num_bytes...
        stream = ctypes.c_void_p(self.torch.cuda.current_stream().cuda_stream)
        if self.driver.cuStreamGetAttribute(stream, ctypes.c_int(1), ctypes.byref(window)) == 0:
            num_bytes = int.from_bytes(bytes(window[8:16]), "little")
            if num_bytes > 0:
                found += ("; " if found else "") + f"an access-policy window of {num_bytes} bytes on the current stream"
        return found

    def open_candidate(self, cmd):
        torch = self.torch
        # Paths relative to the working folder: the unprivileged user reaches
        # its folder by it, not through the judge's folders above it.
        path = cmd["library"]
        manifest = {}
        mpath = os.path.join("build", "manifest.json")
        if os.path.exists(mpath):
            with open(mpath) as f:
                manifest = json.load(f).get("extensions", {})
        patch_extensions_for_run(manifest, os.path.join("build", "ext"))
        if "error" in self.init_inputs:
            return {"ok": False, "kind": "load_error", "message": self.init_inputs["error"]}
        try:
            module = import_candidate(path)
        except BaseException as e:  # noqa: B902
            return {"ok": False, "kind": "load_error", "message": "importing the candidate failed: " + short_trace(e)}
        cls = getattr(module, "ModelNew", None)
        if cls is None:
            return {"ok": False, "kind": "missing_entry", "message": "the candidate defines no class ModelNew"}
        try:
            with torch.no_grad():
                model = cls(*self.init_inputs.get("values", []))
            model = model.to(self.device).eval()
        except BaseException as e:  # noqa: B902
            return {"ok": False, "kind": "load_error", "message": "ModelNew(*get_init_inputs()) failed: " + short_trace(e)}
        state = model.state_dict()
        want, have = set(self.params), set(state)
        # Every one of the task's, by name; more of its own are the
        # candidate's (a persistent buffer of precomputed tables, as
        # KernelBench, which loads no state, allows: a false-rejection
        # review, 2026-12-07): load_state_dict leaves them as __init__ made them.
        if want - have:
            return {"ok": False, "kind": "load_error",
                    "message": "ModelNew's parameters and buffers do not match the task's Model by name: missing "
                               f"{sorted(want - have)} (it has {sorted(have)})"}
        for name, value in self.params.items():
            if tuple(state[name].shape) != tuple(value.shape) or state[name].dtype != value.dtype:
                return {"ok": False, "kind": "load_error",
                        "message": f"ModelNew's {name} is {state[name].dtype} {list(state[name].shape)}, the task's "
                                   f"{value.dtype} {list(value.shape)}"}
        model.load_state_dict(self.params, strict=False)
        torch.set_grad_enabled(False)
        self.model = model
        self.probe_only = False
        # What exists now (torch, the worker, the model) is never traced by the
        # collector again: its pauses in a timed call then cost what they cost
        # in the judge's probes, which ran before the model existed.
        import gc
        gc.collect()
        gc.freeze()
        return {"ok": True}

    def place_call(self, cmd):
        """The call's tensors: views of the exchange's arena the judge names,
        at its shift, where the reference's process staged the inputs and
        filled the outputs with sentinels. This process copies no inputs."""
        arena, shift = int(cmd["arena"]), int(cmd["shift"])
        if arena not in (0, 1) or shift % 256 or not 0 <= shift < self.arenas["max_shift"]:
            raise ValueError("bad arena or shift")
        at = self.arenas["offsets"][arena] + shift
        self.args = [self.view(self.exchange, at + s["offset"], s) for s in self.layout["inputs"]]
        self.outs = [self.view(self.exchange, at + s["offset"], s) for s in self.layout["outputs"]]

    def call_args(self):
        out = []
        for s, v in zip(self.layout["inputs"], self.args):
            kind = s.get("scalar")
            out.append({"int": int, "float": float, "bool": bool}[kind](v.item()) if kind else v)
        return out

    def run(self, cmd):
        torch = self.torch
        with self.own_code():
            self.place_call(cmd)
        probe_ms = cmd.get("probe_ms", 0.0)
        result, error = None, None
        # The clocks and synchronizations bound before the candidate's module
        # existed (window_clocks()): patching time or torch.cuda.Event later
        # does not reach them. (A candidate that patches this worker itself is
        # the judge's clock check's to catch.)
        c = self.clocks
        if not self.mark(cmd, "window"):
            return {"ok": False, "kind": "internal", "message": "no go from the judge after the window's mark"}
        # The inputs are staged in the mark's pause: only now are they this
        # call's (a scalar's value is read here). The probes read them too.
        args = self.call_args()
        if self.probe_only or probe_ms > 0:
            args = None
        if self.backend == "cuda":
            begin, finish = self.window_begin, self.window_finish
            c["synchronize"]()
            begin()
            try:
                if self.probe_only or probe_ms > 0:
                    for o in self.probe_results:
                        o.fill_(0)
                    result = self.probe_results
                    torch.cuda._sleep(int(probe_ms * 1.98e6))  # cycles at the H200's 1980 MHz
                else:
                    result = self.model(*args)
            except BaseException as e:  # noqa: B902
                error = e
            try:
                ms = finish()
            except BaseException as e:  # noqa: B902
                error, ms = error or e, 0.0
        else:
            t0 = c["perf_counter"]()
            try:
                if self.probe_only or probe_ms > 0:
                    # Fresh outputs, as forward makes them: the last call's
                    # are freed after the window, as a candidate's are (a
                    # large output's munmap, which the probes paid not).
                    result = [torch.zeros_like(o) for o in self.probe_results]
                    while (c["perf_counter"]() - t0) * 1e3 < probe_ms:
                        pass
                else:
                    result = resolved_views(torch, self.model(*args))
            except BaseException as e:  # noqa: B902
                error = e
            ms = (c["perf_counter"]() - t0) * 1e3
        # On the CPU the outputs are described with the end mark: the
        # reference's process reads them from this stopped process's memory
        # (process_vm_readv) in the mark's pause, so nothing this process does
        # after it (candidate code in its handlers, say) reaches what is
        # checked. Elsewhere a collect request copies them, after the
        # reference's process has seen that nothing wrote the call's own
        # outputs during the window. Either way they stay alive here until
        # the next run.
        self.pending = result
        described = {}
        if self.backend == "cpu" and error is None:
            with self.own_code():
                problem, outs = self._checked_outputs(result)
            if problem:
                described["output_problem"] = problem
            else:
                self.pending = outs
                described["outputs"] = [{"ptr": o.data_ptr(), "shape": list(o.shape), "strides": list(o.stride()),
                                         "itemsize": o.element_size()} for o in outs]
        if not self.mark(cmd, "window_end", described):
            return {"ok": False, "kind": "internal", "message": "no go from the judge after the window's end mark"}
        if error is not None:
            return {"ok": False, "kind": "runtime_error", "message": "ModelNew.forward raised " + short_trace(error)}
        # The census is a request of its own, after the outputs are taken:
        # any work this request does after the window is a slot candidate
        # code can fill with forward's last pass (an attack review: the
        # census's ~0.2 ms on a 2-core VM held a multiply). No copy of the
        # outputs here either: a last pass of forward could take the copy's
        # place (an attack review).
        reply = {"ok": True, "ms": ms}
        reply.update(described)
        if cmd.get("census"):
            reply["census"] = "not available for ModelNew candidates yet"
        return reply

    def mark(self, cmd, which, extra=None):
        """Where the judge split the run request: tells it the window is about
        to start, or has ended (with `extra`: the outputs' description), and
        waits for its go while it stops this process, reads its CPU time and
        does the call's work of that pause (src/worker/channel.h)."""
        if not cmd.get("split"):
            return True
        self.send({"mark": which, "id": cmd.get("id"), **(extra or {})})
        try:
            return json.loads(self.commands.readline()).get("op") == "go"
        except (ValueError, AttributeError):
            return False

    def census(self, cmd):
        """What the last call left behind: threads, processes, attempts the
        seal recorded, and on CUDA the persisting-L2 state."""
        census = seal_call("cudal1_census")
        # (What the candidate's code could fake, it could fake whole: the
        # calls themselves stay denied, and the judge's outside census is its
        # own. A missing field is an empty one, never the worker's crash.)
        return {"ok": True, "new_threads": census["new_threads"], "own_contexts": census.get("own_contexts", []),
                "own_contexts_lost": census.get("own_contexts_lost", ""),
                "child_processes": census["child_processes"],
                "process_attempts": census["process_attempts"], "escape_attempts": census.get("escape_attempts", []),
                "deferred_work": census["deferred_work"],
                "cache_tampering": self.persisting_l2(reset=False) if self.backend == "cuda" else ""}

    def collect(self, cmd):
        """The outputs of the last run, checked and copied into the call's
        outputs at the arena the judge names."""
        result, self.pending = self.pending, None
        with self.own_code():
            self.place_call(cmd)
        problem = self.take_outputs(result)
        return {"ok": True, "output_problem": problem} if problem else {"ok": True}

    def own_code(self):
        """A context in which torch functions reach no candidate's override."""
        import contextlib
        return self.no_torch_function() if self.no_torch_function else contextlib.nullcontext()

    def take_outputs(self, result):
        with self.own_code():
            return self._take_outputs(result)

    def _take_outputs(self, result):
        """The outputs checked (_checked_outputs), then copied into the call's
        outputs after the window (a probe's results too, so a probe's request
        costs what a call's does: the judge's clock check relies on it)."""
        problem, outs = self._checked_outputs(result)
        if problem:
            return problem
        for got, want in zip(outs, self.outs):
            self.raw_copy(want, got)
        self.sync()
        return None

    def _checked_outputs(self, result):
        """(problem, outputs): what forward returned must be plain tensors of
        the reference's dtypes and shapes, on the device (a subclass or proxy
        could compute when read, outside the window)."""
        torch = self.torch
        outs = list(result) if isinstance(result, (tuple, list)) else [result]
        # A Python number, as the task's Model may return (the reference's
        # as_output_list takes it): a tensor of the output's dtype.
        outs = [torch.tensor(o, dtype=w.dtype, device=w.device) if isinstance(o, (bool, int, float)) else o
                for o, w in zip(outs, self.outs)] + outs[len(self.outs):]
        if len(outs) != len(self.outs):
            return ("wrong_output", f"forward returned {len(outs)} outputs, the task's Model returns {len(self.outs)}"), None
        for i, (got, want) in enumerate(zip(outs, self.outs)):
            if not isinstance(got, torch.Tensor):
                return ("wrong_output", f"output {i} is a {type(got).__module__}.{type(got).__name__}, not a tensor"), None
            if type(got) is not torch.Tensor:
                return ("lazy_output", f"output {i} is a {type(got).__module__}.{type(got).__name__}, not a plain "
                                       "torch.Tensor (a subclass or proxy can compute when read, outside the window)"), None
            if got.dtype != want.dtype or tuple(got.shape) != tuple(want.shape) or got.device.type != want.device.type:
                return ("wrong_output", f"output {i} is {got.dtype} {list(got.shape)} on {got.device}, the task's is "
                                        f"{want.dtype} {list(want.shape)} on {want.device}"), None
        return None, outs

    def return_params(self, cmd):
        state = self.model.state_dict() if self.model is not None else self.params
        for s in self.layout["params"]:
            self.view(self.exchange, s["offset"], s).copy_(state[s["name"]].detach())
        self.sync()
        return {"ok": True}


def resolved_views(torch, result):
    """forward's result with any negative- or conjugate-bit view resolved (on
    the CPU, inside the window: the judge reads the outputs' bytes from this
    process, and a view whose bit the reader resolved would have it do a
    negation pass for free)."""
    outs = result if isinstance(result, (tuple, list)) else [result]
    if not any(type(o) is torch.Tensor and (o.is_neg() or o.is_conj()) for o in outs):
        return result
    fixed = [o.resolve_conj().resolve_neg() if type(o) is torch.Tensor else o for o in outs]
    return (tuple(fixed) if isinstance(result, tuple) else fixed) if isinstance(result, (tuple, list)) else fixed[0]


def window_clocks(torch):
    """The functions the timed window calls, bound now, before any candidate
    code runs."""
    clocks = {"perf_counter": time.perf_counter}
    if torch.cuda.is_available():
        clocks.update(synchronize=torch.cuda.synchronize)
    return clocks


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "cpu"


TRACE_CHARS = 8192  # of a candidate's error, its head and tail


def short_trace(e):
    lines = traceback.format_exception(type(e), e, e.__traceback__)
    text = f"{type(e).__name__}: {e}\n" + "".join(lines[-6:]).strip()
    # At most TRACE_CHARS of it, the middle cut: the message is the
    # candidate's, and a 120 MB one took the judge 44 s to take in and ended
    # as a timeout instead of the candidate's error (an attack review,
    # 2026-12-07).
    if len(text) > TRACE_CHARS:
        half = TRACE_CHARS // 2
        text = f"{text[:half]}\n[... {len(text) - 2 * half} characters cut ...]\n{text[-half:]}"
    # A message JSON cannot carry (a lone surrogate) is still the candidate's error.
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def run_main(a):
    pin_cpu(a.cpu)
    load_seal(a.seal)
    network = seal_call("cudal1_isolate_network")
    commands = os.fdopen(3, "r")
    replies = os.fdopen(4, "w")

    def send(obj):
        replies.write(json.dumps(obj, allow_nan=False) + "\n")
        replies.flush()
    try:
        worker = Worker(a.backend)
        if a.backend == "cuda" and not worker.torch.cuda.is_available():
            send({"ok": False, "kind": "no_device", "message": "torch sees no CUDA device"})
            return 1
        worker.network = network
        worker.sandbox_uid = a.sandbox_uid
        worker.send, worker.commands = send, commands
        if a.backend == "cuda":
            worker.torch.cuda.init()
        send({"ok": True, "device": worker.facts()})
    except BaseException as e:  # noqa: B902
        send({"ok": False, "kind": "no_device", "message": short_trace(e)})
        return 1
    handlers = {"load": worker.load, "open": worker.open_candidate, "run": worker.run, "collect": worker.collect,
                "census": worker.census,
                "return_params": worker.return_params}
    for line in commands:
        try:
            cmd = json.loads(line)
        except ValueError:
            send({"ok": False, "kind": "internal", "message": "malformed command"})
            continue
        op = cmd.get("op")
        if op == "quit":
            send({"ok": True, "id": cmd.get("id")})
            return 0
        try:
            if op not in handlers:
                raise RuntimeError(f"unknown command {op}")
            reply = handlers[op](cmd)
        except BaseException as e:  # noqa: B902
            reply = {"ok": False, "kind": "runtime_error" if op in ("run", "collect") else "internal",
                     "message": short_trace(e)}
        reply["id"] = cmd.get("id")
        send(reply)
        if not reply.get("ok") and reply.get("kind") == "runtime_error" and a.backend == "cuda":
            return 4  # a CUDA error may have poisoned the context
    return 0


def arguments(argv):
    ap = argparse.ArgumentParser(description="cudal1's ModelNew worker (started by cudal1)")
    ap.add_argument("--backend", default="cpu")
    ap.add_argument("--seal")
    ap.add_argument("--sandbox-uid", type=int, default=0)
    ap.add_argument("--cpu", type=int, default=-1)
    ap.add_argument("--build")
    ap.add_argument("--task", help="with --build: the task, whose get_init_inputs() builds ModelNew once")
    ap.add_argument("--profile", default="", help="with --task: its size profile")
    ap.add_argument("--out")
    ap.add_argument("--arch")
    ap.add_argument("--serve", nargs=2, metavar=("SOCKET", "IDLE_S"))
    ap.add_argument("--pch")
    ap.add_argument("--make-pch")
    ap.add_argument("--pch-flags")
    a = ap.parse_args(argv)
    if not a.serve and not a.make_pch and not a.seal:
        ap.error("--seal is required")
    return a


# ---- the candidate server: a worker forked from a Python that imported torch ----

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18
PR_SET_PDEATHSIG = 1


def serve_main(socket_path, idle_s):
    """cudal1_candidate.py --serve SOCKET IDLE_S: imports what a run worker
    imports before its seal, once, then forks a run worker per request
    (start_forked_worker), so a warm ModelNew judgment does not pay torch's
    import (3.6 s on the H200 machine), and a build per request too (a cold
    build paid 3.5 s of its 27 s for that import there). Nothing of a candidate ever runs in
    this process: each worker is sealed before it imports one, as a worker
    the judge starts itself is."""
    import torch  # noqa: F401
    import_cpp_extension_without_cuda(torch)
    import cudal1_forkserver
    return cudal1_forkserver.serve(socket_path, idle_s, f"cudal1 candidate server: torch {torch.__version__}",
                                   start_forked_worker)


def import_cpp_extension_without_cuda(torch):
    """Imports torch.utils.cpp_extension in a process that will fork CUDA
    workers, without initializing CUDA's driver here. Its import looks for
    the CUDA toolkit and, where it finds one, asks torch.cuda.is_available()
    only to print a warning (torch 2.11: cpp_extension._find_cuda_home);
    that query initializes the driver, and torch then refuses CUDA in every
    forked child ("Cannot re-initialize CUDA in forked subprocess"), so every
    forked worker failed and each judgment fell back to a fresh Python. The
    query is answered "yes" for the import's sake and restored after."""
    cuda = torch.cuda
    real = cuda.is_available
    cuda.is_available = lambda: True
    try:
        import torch.utils.cpp_extension  # noqa: F401
    finally:
        cuda.is_available = real


def start_forked_worker(request, fds, conn, judge_pid):
    """In the server's child, the keeper: makes the worker as the judge's own
    spawn would (src/base/subprocess.cc child_process::spawn): init of its own
    PID, mount, network and IPC namespaces with a private /proc, its own
    process group, the limits, descriptors and environment the judge sent, its
    working folder. The keeper sends the worker's pid, waits for it, and sends
    how it ended (the judge cannot wait for a process it did not start); if
    the judge goes first, the worker is killed."""
    import select
    import signal
    import cudal1_forkserver
    libc = ctypes.CDLL(None, use_errno=True)
    cudal1_forkserver.adopt_context(judge_pid)
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWPID
    isolated = bool(request.get("isolate")) and libc.unshare(ctypes.c_int(flags)) == 0
    judge = os.pidfd_open(judge_pid)
    pid = os.fork()
    if pid == 0:
        os.close(judge)
        return run_forked_worker(request, fds, isolated, libc)
    for fd in fds:
        os.close(fd)
    conn.sendall(f"{pid}\n".encode())
    worker = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(judge, select.POLLIN)
    poller.register(worker, select.POLLIN)
    while True:
        ready = {fd for fd, _ in poller.poll()}
        if worker in ready:
            break
        if judge in ready:  # the judge is gone: nobody will read this worker
            os.kill(pid, signal.SIGKILL)
            break
    _, status = os.waitpid(pid, 0)
    ended = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    try:
        conn.sendall(f"{ended}\n".encode())
    except OSError:
        pass
    return 0


def run_forked_worker(request, fds, isolated, libc):
    import resource
    import signal
    import cudal1_forkserver
    if isolated and os.getpid() == 1:
        # Our own mounts from here on, and a /proc that lists this namespace only.
        libc.mount(None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None)
        libc.mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC), None)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    os.setpgid(0, 0)  # its own group: the judge kills it whole
    cudal1_forkserver.become_worker(fds, request.get("env", {}))  # before the limits: it closes every other descriptor
    names = {"cpu_seconds": resource.RLIMIT_CPU, "address_bytes": resource.RLIMIT_AS,
             "open_files": resource.RLIMIT_NOFILE, "processes": resource.RLIMIT_NPROC,
             "file_bytes": resource.RLIMIT_FSIZE}
    for name, value in request.get("limits", {}).items():
        if name in names and value:
            resource.setrlimit(names[name], (int(value), int(value)))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    try:
        os.chdir(request["cwd"])
    except (KeyError, OSError):
        return 126
    args = request.get("args", [])
    sys.argv = [sys.argv[0]] + args
    a = arguments(args)
    # A ModelNew build (src/compile/python_build.cc) or a run worker.
    return build_main(a) if a.build else run_main(a)


def main():
    a = arguments(sys.argv[1:])
    if a.serve:
        return serve_main(a.serve[0], float(a.serve[1]))
    if a.make_pch:
        return make_pch_main(a)
    if a.build:
        return build_main(a)
    return run_main(a)


if __name__ == "__main__":
    sys.exit(main())
