#pragma once
// The tests that need a compute API, by GoogleTest filter pattern: a build without that API
// (-DGAUNTLET_WITH_OPENCL=OFF or -DGAUNTLET_WITH_VULKAN=OFF) leaves them out (test_main.cpp).
// Most are named for the driver they run on (Pocl, OpenCL, Llvmpipe, Vulkan, or the parameter
// /opencl, /vulkan); the others are listed by name.
#include <initializer_list>

namespace gauntlet::testing {

inline constexpr const char* kSkippedBecauseOfTheBuild = "SKIPPED: needs a compute API";

inline constexpr std::initializer_list<const char*> kNeedsOpenCl = {
    "*OpenCL*",
    "*OpenCl*",
    "*opencl*",
    "*Pocl*",
    "*pocl*",
    // They run on opencl:0 without naming it.
    "CliExperts.*",
    "CliDecode.TextOutputNamesTheFigures",
    "CliBenchFlags.BadInputIsAUsageErrorNamingIt",
    "CliPlacement.NglPastTheLayersIsClampedAndSaidSo",
    "CliPlacement.BenchReportsThePlacementsSpeed",
    "CliPlacement.RunAnswersAnEightBillionF16ModelOnAnEightGigabyteCardWithAPlacement",
    "CliPlacement.RunPlacesItsPlacedProfilesAsNglSays",
    "CliPlacement.AQ8_0CacheWithFlashAttentionFitsALongerContextThanF16",
    "CliKvCache.AQuantizedVWithoutFlashAttentionIsAUsageErrorNamingTheFlag",
    "RunTimeBudget.*",
};

inline constexpr std::initializer_list<const char*> kNeedsVulkan = {
    "*Vulkan*",
    "*vulkan*",
    "*Llvmpipe*",
    "*llvmpipe*",
    // It hangs Vulkan's enumeration (the fault probe.vulkan=hang).
    "HealthTest.ADriverThatHangsEnumeratingIsCutAndCritical",
};

// Tests over every device, or over a device of each API at once.
inline constexpr std::initializer_list<const char*> kNeedsEveryApi = {
    "RunOnEveryDevice.*",
    "Inventory.*",
    "CliPlacement.BadPlacementFlagsAreUsageErrors",
    "CliPlacement.NglAndTensorSplitDecodeTheHostsTokens",
    "CliPlacement.RunRefusesASplitThatDoesNotMatchItsDevices",
    "CliDecode.EffectiveBandwidthBesideCopyAndReadOnEachDevice",
    "CliDecode.ProfileCountsEveryDispatchOfTheGeneratedSteps",
    "CliKvCache.AQuantizedCacheWithFlashAttentionDecodesTheHostsTokensOnEachDevice",
    "CliKvCache.BenchShowsTheCacheAsLlamaBenchDoes",
    "CliProbe.AMissingDeviceExitsTwoNamingTheDevicesThatExist",
    "CliProbe.SaxpyPassesOnEveryDevice",
    "RunAModelFile.AQ4KMFileGetsVerdictsOnEveryDevice",
    "CliSpeculative.DraftedTokensAreThePlainGreedyTokensOnEveryDevice",
};

}  // namespace gauntlet::testing
