#pragma once
// Small helpers for terminal output shared by the subcommands.
#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet::cli {

std::string format_bytes(uint64_t bytes);

// Prints rows as columns padded to the widest cell; the first row is the header.
std::string format_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace gauntlet::cli
