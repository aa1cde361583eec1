#pragma once
// Speculative decoding checked by running it (run -md DRAFT, or run --spec-type draft-mtp): on
// each device, its heaviest safe profile generates kSpeculationTokens greedy tokens plainly and
// again with the draft model (on the same device) or the model file's own MTP head (on the host)
// proposing, in an isolated child watched as one more unit. With greedy
// sampling the tokens must be the same: a draft path that changes them is a silent error, so the
// profile becomes unsafe. The draft's acceptance and both speeds go into the report.
#include <filesystem>
#include <vector>

#include "core/device_info.h"
#include "core/options.h"
#include "harness/device_stage.h"
#include "harness/profiles.h"
#include "harness/quick_model.h"
#include "harness/unit_signals.h"
#include "reports/report.h"

namespace gauntlet::harness {

inline constexpr uint32_t kSpeculationTokens = 64;
// The report's name for the drafter when it is the model file's MTP head.
inline constexpr const char* kMtpDrafter = "MTP head";

// `draft`: the draft model's file; empty: the model file's MTP head.
reports::SpeculationResult run_speculation(const core::DeviceInfo& device, const ModelSet& models,
                                           const std::vector<Candidate>& candidates,
                                           const std::filesystem::path& draft,
                                           const core::Options& options, DeviceWatch& watch,
                                           const Progress& progress);

// A check whose tokens differ makes its profile unsafe (cause "mismatch", subject
// "speculative"); any other result leaves the verdicts as they are.
void apply_speculation(const reports::SpeculationResult& result,
                       std::vector<Candidate>& candidates);

}  // namespace gauntlet::harness
