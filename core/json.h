#pragma once
// The one JSON library of the project, and the helpers that every module shares.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace gauntlet::core {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Parses text; a syntax error becomes an invalid_argument error that names `what` and the byte.
Result<Json> parse_json(const std::string& text, const std::string& what);
Result<Json> read_json_file(const std::filesystem::path& path);

// Writes `text` to `path` atomically: a temporary file in the same folder, flushed, then renamed,
// so that a reader never sees half a file and a failure leaves the old file in place.
Status write_file_atomically(const std::filesystem::path& path, const std::string& text);
Result<std::string> read_text_file(const std::filesystem::path& path);

}  // namespace gauntlet::core
