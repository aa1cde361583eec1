#!/usr/bin/env bash
# Installs every Debian 12 package that gauntlet's build and tests need: compilers and build
# tools, libraries, glslc, the real drivers the device tests run on (PoCL for OpenCL, Mesa
# llvmpipe for Vulkan, the Khronos validation layer), and the real tools the packaging and fleet
# tests use (lintian, help2man, Slurm, yamllint, kubectl). Idempotent; quiet when all is present.
set -euo pipefail

packages=(
  # build
  cmake ninja-build g++ pkg-config git clang-format ccache
  # the fuzz preset: clang with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # libraries
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev libsimdjson-dev
  libhwy-dev
  ocl-icd-opencl-dev opencl-clhpp-headers opencl-c-headers
  libvulkan-dev glslc libdrm-dev libvalijson-dev
  # real drivers for the device tests
  ocl-icd-libopencl1 pocl-opencl-icd mesa-vulkan-drivers vulkan-validationlayers
  # test tools: report schema (and the JSON Schema test suite) and JUnit XML validation
  python3-jsonschema libxml2-utils json-schema-test-suite
  # the Debian package (CPack's dpkg-shlibdeps needs dpkg-dev and file), its man page and lint
  dpkg-dev file help2man lintian
  # the fleet recipes' tests: a real single-node Slurm cluster, the CI files' lint
  munge slurmctld slurmd slurm-client yamllint python3-yaml
  # `gauntlet health --format prometheus` parsed by the Prometheus client's own parser; the
  # Kubernetes objects checked against the official client's types, generated from the API's spec
  python3-prometheus-client python3-kubernetes
)
# Debian's kubectl, unless a kubectl is installed already (another package of it owns the path).
if ! command -v kubectl >/dev/null; then packages+=(kubernetes-client); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
