// The suite on llvmpipe under the validation layer: f16 verified (native), local memory verified
// at 32768 bytes, 32769 and 41216 refused as rows that name the limit, no validation message.
#include "conform_fixture.h"

namespace gauntlet::conformance::testing {
namespace {

const char* kDevice = "vulkan:0";

void expect_no_validation_rows(const ConformanceResult& r) {
  for (const auto& row : r.rows) {
    EXPECT_EQ(row.id.find(".validation"), std::string::npos) << row.id << ": " << row.reason;
  }
}

TEST(ConformVulkan, RunsUnderValidation) {
  auto options = core::Options::from_environment();
  ASSERT_TRUE(options.is_ok());
  ASSERT_TRUE(options->vulkan_validation) << "the test must run with GAUNTLET_VK_VALIDATION=1";
  const auto& r = full_run(kDevice);
  expect_no_validation_rows(r);
  EXPECT_TRUE(core::all_passed(r.rows)) << rows_text(r);
}

TEST(ConformVulkan, HalfVerified) {
  const auto& r = full_run(kDevice);
  EXPECT_EQ(verdict(r, "f16"), Verdict::verified) << rows_text(r);
  EXPECT_EQ(verdict(r, "f16.arithmetic"), Verdict::verified);
  EXPECT_EQ(verdict(r, "f16.storage"), Verdict::verified);
  EXPECT_EQ(verdict(r, "bf16"), Verdict::emulated);
  for (const char* key : {"f32", "f64", "int8", "int8.dot", "q8_0", "q4_0", "workgroup"}) {
    EXPECT_EQ(verdict(r, key), Verdict::verified) << key;
  }
  EXPECT_EQ(find_row(r, "conform.gguf.q8_0")->status, core::RowStatus::pass);
  EXPECT_EQ(find_row(r, "conform.gguf.q4_0")->status, core::RowStatus::pass);
}

TEST(ConformVulkan, EveryWeightTypeDequantizesBitExactly) {
  const auto& r = full_run(kDevice);
  expect_every_type_dequantizes(r);
  expect_no_validation_rows(r);
}

TEST(ConformVulkan, WrongDequantizationFailsWithEvidence) {
  expect_no_validation_rows(expect_wrong_dequantization_fails(kDevice, "q6_K"));
}

TEST(ConformVulkan, DequantizationOutOfBoundsWriteCaughtByGuard) {
  auto r = run(kDevice, "conform.gguf.q5_0", "conform.gguf.q5_0=oob");
  const core::Row* row = find_row(r, "conform.gguf.q5_0");
  ASSERT_NE(row, nullptr) << rows_text(r);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  EXPECT_NE(row->reason.find("guard region of buffer 1 overwritten at byte 0"), std::string::npos)
      << row->reason;
  EXPECT_EQ(verdict(r, "q5_0"), Verdict::failed);
  expect_no_validation_rows(r);
}

TEST(ConformVulkan, LocalMemoryVerifiedAt32KiBAndOverLimitRefused) {
  const auto& r = full_run(kDevice);
  EXPECT_EQ(r.local_mem_verified_bytes, 32768u) << rows_text(r);
  EXPECT_EQ(verdict(r, "local_memory"), Verdict::verified);
  const core::Row* full = find_row(r, "conform.local.vulkan_shared.100pct");
  ASSERT_NE(full, nullptr);
  EXPECT_EQ(full->status, core::RowStatus::pass) << full->reason;
  EXPECT_EQ(full->metrics["bytes"], 32768);
  const core::Row* one = find_row(r, "conform.local.vulkan_shared.over_by_one");
  ASSERT_NE(one, nullptr);
  EXPECT_EQ(one->status, core::RowStatus::unsupported);
  EXPECT_EQ(one->reason.rfind("local memory 32769 > 32768 (maxComputeSharedMemorySize)", 0), 0u)
      << one->reason;
  const core::Row* field = find_row(r, "conform.local.vulkan_shared.41216");
  ASSERT_NE(field, nullptr);
  EXPECT_EQ(field->status, core::RowStatus::unsupported);
  EXPECT_EQ(field->reason.rfind("local memory 41216 > 32768 (maxComputeSharedMemorySize)", 0), 0u)
      << field->reason;
  EXPECT_EQ(r.subgroup_size_observed, 8u);
}

TEST(ConformVulkan, WrongConversionFailsWithEvidence) {
  auto r = run(kDevice, "conform.convert.f16_to_f32", "conform.convert.f16_to_f32=wrong");
  const core::Row* row = find_row(r, "conform.convert.f16_to_f32");
  ASSERT_NE(row, nullptr) << rows_text(r);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  EXPECT_NE(row->reason.find("index 32768: in = 0x8000"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("; expected -0x0p+0 (-0), actual "), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("; seed 0x"), std::string::npos) << row->reason;
  expect_no_validation_rows(r);
}

TEST(ConformVulkan, OutOfBoundsWriteCaughtByGuard) {
  auto r = run(kDevice, "conform.f32.storage", "conform.f32.storage=oob");
  const core::Row* row = find_row(r, "conform.f32.storage");
  ASSERT_NE(row, nullptr) << rows_text(r);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  EXPECT_NE(row->reason.find("guard region of buffer 3 overwritten at byte 0"), std::string::npos)
      << row->reason;
  expect_no_validation_rows(r);
}

}  // namespace
}  // namespace gauntlet::conformance::testing
