#!/usr/bin/env bash
# Installs what cudal1 needs to build, test and run, from Debian packages.
# Safe to run again: it installs only what is missing. Needs root (or sudo).
#
# The CUDA toolkit is not a Debian package here: where nvcc is installed
# (/usr/local/cuda, or CUDA_HOME), the build adds the CUDA backend; without it
# cudal1 builds and runs with the CPU backend only.
set -euo pipefail
packages=(
  g++ cmake ninja-build          # build
  nlohmann-json3-dev             # JSON for the worker protocol and reports
  libsqlite3-dev                 # the results store
  libgtest-dev                   # tests
  python3 python3-torch          # the PyTorch reference (CPU build on Debian)
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
