#!/usr/bin/env bash
# Installs what cudal1 needs to build, test and run: Debian packages, and the
# web libraries of the HTML report from the npm registry (web/package-lock.json).
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
  libcurl4-openssl-dev           # the LLM client (HTTP/HTTPS)
  libssl-dev                     # HMAC signatures of the Redis queue's jobs and results
  libcpp-httplib-dev             # HTTP servers: the replay LLM server, cudal1 serve
  libhiredis-dev                 # Redis client (linked statically): judging spread over GPUs and hosts
  redis-server                   # the queue's tests run a real Redis
  libkainjow-mustache-dev        # the optimizer's prompt templates
  libgtest-dev                   # tests
  python3 python3-torch          # the PyTorch reference (CPU build on Debian)
  libtorch-dev pybind11-dev python3-dev  # ModelNew candidates' load_inline extensions
  chromium                       # the HTML report's and the competition page's tests, in a real (headless) browser
  chromium-driver python3-selenium  # the competition page's test drives Chromium (WebDriver, Selenium)
)
# Node.js and npm fetch the web libraries (web/: Chart.js for the HTML report
# and the competition page, CodeMirror and esbuild for the page's editor,
# bundled at build time); a machine that has them already (not from Debian)
# keeps its own.
command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all Debian packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
# The web libraries, at the versions package-lock.json pins: installed again
# when the lock file is newer than what npm last installed.
web="$(dirname "$0")/../web"
if [ ! -f "$web/node_modules/chart.js/dist/chart.umd.js" ] || [ ! -f "$web/node_modules/codemirror/package.json" ] ||
   [ ! -f "$web/node_modules/esbuild/lib/main.js" ] || [ "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]; then
  echo "install-deps: installing the web libraries (npm ci in web/)"
  npm ci --prefix "$web" --no-audit --no-fund --loglevel=error
fi
