#pragma once
// What a killed run leaves behind: the temporaries of its atomic writes. A report is written to
// ".<name>.XXXXXX" beside it and renamed; a cached model to "<model>.tmp.<pid>". A run removes
// those of its outputs before it starts, and those of cache writers that are gone.
#include <filesystem>
#include <vector>

namespace gauntlet::harness {

// Removes ".<name>.XXXXXX" beside each of `outputs`, and "*.tmp.<pid>" in `cache_dir` whose
// process no longer exists. Returns what it removed.
std::vector<std::filesystem::path> remove_stale_temporaries(
    const std::vector<std::filesystem::path>& outputs, const std::filesystem::path& cache_dir);

}  // namespace gauntlet::harness
