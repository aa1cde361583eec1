#pragma once
// `gauntlet doctor`: checks the runtime environment before any device is touched (FIELD_CASES
// case 5): the OpenCL ICD loader and each vendor file, the Vulkan loader and each ICD manifest,
// the DRM render nodes and whether this user may open them, and the environment variables that
// change driver behaviour. No context or instance is created.
#include <vector>

#include "core/options.h"
#include "core/outcome.h"

namespace gauntlet::probes {

// One row per check, host-wide (device empty). Ids:
//   doctor.opencl.icd_loader, doctor.opencl.vendors, doctor.opencl.vendor:<.icd file or library>,
//   doctor.vulkan.loader, doctor.vulkan.icds, doctor.vulkan.icd:<manifest>,
//   doctor.drm.render_nodes, doctor.drm.render_node:<node>, doctor.environment.
// A broken thing is a `fail` whose reason names the exact file, with a fix hint in
// metrics["fix"]; a check with nothing to look at (no render nodes) is `skipped` with a note.
// Where the OpenCL vendor files and Vulkan manifests are looked for follows the loaders:
// OCL_ICD_VENDORS (a folder or one .icd file), OCL_ICD_FILENAMES, else /etc/OpenCL/vendors;
// VK_DRIVER_FILES, else VK_ICD_FILENAMES, else the standard icd.d folders, plus
// VK_ADD_DRIVER_FILES. Each library is loaded in an isolated child process (see doctor.cpp).
std::vector<core::Row> run_doctor(const core::Options& options);

}  // namespace gauntlet::probes
