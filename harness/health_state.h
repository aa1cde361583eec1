#pragma once
// Where the node gate keeps what it reads between runs, all in one state folder
// (core::Options::state_dir: GAUNTLET_STATE_DIR, else /var/lib/gauntlet for root, else
// $XDG_STATE_HOME/gauntlet, else ~/.local/state/gauntlet): baseline.json, the last complete
// `gauntlet run`'s report, which `gauntlet health` compares against; and health-state.json, what
// the last health run saw of the machine's signals (each device's error counters, the kernel
// log's last record number). Each is written to a temporary file in the folder and renamed.
#include <filesystem>
#include <string>

#include "core/json.h"
#include "core/options.h"
#include "core/status.h"

namespace gauntlet::harness {

std::filesystem::path baseline_path(const core::Options& options);
std::filesystem::path health_state_path(const core::Options& options);

// Writes `text` to `path` through a temporary file beside it and a rename, making the folder.
core::Status write_file_atomically(const std::filesystem::path& path, const std::string& text);

// `gauntlet run`: the report becomes the baseline (only into the state folder, never a file the
// user named).
core::Status write_baseline(const core::Options& options, const std::string& report_json);

// The state file's JSON; an empty object when there is none yet; an error when it is unreadable.
core::Result<core::Json> read_health_state(const std::filesystem::path& path);

}  // namespace gauntlet::harness
