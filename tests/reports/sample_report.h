#pragma once
// A report built in code, as the harness would fill it: two devices (llvmpipe through Vulkan with
// 32 KiB of local memory, PoCL through OpenCL without f16), profiles of every verdict, a stress
// curve and conformance rows.
#include <filesystem>
#include <string>

#include "reports/report.h"

namespace gauntlet::reports::testing {

Report sample_report();

// A fresh folder under the build tree for one test's files.
std::filesystem::path test_dir(const std::string& name);

// Runs a command line, returns its exit status and captures stdout+stderr into `output`.
int run_command(const std::string& command, std::string* output);

// Validates `report_path` against the shipped schema with python3-jsonschema (a complete
// validator). Returns the exit status (0 valid); `output` gets the validator's messages.
int validate_with_jsonschema(const std::filesystem::path& report_path, std::string* output);

}  // namespace gauntlet::reports::testing
