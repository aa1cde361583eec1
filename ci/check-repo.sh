#!/usr/bin/env bash
# Repository checks CI runs before building: formatting (.clang-format at the root) and the
# include directions of docs/DESIGN.md (a folder includes only the folders below it).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

unformatted=$(git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run 2>&1 | grep -c 'warning:' || true)
if [ "$unformatted" -ne 0 ]; then
  echo "check-repo: $unformatted places are not clang-formatted; run:"
  echo "  git ls-files '*.cpp' '*.h' | xargs clang-format -i"
  status=1
fi

forbid() {  # folder, the folders it may not include
  local folder=$1 pattern=$2 hits
  hits=$(git ls-files "$folder" | grep -E '\.(cpp|h)$' | xargs -r grep -nE "#include \"($pattern)/" || true)
  if [ -n "$hits" ]; then
    echo "check-repo: $folder/ includes against the direction in DESIGN.md:"
    echo "$hits"
    status=1
  fi
}
forbid core 'backends|probes|conformance|stress|engine|harness|reports|cli|signals'
forbid signals 'backends|probes|conformance|stress|engine|harness|reports|cli'
forbid backends 'probes|conformance|stress|engine|harness|reports|cli'
forbid probes 'conformance|stress|engine|harness|reports|cli'
forbid conformance 'stress|engine|harness|reports|cli'
forbid stress 'conformance|engine|harness|reports|cli'
forbid engine 'conformance|stress|harness|reports|cli'
forbid reports 'backends|probes|conformance|stress|engine|harness|cli'
forbid harness 'cli'

# Inside engine/ (docs/DESIGN.md, "Folders"): the model and the interfaces (batch.h, decoder.h,
# stage.h) at the bottom, then the planner and placement, the host reference, the cpu device's
# products, the loader, the device decoder; the top-level engine files above them all.
forbid engine/model 'engine/(planner|placement|reference|cpu|loader|device)'
forbid engine/planner 'engine/(placement|reference|cpu|loader|device)'
forbid engine/placement 'engine/(reference|cpu|loader|device)'
forbid engine/reference 'engine/(cpu|loader|device|placement)'
forbid engine/cpu 'engine/(loader|device|placement)'
forbid engine/loader 'engine/(device|placement|reference)'
forbid engine/device 'engine/(placement|cpu)'
interface_hits=$( (grep -nE '#include "engine/[a-z_]+/' engine/batch.h engine/decoder.h engine/stage.h
  git ls-files engine/model | xargs -r grep -nE '#include "engine/[a-z_]+\.h"') || true)
if [ -n "$interface_hits" ]; then
  echo "check-repo: the engine's interfaces include a floor above them:"
  echo "$interface_hits"
  status=1
fi

# Only backends/<api>/ may include that API's headers.
api_hits=$(git ls-files core signals probes conformance stress engine harness reports cli | grep -E '\.(cpp|h)$' |
  xargs -r grep -nE '#include [<"](CL/|vulkan/|xf86drm|libdrm)' || true)
if [ -n "$api_hits" ]; then
  echo "check-repo: an OpenCL, Vulkan or DRM header outside backends/:"
  echo "$api_hits"
  status=1
fi
exit "$status"
