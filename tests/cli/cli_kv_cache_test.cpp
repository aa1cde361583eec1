// The KV cache as users set it on decode and bench (-ctk, -ctv, -fa): a quantized cache with
// flash attention decodes the host reference's tokens on each device, the JSON says which cache
// ran, bench's table gains llama-bench's type_k/type_v/fa columns, and a quantized V without
// flash attention is a usage error naming the flag.
#include <gtest/gtest.h>

#include <string>

#include "core/json.h"
#include "tests/support/run_command.h"

namespace gauntlet::testing {
namespace {

core::Json decode_json(const std::string& device, const std::string& cache) {
  auto r = run_command("(" + gauntlet_exe() + " decode --shape test-small --format Q8_0 -n 12 " +
                       "--device " + device + " " + cache + " --json 2>/dev/null)");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.exit_code == 0 ? core::Json::parse(r.output) : core::Json{};
}

// -fa is left at auto: a quantized V turns flash attention on.
TEST(CliKvCache, AQuantizedCacheWithFlashAttentionDecodesTheHostsTokensOnEachDevice) {
  const auto host = decode_json("host", "-ctk q8_0 -ctv q8_0");
  ASSERT_TRUE(host.contains("tokens"));
  EXPECT_EQ(host["tokens"].size(), 12u);
  EXPECT_EQ(host["kv_cache"]["type_k"], "q8_0");
  EXPECT_EQ(host["kv_cache"]["type_v"], "q8_0");
  EXPECT_EQ(host["kv_cache"]["flash_attention"], true);
  for (const char* device : {"opencl:0", "vulkan:0"}) {
    SCOPED_TRACE(device);
    const auto out = decode_json(device, "-ctk q8_0 -ctv q8_0");
    EXPECT_EQ(out["kv_cache"]["flash_attention"], true);
    EXPECT_EQ(out["tokens"], host["tokens"]);
  }
  const auto plain = decode_json("host", "");
  EXPECT_EQ(plain["kv_cache"]["type_k"], "f32");
  EXPECT_EQ(plain["kv_cache"]["flash_attention"], false);
}

TEST(CliKvCache, BenchShowsTheCacheAsLlamaBenchDoes) {
  auto r = run_command("(" + gauntlet_exe() +
                       " bench --shape test-gqa --format Q8_0 -p 16 -n 4 -r 1 --device vulkan:0 "
                       "-ctk q8_0 -ctv q8_0 -fa on 2>/dev/null)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto header = r.output.substr(0, r.output.find('\n'));
  EXPECT_NE(header.find("| type_k | type_v | fa |"), std::string::npos) << header;
  EXPECT_NE(r.output.find("| q8_0   | q8_0   |  1 |"), std::string::npos) << r.output;
  r = run_command("(" + gauntlet_exe() +
                  " bench --shape test-gqa --format Q8_0 -p 16 -n 4 -r 1 --device host "
                  "-ctk q8_0 -ctv q4_0 -fa on -o json 2>/dev/null)");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto rows = core::Json::parse(r.output);
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["type_k"], "q8_0");
    EXPECT_EQ(row["type_v"], "q4_0");
    EXPECT_EQ(row["flash_attn"], true);
    EXPECT_GT(row["avg_ts"].get<double>(), 0.0);
  }
}

TEST(CliKvCache, AQuantizedVWithoutFlashAttentionIsAUsageErrorNamingTheFlag) {
  for (const char* command : {" decode", " bench -p 16 -n 4"}) {
    SCOPED_TRACE(command);
    auto r = run_command(gauntlet_exe() + command +
                         " --shape test-small --format Q8_0 --device opencl:0 -ctv q8_0 -fa off");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--cache-type-v q8_0 needs flash attention"), std::string::npos)
        << r.output;
    r = run_command(gauntlet_exe() + command +
                    " --shape test-small --format Q8_0 --device opencl:0 -ctk q3_K");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--cache-type-k"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace gauntlet::testing
