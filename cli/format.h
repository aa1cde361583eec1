#pragma once
// Small helpers for terminal output shared by the subcommands.
#include <cstdint>
#include <string>
#include <vector>

namespace gauntlet::cli {

std::string format_bytes(uint64_t bytes);

// Prints "<who>: <message>" on stderr and returns `code` (the exit status).
int fail(const std::string& message, int code, const std::string& who = "gauntlet");

// Prints rows as columns padded to the widest cell; the first row is the header.
std::string format_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace gauntlet::cli
