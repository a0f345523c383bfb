#!/usr/bin/env bash
# cudal1_nvcc.py runs nvcc's host and device branches side by side. What it
# makes must be what nvcc makes:
#  - with nvcc's own module id, the object is byte-identical to nvcc's (with
#    --keep-dir, so the intermediate files' names embedded in it match), for
#    a source with anonymous namespaces, templates, quoted macros and torch's
#    nvcc flags;
#  - with its own id, the object links the same symbols (the id is only in
#    anonymous-namespace names);
#  - the dependency file lists what nvcc's does;
#  - an error in host code or in device code alone fails the same way, its
#    message printed once;
#  - the two branches overlapped in time;
#  - what it does not lay out (two architectures, no -c) runs nvcc itself.
# Usage: nvcc_split.sh DRIVER.py [PYTHON]
set -euo pipefail
driver=$1
py=${2:-python3}
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$nvcc" ] || { echo "FAIL: no nvcc"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir a b c
cat > k.cu <<'EOF'
#include <cuda_runtime.h>
#include <cstdint>
namespace {
__global__ void scale(float* x, float s, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) x[i] *= s;
}
int helper(int a) { return a * 2; }
}  // namespace
template <typename T> __global__ void fill(T* y, T v, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = v; }
__device__ float table[4];
const char* compiler_type = PYBIND11_COMPILER_TYPE;  // torch's quoted macro, through nvcc's shell
int spaced = SPACED;
void run(float* x, double* y, int n) {
  scale<<<helper(2), 128>>>(x, 2.0f, n);
  fill<<<1, 128>>>(y, 1.0, n);
  fill<<<1, 128>>>(x, 1.0f, n);
}
EOF
macros=('-DPYBIND11_COMPILER_TYPE="_gcc"' '-DSPACED=1 + 2')
flags=(-DTORCH_EXTENSION_NAME=x "${macros[@]}" -D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr -gencode=arch=compute_90,code=sm_90
       --compiler-options '-fPIC' -O3 -std=c++17)
"$nvcc" --generate-dependencies-with-compile --dependency-output a/k.o.d "${flags[@]}" -c k.cu -o a/k.o --keep --keep-dir a
id=$(cat a/k.module_id)
CUDAL1_NVCC_MODULE_ID=$id CUDAL1_NVCC_LOG=$tmp/log.jsonl "$py" "$driver" "$nvcc" --generate-dependencies-with-compile \
  --dependency-output b/k.o.d "${flags[@]}" -c k.cu -o b/k.o
cmp a/k.o b/k.o || { echo "FAIL: with nvcc's module id ($id) the object differs from nvcc's"; exit 1; }
echo "same object as nvcc's, module id $id"
deps() { tr -d '\\' < "$1" | tr ' ' '\n' | grep . | sed 1,2d | sort; }
diff <(deps a/k.o.d) <(deps b/k.o.d) || { echo "FAIL: the dependency files differ"; exit 1; }
echo "same dependencies: $(deps b/k.o.d | wc -l) files"
"$py" - "$tmp/log.jsonl" <<'EOF'
import json, sys
j = json.loads(open(sys.argv[1]).read().splitlines()[-1])
h, d = j["host_span"], j["device_span"]
print("branches: host %.2f-%.2f s, device %.2f-%.2f s, then %.2f s; %.2f s in all" % (*h, *d, j["final_s"], j["total_s"]))
if not (d[0] < h[1] and h[0] < d[1]):
    sys.exit("FAIL: the host and device branches did not overlap")
EOF

# Its own module id: the same symbols, but for the anonymous namespace's.
"$py" "$driver" "$nvcc" "${flags[@]}" -c k.cu -o c/k.o
own=$(strings -a c/k.o | grep -oE '_GLOBAL__N__[0-9a-f]{8}_4_k_cu_cudal1_[0-9a-f]{16}' | head -1)
[ -n "$own" ] || { echo "FAIL: no cudal1 module id in the object's anonymous-namespace names"; exit 1; }
# The ids replaced, and the mangling's lengths (which count them) left out.
syms() { nm "$1" | awk '{print $NF}' | sed "s/_GLOBAL__N_$id/ANON/g; s/$own/ANON/g; s/[0-9]//g" | sort; }
diff <(syms a/k.o) <(syms c/k.o) || { echo "FAIL: other symbols than nvcc's"; exit 1; }
echo "own module id ${own#_GLOBAL__N_}: the same $(syms c/k.o | wc -l) symbols"

# Errors: in code both branches parse, and in device code alone.
printf '#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = undefined_name; }\n' > host_err.cu
printf '#include <cuda_runtime.h>\nint host_only(int a) { return a; }\n__global__ void k(int* x) { x[0] = host_only(1); }\n' > dev_err.cu
for f in host_err dev_err; do
  set +e
  "$nvcc" "${flags[@]}" -c $f.cu -o a/$f.o > a/$f.log 2>&1; want=$?
  "$py" "$driver" "$nvcc" "${flags[@]}" -c $f.cu -o b/$f.o > b/$f.log 2>&1; got=$?
  set -e
  [ "$want" != 0 ] || { echo "FAIL: nvcc accepted $f.cu"; exit 1; }
  [ "$got" != 0 ] || { echo "FAIL: the driver accepted $f.cu"; cat b/$f.log; exit 1; }
  [ ! -e b/$f.o ] || { echo "FAIL: $f.o was written"; exit 1; }
  diff a/$f.log b/$f.log || { echo "FAIL: $f.cu's messages differ from nvcc's"; exit 1; }
  echo "$f.cu: exit $got (nvcc $want), the same $(grep -c error a/$f.log) error line(s)"
done

# One source built twice with different flags and linked together: two
# module ids, as nvcc's (with one, the anonymous namespace's host stubs
# collided at the link).
cat > w.cu <<'EOF'
#include <cuda_runtime.h>
namespace {
__global__ void scale(float* x) { x[threadIdx.x] *= 2; }
}  // namespace
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
__global__ void KNAME(float* x) { x[0] = 1; }
void CAT(launch_, KNAME)(float* x) { scale<<<1, 32>>>(x); KNAME<<<1, 1>>>(x); }
EOF
for k in ka kb; do
  "$py" "$driver" "$nvcc" -gencode=arch=compute_90,code=sm_90 -Xcompiler -fPIC -DKNAME=$k -c w.cu -o b/w_$k.o
done
# nvcc links them: it knows where its runtime library is (on a machine whose
# nvcc on PATH is a wrapper script, the folder above it is not CUDA's).
"$nvcc" -shared --cudart shared b/w_ka.o b/w_kb.o -o b/w.so 2> b/link.log || { echo "FAIL: two objects of one source did not link"; cat b/link.log; exit 1; }
echo "one source, two flag sets: linked ($(strings -a b/w_ka.o | grep -oE '_cudal1_[0-9a-f]{16}' | head -1) and $(strings -a b/w_kb.o | grep -oE '_cudal1_[0-9a-f]{16}' | head -1))"

# nvcc's own warnings come through; --dryrun shows the steps and builds nothing.
"$py" "$driver" "$nvcc" -O3 -O2 "${flags[@]}" -c k.cu -o b/twice.o 2> b/twice.log
grep -q "incompatible redefinition for option 'optimize'" b/twice.log || { echo "FAIL: nvcc's warning was lost"; cat b/twice.log; exit 1; }
"$py" "$driver" "$nvcc" --dryrun "${flags[@]}" -c k.cu -o b/dry.o 2> b/dry.log
grep -q '^#\$ .*cicc' b/dry.log && [ ! -e b/dry.o ] || { echo "FAIL: --dryrun was not nvcc's"; exit 1; }
echo "nvcc's warning passed on; --dryrun left to nvcc"

# Not laid out here: nvcc itself (no log line, the object still made).
: > "$tmp/log2.jsonl"
CUDAL1_NVCC_LOG=$tmp/log2.jsonl "$py" "$driver" "$nvcc" "${macros[@]}" -gencode=arch=compute_90,code=sm_90 -gencode=arch=compute_80,code=sm_80 \
  -c k.cu -o b/two.o
[ -s b/two.o ] && [ ! -s "$tmp/log2.jsonl" ] || { echo "FAIL: two architectures were not left to nvcc"; exit 1; }
CUDAL1_NVCC_SPLIT=0 CUDAL1_NVCC_LOG=$tmp/log2.jsonl "$py" "$driver" "$nvcc" "${flags[@]}" -c k.cu -o b/off.o
[ -s b/off.o ] && [ ! -s "$tmp/log2.jsonl" ] || { echo "FAIL: CUDAL1_NVCC_SPLIT=0 did not run nvcc itself"; exit 1; }
"$py" "$driver" "$nvcc" --version | grep -q "Cuda compilation tools" || { echo "FAIL: --version was not nvcc's"; exit 1; }
echo "two architectures, CUDAL1_NVCC_SPLIT=0 and --version ran nvcc itself"
echo PASS
