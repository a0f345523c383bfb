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

Anything but a single-architecture whole-program compile of one file (-c),
or a command line nvcc's --dryrun does not lay out as expected, runs the
real nvcc unchanged. CUDAL1_NVCC_SPLIT=0 does that always.
CUDAL1_NVCC_LOG=FILE appends a JSON line per compile with the branches'
seconds.
"""
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zlib


def run_real(nvcc, args):
    os.execv(nvcc, [nvcc] + args)


def dryrun(nvcc, args, keep_dir):
    """nvcc's environment assignments and commands for ARGS, or None."""
    p = subprocess.run([nvcc, "--dryrun", "--keep", "--keep-dir", keep_dir] + args,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None
    env, cmds = {}, []
    for line in p.stderr.splitlines():
        if not line.startswith("#$ "):
            continue
        line = line[3:].strip()
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$", line)
        if m and not cmds:
            env[m.group(1)] = m.group(2).strip()
        else:
            cmds.append(line)
    return env, cmds


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
    """(host branch, device branch, joined steps, deps target, module id file)
    or None where the commands are not the expected single-file compile."""
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
        if t == "pp-host":
            host.append(cmd)
        elif t == "cudafe++":
            if "--gen_module_id_file" not in words or "--module_id_file_name" not in words:
                return None
            module_id = words[words.index("--module_id_file_name") + 1]
            host.append(cmd.replace("--gen_module_id_file ", "", 1))
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


def module_id_for(path):
    """nvcc's form: _CRC32(path)_LEN_NAME_, then (where nvcc puts the first
    external definition's name) a digest of the source's bytes. `path` is
    cudafe++'s --orig_src_path_name, as nvcc hashes it."""
    base = os.path.basename(path)
    name = re.sub(r"[^A-Za-z0-9]", "_", base)
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    return "_%08x_%d_%s_cudal1_%s" % (zlib.crc32(path.encode()), len(base), name, digest)


def depfile_from(ii_paths, target, source, out):
    """A make-style dependency file from the preprocessed files' line
    markers (nvcc's lists what the host and the device preprocessing read):
    the source first, then each file as first entered."""
    seen, order = set(), []
    marker = re.compile(r'^# \d+ "([^"]+)"')
    for ii_path in ii_paths:
        with open(ii_path, "r", errors="replace") as f:
            for line in f:
                m = marker.match(line) if line.startswith("# ") else None
                if m and not m.group(1).startswith("<") and m.group(1) not in seen:
                    seen.add(m.group(1))
                    order.append(m.group(1))
    deps = [source] + [p for p in order if p != source]
    with open(out, "w") as f:
        f.write(f"{target} : " + " \\\n    ".join(d.replace(" ", "\\ ") for d in deps) + "\n")


class Branch(threading.Thread):
    def __init__(self, name, cmds, env):
        super().__init__(daemon=True)
        self.name_, self.cmds, self.env = name, cmds, env
        self.out, self.err, self.rc, self.failed_step = "", "", 0, None
        self.began = self.ended = 0.0
        self.procs, self.stopped = [], False

    @property
    def seconds(self):
        return self.ended - self.began

    def run(self):
        self.began = time.perf_counter()
        for cmd in self.cmds:
            if self.stopped:
                self.rc = self.rc or 1
                break
            p = subprocess.Popen(cmd, shell=True, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 errors="replace")
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
        self.stopped = True
        for p in self.procs:
            if p.poll() is None:
                p.kill()


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    nvcc, args = argv[1], argv[2:]
    if os.environ.get("CUDAL1_NVCC_SPLIT", "1") == "0" or "-c" not in args:
        run_real(nvcc, args)
    began = time.perf_counter()
    keep = tempfile.mkdtemp(prefix="cudal1-nvcc-")
    try:
        got = dryrun(nvcc, args, keep)
        laid = plan(got[1]) if got else None
        sources = [a for a in args if a.endswith(".cu") and os.path.isfile(a)]
        if laid is None or len(sources) != 1:
            shutil.rmtree(keep, ignore_errors=True)
            run_real(nvcc, args)
        env_add, _ = got
        host, device, final, deps, module_id_file, orig_path = laid
        env = dict(os.environ)
        env.update(env_add)
        with open(module_id_file, "w") as f:
            f.write(os.environ.get("CUDAL1_NVCC_MODULE_ID") or module_id_for(orig_path))
        h, d = Branch("host", host, env), Branch("device", device, env)
        h.start()
        d.start()
        h.join()
        if h.rc:
            d.stop()
            d.join()
            sys.stdout.write(h.out)
            sys.stderr.write(h.err)
            return h.rc
        d.join()
        sys.stdout.write(h.out + d.out)
        sys.stderr.write(h.err + d.err)
        if d.rc:
            return d.rc
        if deps:
            outputs = []
            for pp in (device[0], host[0]):
                words = shlex.split(pp)
                outputs.append(words[words.index("-o") + 1])
            obj = args[args.index("-o") + 1] if "-o" in args else os.path.splitext(os.path.basename(sources[0]))[0] + ".o"
            depfile_from(outputs, obj, sources[0], deps)
        joined = Branch("final", final, env)
        joined.run()
        sys.stdout.write(joined.out)
        sys.stderr.write(joined.err)
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
        shutil.rmtree(keep, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
