"""nvcc with its host and device branches side by side.

  cudal1_nvcc.py NVCC ARGS...

runs what `NVCC ARGS...` would run, in the same steps with the same
arguments, but the host branch (the host preprocessing and cudafe++) and the
device branch (the device preprocessing, cicc, ptxas, fatbinary) at the same
time instead of one after the other; the host compile that joins them comes
last, as in nvcc. nvcc 13 runs these steps serially (its --threads applies to
several architectures only), and on a .cu that includes ATen, cudafe++ and
cicc each parse the whole translation unit for 10-12 s (2-core machine).

The steps come from `NVCC --dryrun --keep --keep-dir DIR ARGS...`: nvcc's own
commands, run as written. The one link between the two branches is the
module id (a name for the translation unit, in the names of its
anonymous-namespace entities): cudafe++ writes it with --gen_module_id_file
and cicc reads it, so here it is written first, in nvcc's form
(_CRC32-OF-PATH_LENGTH_NAME_) with a digest of the source where nvcc puts
the name of the unit's first external definition, and both read it. With
the same id (CUDAL1_NVCC_MODULE_ID) the object is byte-identical to nvcc's
with --keep-dir (tests/nvcc_split.sh).

The id's digest covers the source's bytes and the whole command line (the
flags from NVCC_PREPEND_FLAGS and NVCC_APPEND_FLAGS, the folder, the
output), so two objects of one source built with different flags and linked
together get two ids, as nvcc's do (an attack review linked two such objects:
with one id their anonymous-namespace stubs collided).

Anything but a compile of one .cu (-c) that nvcc's --dryrun lays out as
above (one host and one device preprocessing, cudafe++, cicc, at most one
ptxas, fatbinary, the host compile), or a command line that asks nvcc to
show or keep its steps or to shape the dependency file (--dryrun, -v,
--keep, --keep-dir, --save-temps, --time, -MT, -MP, -MMD), runs the real
nvcc unchanged. CUDAL1_NVCC_SPLIT=0 does that always. What the steps print
is passed on byte for byte, nvcc's own warnings first.
CUDAL1_NVCC_LOG=FILE appends a JSON line per compile with the branches'
seconds.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zlib


def run_real(nvcc, args):
    os.execv(nvcc, [nvcc] + args)


# Options that show, keep or time nvcc's steps, or shape the dependency
# file in ways the split does not reproduce: nvcc itself runs those.
AS_NVCC = {"-dryrun", "--dryrun", "-v", "--verbose", "-keep", "--keep", "-keep-dir", "--keep-dir", "-save-temps",
           "--save-temps", "-time", "--time", "-MT", "--dependency-target-name", "-MP", "--generate-dependency-targets",
           "-MMD", "--generate-nonsystem-dependencies", "--generate-nonsystem-dependencies-with-compile"}


def effective_args(args):
    """ARGS as nvcc sees them: NVCC_PREPEND_FLAGS before, NVCC_APPEND_FLAGS after."""
    pre = shlex.split(os.environ.get("NVCC_PREPEND_FLAGS", ""))
    post = shlex.split(os.environ.get("NVCC_APPEND_FLAGS", ""))
    return pre + args + post


def left_to_nvcc(args):
    return "-c" not in args or any(a.split("=", 1)[0] in AS_NVCC for a in args)


def dryrun(nvcc, args, keep_dir):
    """nvcc's environment assignments, its commands for ARGS, and what else
    it printed (its own warnings), or None."""
    p = subprocess.run([nvcc, "--dryrun", "--keep", "--keep-dir", keep_dir] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        return None
    env, cmds, other = {}, [], []
    # Bytes as the file system's names are (a source named in Latin-1 is a
    # source nvcc compiles).
    for line in p.stderr.decode("utf-8", "surrogateescape").splitlines(keepends=True):
        if not line.startswith("#$ "):
            other.append(line)
            continue
        line = line[3:].strip()
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m and not cmds:
            env[m.group(1)] = m.group(2).strip()
        else:
            cmds.append(line)
    return env, cmds, p.stdout, "".join(other).encode("utf-8", "surrogateescape")


def tool(cmd):
    """The step's program, by name: cudafe++, cicc, ptxas, fatbinary, the
    host compiler ('host'), '-- Filter Dependencies --' ('deps'), rm."""
    if cmd.startswith("-- Filter Dependencies --"):
        return "deps"
    try:
        first = shlex.split(cmd)[0]
    except ValueError:
        return "?"
    name = os.path.basename(first)
    if name in ("cudafe++", "cicc", "ptxas", "fatbinary", "rm", "nvlink"):
        return name
    return "host"


def plan(cmds):
    """(host branch, device branch, joined steps, the dependency file or
    None, the module id file, the source's path as cudafe++ is given it), or
    None where the commands are not the expected single-file compile."""
    host, device, final, deps, module_id = [], [], [], None, None
    counts = {}
    for cmd in cmds:
        t = tool(cmd)
        words = shlex.split(cmd) if t not in ("deps", "?") else []
        if t == "host" and "-E" in words:
            t = "pp-device" if any(w.startswith("-D__CUDA_ARCH__=") for w in words) else "pp-host"
        elif t == "host" and "-c" in words:
            t = "compile"
        counts[t] = counts.get(t, 0) + 1
        if t in ("pp-host", "pp-device", "compile") and "-o" not in words:
            return None  # the dependency file is laid out from their -o: nvcc's own way instead
        if t == "pp-host":
            host.append(cmd)
        elif t == "cudafe++":
            if "--gen_module_id_file" not in words or "--module_id_file_name" not in words:
                return None
            module_id = words[words.index("--module_id_file_name") + 1]
            # The word itself, never the text inside a path that holds it.
            host.append(re.sub(r"(?:(?<=\s)|^)--gen_module_id_file(?:\s+|$)", "", cmd, count=1))
        elif t in ("pp-device", "cicc", "ptxas", "fatbinary"):
            device.append(cmd)
        elif t == "deps":
            deps = cmd.split(">", 1)[1].strip()
        elif t in ("compile", "rm"):
            final.append(cmd)
        else:
            return None
    want = {"pp-host": 1, "cudafe++": 1, "pp-device": 1, "cicc": 1, "fatbinary": 1, "compile": 1}
    if any(counts.get(k, 0) != n for k, n in want.items()) or counts.get("ptxas", 0) > 1:
        return None
    if tool(final[0]) != "host":  # the host compile first, then any rm
        return None
    orig = shlex.split(host[1])
    if "--orig_src_path_name" not in orig:
        return None
    return host, device, final, deps, module_id, orig[orig.index("--orig_src_path_name") + 1]


def module_id_for(path, args):
    """nvcc's form: _CRC32(path)_LEN_NAME_, then (where nvcc puts the first
    external definition's name) a digest of the source's bytes and of the
    command line. `path` is cudafe++'s --orig_src_path_name, as nvcc hashes
    it."""
    base = os.path.basename(path)
    name = re.sub(r"[^A-Za-z0-9]", "_", base)
    h = hashlib.sha256()
    with open(path, "rb") as f:
        h.update(f.read())
    for part in [os.getcwd()] + args:
        h.update(b"\0" + os.fsencode(part))
    return "_%08x_%d_%s_cudal1_%s" % (zlib.crc32(os.fsencode(path)), len(base), name, h.hexdigest()[:16])


def depfile_from(ii_paths, target, source, out):
    """A make-style dependency file from the preprocessed files' line
    markers (nvcc's lists what the host and the device preprocessing read):
    the source first, then each file as first entered."""
    seen, order = set(), []
    marker = re.compile(r'^# \d+ "([^"]+)"')
    for ii_path in ii_paths:
        with open(ii_path, "r", encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                m = marker.match(line) if line.startswith("# ") else None
                if m and not m.group(1).startswith("<") and m.group(1) not in seen:
                    seen.add(m.group(1))
                    order.append(m.group(1))
    deps = [source] + [p for p in order if p != source]
    with open(out, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(f"{target} : " + " \\\n    ".join(d.replace(" ", "\\ ") for d in deps) + "\n")


class Branch(threading.Thread):
    """Steps run one after another, each through the shell as nvcc runs
    them (exec'd, so a stop kills the step itself), their output kept as
    bytes."""

    def __init__(self, name, cmds, env):
        super().__init__(daemon=True)
        self.name_, self.cmds, self.env = name, cmds, env
        self.out, self.err, self.rc, self.failed_step = b"", b"", 0, None
        self.began = self.ended = 0.0
        self.procs, self.stopped = [], False
        self.lock = threading.Lock()

    @property
    def seconds(self):
        return self.ended - self.began

    def run(self):
        self.began = time.perf_counter()
        for cmd in self.cmds:
            with self.lock:
                if self.stopped:
                    self.rc = self.rc or 1
                    break
                p = subprocess.Popen("exec " + cmd, shell=True, env=self.env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
                self.procs.append(p)
            out, err = p.communicate()
            self.out += out
            self.err += err
            if p.returncode != 0:
                self.rc = p.returncode if p.returncode > 0 else 1
                self.failed_step = tool(cmd)
                break
        self.ended = time.perf_counter()

    def stop(self):
        with self.lock:
            self.stopped = True
            for p in self.procs:
                if p.poll() is None:
                    p.kill()


def emit(out, err):
    sys.stdout.flush()
    sys.stderr.flush()
    sys.stdout.buffer.write(out)
    sys.stdout.buffer.flush()
    sys.stderr.buffer.write(err)
    sys.stderr.buffer.flush()


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    nvcc, args = argv[1], argv[2:]
    if os.environ.get("CUDAL1_NVCC_SPLIT", "1") == "0" or left_to_nvcc(effective_args(args)):
        run_real(nvcc, args)
    began = time.perf_counter()
    keep = tempfile.mkdtemp(prefix="cudal1-nvcc-")
    branches = []

    def ended_by(signum, frame):  # SIGTERM, SIGINT, SIGHUP: the steps go too, and the folder
        for b in branches:
            b.stop()
        raise SystemExit(128 + signum)
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, ended_by)
    try:
        got = dryrun(nvcc, args, keep)
        laid = plan(got[1]) if got else None
        sources = [a for a in args if a.endswith(".cu") and os.path.isfile(a)]
        if laid is None or len(sources) != 1:
            shutil.rmtree(keep, ignore_errors=True)
            run_real(nvcc, args)
        env_add, _, dry_out, dry_err = got
        host, device, final, deps, module_id_file, orig_path = laid
        env = dict(os.environ)
        env.update(env_add)
        with open(module_id_file, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(os.environ.get("CUDAL1_NVCC_MODULE_ID") or module_id_for(orig_path, effective_args(args)))
        emit(dry_out, dry_err)  # nvcc's own warnings (an option given twice), before its steps' output
        h, d = Branch("host", host, env), Branch("device", device, env)
        branches += [h, d]
        h.start()
        d.start()
        h.join()
        if h.rc:
            d.stop()
            d.join()
            emit(h.out, h.err)
            return h.rc
        d.join()
        emit(h.out + d.out, h.err + d.err)
        if d.rc:
            return d.rc
        if deps:
            outputs = []
            for pp in (device[0], host[0]):
                words = shlex.split(pp)
                outputs.append(words[words.index("-o") + 1])
            words = shlex.split(final[0])  # the object, as the host compile names it (-o, -odir, --output-file)
            depfile_from(outputs, words[words.index("-o") + 1], sources[0], deps)
        joined = Branch("final", final, env)
        branches.append(joined)
        joined.run()
        emit(joined.out, joined.err)
        log = os.environ.get("CUDAL1_NVCC_LOG")
        if log:
            with open(log, "a") as f:
                # The branches' spans (from the start of this driver) show
                # that they overlapped.
                def span(b):
                    return [round(b.began - began, 3), round(b.ended - began, 3)]
                f.write(json.dumps({"source": sources[0], "host_s": round(h.seconds, 3), "device_s": round(d.seconds, 3),
                                    "final_s": round(joined.seconds, 3), "total_s": round(time.perf_counter() - began, 3),
                                    "host_span": span(h), "device_span": span(d), "rc": joined.rc}) + "\n")
        return joined.rc
    finally:
        for b in branches:
            b.stop()
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
