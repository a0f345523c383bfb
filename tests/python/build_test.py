"""Tests of what python/cudal1_candidate.py's build does to make a cold
load_inline build faster without changing what it makes: the CUDA sources
tried first without <torch/extension.h> (and built as written where they
need it), and the precompiled header's variant chosen by the -O and -std
flags a call passes.

    python3 tests/python/build_test.py     (needs torch)
"""
import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
import torch.utils.cpp_extension as ce  # noqa: E402

import cudal1_candidate as cc  # noqa: E402

KERNEL = """#include <torch/extension.h>
#include <cuda_runtime.h>
__global__ void k(float* y) {}
torch::Tensor f(torch::Tensor x) { return x; }
"""


class LighterCudaSources(unittest.TestCase):
    def test_the_include_is_left_out_and_nothing_else_changes(self):
        light = cc.lighter_cuda_sources([KERNEL])
        self.assertEqual(light, [KERNEL.replace("#include <torch/extension.h>", cc.LIGHT_CUDA_NOTE)])

    def test_spellings_of_the_include(self):
        for line in ('#include "torch/extension.h"', "  #  include <torch/extension.h>  ", "#include<torch/extension.h>"):
            self.assertIsNotNone(cc.lighter_cuda_sources(line + "\nint x;\n"), line)

    def test_other_includes_and_mentions_stay(self):
        self.assertIsNone(cc.lighter_cuda_sources("#include <torch/types.h>\n// see torch/extension.h\n"))
        self.assertIsNone(cc.lighter_cuda_sources("#include <torch/extension_helpers.h>\n"))
        self.assertIsNone(cc.lighter_cuda_sources(None))

    def test_a_list_of_sources_is_joined_as_load_inline_joins_it(self):
        light = cc.lighter_cuda_sources(["int a;", "#include <torch/extension.h>", "int b;"])
        self.assertEqual(light, ["int a;\n" + cc.LIGHT_CUDA_NOTE + "\nint b;"])


class PchVariant(unittest.TestCase):
    def test_the_last_optimization_and_standard_flags_count(self):
        self.assertEqual(cc.pch_flags(["-O2", "-use_fast_math", "-O3", "-std=c++17"]), ["-O3", "-std=c++17"])
        self.assertEqual(cc.pch_variant(["-O3", "-std=c++17"]), "O3_stdcxx17")
        self.assertEqual(cc.pch_variant(None), "default")

    def test_flags_given_as_one_string(self):
        self.assertEqual(cc.pch_flags("-O3 -std=c++17"), ["-O3", "-std=c++17"])

    def test_unusual_flags_are_never_passed_on(self):
        self.assertEqual(cc.pch_flags(["-fplugin=/tmp/x.so", "-O3 -fplugin=x", "-std=c++17;rm", "-include/etc/x"]), [])
        self.assertEqual(cc.pch_variant(["../../etc"]), "default")


class PchStamp(unittest.TestCase):
    """A precompiled header made for another torch is never used."""

    def test_a_matching_stamp_is_used_and_another_is_stale(self):
        import json
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(cc.usable_pch(d), (None, "absent"))
            with open(d + "/stamp.json", "w") as f:
                json.dump(cc.pch_stamp(), f)
            self.assertEqual(cc.usable_pch(d), (d, "used"))
            stale = dict(cc.pch_stamp(), torch="0.0.1")
            with open(d + "/stamp.json", "w") as f:
                json.dump(stale, f)
            self.assertEqual(cc.usable_pch(d), (None, "stale"))


class BuildWrapper(unittest.TestCase):
    """patch_extensions_for_build over a stand-in for torch's load_inline."""

    def setUp(self):
        self.real = ce.load_inline
        self.calls = []

    def tearDown(self):
        ce.load_inline = self.real

    def patch(self, needs_full_header):
        calls = self.calls

        class Module:
            __name__ = "ext"
            __file__ = "/tmp/ext/ext.so"

        def fake(name, cpp_sources, cuda_sources=None, **kwargs):
            # As torch's does: the lists given are edited in place.
            if isinstance(cpp_sources, list):
                if any("PYBIND11_MODULE" in c for c in cpp_sources):
                    raise RuntimeError("error: redefinition of pybind11_module_def_ext")
                cpp_sources.insert(0, "#include <torch/extension.h>")
                cpp_sources.append("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {}")
            calls.append(list(cuda_sources) if isinstance(cuda_sources, list) else cuda_sources)
            if isinstance(cuda_sources, list):
                cuda_sources.insert(0, "#include <torch/types.h>")
            text = "\n".join(cuda_sources) if isinstance(cuda_sources, list) else cuda_sources
            if needs_full_header and text is not None and "#include <torch/extension.h>" not in text:
                raise RuntimeError("error: namespace torch has no member nn")
            return Module()
        ce.load_inline = fake
        manifest, notes = {}, {}
        cc.patch_extensions_for_build(manifest, "/tmp/ext", None, notes)
        return manifest, notes

    def test_a_kernel_that_needs_nothing_more_is_built_light(self):
        manifest, notes = self.patch(needs_full_header=False)
        ce.load_inline("ext", ["torch::Tensor f(torch::Tensor x);"], [KERNEL], functions=["f"])
        self.assertEqual(len(self.calls), 1)
        self.assertIn(cc.LIGHT_CUDA_NOTE, self.calls[0][0])
        self.assertEqual(notes["cuda_headers"], ["types"])
        # The manifest's key is the call as written: the run worker's lookup finds it.
        key = cc.extension_key("load_inline", ("ext", ["torch::Tensor f(torch::Tensor x);"], [KERNEL]),
                               {"functions": ["f"], "verbose": False})
        self.assertIn(key, manifest)

    def test_a_kernel_that_needs_the_header_is_built_as_written(self):
        manifest, notes = self.patch(needs_full_header=True)
        ce.load_inline("ext", "", cuda_sources=KERNEL, functions=["f"])
        self.assertEqual(len(self.calls), 2)
        self.assertEqual(self.calls[1], KERNEL)
        self.assertEqual(notes["cuda_headers"], ["extension"])
        self.assertEqual(len(manifest), 1)

    def test_the_retry_gets_the_lists_as_written(self):
        """torch's load_inline edits the lists it is given; the light try
        must not leave its edits to the retry (two module definitions)."""
        manifest, notes = self.patch(needs_full_header=True)
        cpp, cuda = ["torch::Tensor f(torch::Tensor x);"], [KERNEL]
        ce.load_inline("ext", cpp, cuda, functions=["f"])
        self.assertEqual(len(self.calls), 2)
        self.assertEqual(self.calls[1], [KERNEL])
        self.assertEqual(notes["cuda_headers"], ["extension"])
        self.assertEqual(len(manifest), 1)

    def test_a_cpp_only_extension_is_called_once_as_written(self):
        manifest, notes = self.patch(needs_full_header=True)
        ce.load_inline("ext", "int f();", functions=["f"])
        self.assertEqual(self.calls, [None])
        self.assertNotIn("cuda_headers", notes)


class SplitNvcc(unittest.TestCase):
    """torch's build.ninja gets cudal1_nvcc.py in front of its nvcc, once,
    and the driver's figures come back in the build notes."""

    NINJA = "ninja_required_version = 1.3\ncxx = c++\nnvcc = /usr/local/cuda/bin/nvcc\n\nrule cuda_compile\n" \
            "  command = $nvcc  $cuda_cflags -c $in -o $out $cuda_post_cflags\n"

    def setUp(self):
        import os
        import tempfile
        self.real = ce._run_ninja_build
        self.env = dict(os.environ)
        self.dir = tempfile.mkdtemp()
        os.environ["TMPDIR"] = self.dir
        self.seen = []

    def tearDown(self):
        import os
        import shutil
        ce._run_ninja_build = self.real
        os.environ.clear()
        os.environ.update(self.env)
        shutil.rmtree(self.dir)

    def build(self, runs=1):
        import json
        import os
        with open(os.path.join(self.dir, "build.ninja"), "w") as f:
            f.write(self.NINJA)

        def fake(build_directory, verbose, error_prefix):
            with open(os.path.join(build_directory, "build.ninja")) as f:
                self.seen.append(f.read())
            if "CUDAL1_NVCC_LOG" not in os.environ:  # off: no driver to write it
                return
            with open(os.environ["CUDAL1_NVCC_LOG"], "a") as f:
                f.write(json.dumps({"source": "cuda.cu", "host_s": 1.0, "device_s": 2.0, "final_s": 0.5, "total_s": 2.6}) + "\n")
        ce._run_ninja_build = fake
        notes = {}
        cc.split_nvcc(ce, notes)
        for _ in range(runs):
            ce._run_ninja_build(self.dir, False, "Error")
        return notes

    def test_the_driver_goes_in_front_of_nvcc(self):
        import shlex
        import sys
        notes = self.build(runs=2)
        line = [ln for ln in self.seen[0].splitlines() if ln.startswith("nvcc = ")][0]
        self.assertEqual(shlex.split(line[len("nvcc = "):]), [sys.executable, "-I", cc.NVCC_DRIVER, "/usr/local/cuda/bin/nvcc"])
        self.assertEqual(self.seen[1], self.seen[0])  # not put in front twice
        self.assertIn("  command = $nvcc  $cuda_cflags -c $in -o $out $cuda_post_cflags", self.seen[0])
        self.assertEqual(len(notes["nvcc"]), 2)
        self.assertEqual(notes["nvcc"][0]["device_s"], 2.0)

    def test_off_leaves_torch_alone(self):
        import os
        os.environ["CUDAL1_NVCC_SPLIT"] = "0"
        notes = self.build()
        self.assertIn("nvcc = /usr/local/cuda/bin/nvcc\n", self.seen[0])
        self.assertNotIn("nvcc", notes)


class ServerImport(unittest.TestCase):
    """The candidate server imports cpp_extension before it forks CUDA
    workers; that import must not ask torch for CUDA devices (the query
    initializes the driver, after which torch refuses CUDA in forked
    children: every forked worker failed on the H200 with torch 2.11)."""

    PROBE = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import torch
asked = []
real = torch.cuda.is_available
def spy():
    asked.append(1)
    return real()
torch.cuda.is_available = spy
import cudal1_candidate as cc
if sys.argv[2] == "server":
    cc.import_cpp_extension_without_cuda(torch)
else:
    import torch.utils.cpp_extension
import torch.utils.cpp_extension as ce
print(len(asked), torch.cuda.is_available is spy, bool(ce.CUDA_HOME))
"""

    def probe(self, how):
        import os
        import subprocess
        import tempfile
        # A toolkit where cpp_extension looks first, so that its import does
        # look (an empty folder is enough for it to be taken).
        with tempfile.TemporaryDirectory() as cuda_home:
            env = dict(os.environ, CUDA_HOME=cuda_home)
            done = subprocess.run([sys.executable, "-c", self.PROBE, str(Path(cc.__file__).parent), how],
                                  capture_output=True, text=True, env=env, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done.stdout.split()

    def test_a_plain_import_asks_for_devices(self):
        # The hazard itself, on this torch: without the guard the import asks
        # (so the guard below is what keeps the server's children usable).
        asked, restored, found = self.probe("plain")
        self.assertEqual(found, "True")
        self.assertNotEqual(asked, "0")

    def test_the_servers_import_does_not_and_restores_the_query(self):
        asked, restored, found = self.probe("server")
        self.assertEqual((asked, restored, found), ("0", "True", "True"))


if __name__ == "__main__":
    unittest.main()
