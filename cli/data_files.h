#pragma once
// The files gauntlet ships beside its binary: the report and fleet JSON Schemas and the simulate
// presets. Installed, they are in <prefix>/share/gauntlet/ beside <prefix>/bin/gauntlet; a build
// tree mirrors that layout (<build>/share/gauntlet/ beside <build>/cli/gauntlet), so the same rule,
// "../share/gauntlet" from the binary's folder, finds them in both.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace gauntlet::cli {

// The data folder, when it exists next to the running binary.
std::optional<std::filesystem::path> find_data_dir();

// The preset files in <data>/presets, by name ("arc-16g"), sorted.
std::vector<std::string> installed_preset_names(const std::filesystem::path& data_dir);

// `--simulate NAME`: a preset file of the data folder when NAME is not a file of its own, so that
// presets added to the installed folder work by name; anything else is returned as given.
std::string resolve_simulate(const std::string& file_or_preset);

// For `gauntlet --version`: the version, then where the schemas and presets were found, and
// whether each schema on disk is the one built into the binary.
std::string version_text();

}  // namespace gauntlet::cli
