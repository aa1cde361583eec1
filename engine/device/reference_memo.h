#pragma once
// The host reference's results for a profile check, kept for the next device checked against the
// same pass: the reference is deterministic, so one file, KV precision, context and the tokens
// it is fed give the same logits whichever device is being checked. A run checks every device
// against the same passes of one model; without this the reference ran each pass once per device
// (a 512-token pass took it 7 s of a quick run's ~2 minutes, per device).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/model/gguf.h"

namespace gauntlet::engine::device {

struct ReferenceRun {
  std::vector<std::vector<float>> logits;  // the compared positions' logits, in order
  std::vector<int32_t> tokens;             // the reference's argmax at each
};

// Names what a reference run depends on: the file (its path, size and a sample of its bytes),
// then every other input as `parts`.
std::string reference_key(const model::GgufFile& file, std::span<const uint64_t> parts);

// The process's kept runs (the 8 most recent, at most 64 MiB of logits, but always the newest),
// safe to use from several threads.
std::optional<ReferenceRun> find_reference_run(const std::string& key);
void keep_reference_run(const std::string& key, ReferenceRun run);

}  // namespace gauntlet::engine::device
