// The suite on PoCL: fp16 arithmetic is not claimed (unsupported), the emulated 16-bit paths
// are verified, every weight type dequantizes bit-exactly, and the 1 MiB local memory is verified.
#include "conform_fixture.h"

namespace gauntlet::conformance::testing {
namespace {

const char* kDevice = "opencl:0";

TEST(ConformOpenCL, HalfArithmeticUnsupportedEmulatedPathsVerified) {
  const auto& r = full_run(kDevice);
  EXPECT_EQ(verdict(r, "f16.arithmetic"), Verdict::unsupported) << rows_text(r);
  EXPECT_EQ(r.features.at("f16.arithmetic").reason, "cl_khr_fp16 not claimed");
  EXPECT_EQ(verdict(r, "f16"), Verdict::emulated) << rows_text(r);
  EXPECT_EQ(verdict(r, "f16.storage"), Verdict::verified);
  EXPECT_EQ(verdict(r, "bf16"), Verdict::emulated);
  EXPECT_EQ(verdict(r, "bf16.storage"), Verdict::verified);
  EXPECT_EQ(verdict(r, "bf16.arithmetic"), Verdict::unsupported);
  for (const char* id : {"conform.f16.emulated.add", "conform.f16.emulated.fma",
                         "conform.convert.f32_to_f16", "conform.convert.f16_to_f32"}) {
    const core::Row* row = find_row(r, id);
    ASSERT_NE(row, nullptr) << id;
    EXPECT_EQ(row->status, core::RowStatus::pass) << id << ": " << row->reason;
  }
}

TEST(ConformOpenCL, EveryOtherFeatureVerified) {
  const auto& r = full_run(kDevice);
  for (const char* key :
       {"f32", "f64", "int8", "int8.dot", "q8_0", "q4_0", "local_memory", "workgroup"}) {
    EXPECT_EQ(verdict(r, key), Verdict::verified) << key << "\n" << rows_text(r);
  }
  EXPECT_EQ(find_row(r, "conform.gguf.q8_0")->status, core::RowStatus::pass);
  EXPECT_EQ(find_row(r, "conform.gguf.q4_0")->status, core::RowStatus::pass);
}

TEST(ConformOpenCL, EveryWeightTypeDequantizesBitExactly) {
  expect_every_type_dequantizes(full_run(kDevice));
}

TEST(ConformOpenCL, WrongDequantizationFailsWithEvidence) {
  expect_wrong_dequantization_fails(kDevice, "q4_0");
}

TEST(ConformOpenCL, LocalMemoryBothFormsAndRefusalOverTheLimit) {
  const auto& r = full_run(kDevice);
  const auto claimed = claimed_device(core::Options{}, kDevice);
  ASSERT_GT(claimed.local_mem_size, 0u);
  EXPECT_EQ(r.local_mem_verified_bytes, claimed.local_mem_size);
  for (const char* form : {"opencl_arg", "opencl_static"}) {
    const core::Row* full = find_row(r, std::string("conform.local.") + form + ".100pct");
    ASSERT_NE(full, nullptr) << form;
    EXPECT_EQ(full->status, core::RowStatus::pass) << full->reason;
    const core::Row* over = find_row(r, std::string("conform.local.") + form + ".over_by_one");
    ASSERT_NE(over, nullptr) << form;
    EXPECT_EQ(over->status, core::RowStatus::unsupported);
    const std::string limit = std::to_string(claimed.local_mem_size);
    EXPECT_NE(over->reason.find("local memory " + std::to_string(claimed.local_mem_size + 1) +
                                " > " + limit + " (CL_DEVICE_LOCAL_MEM_SIZE)"),
              std::string::npos)
        << over->reason;
  }
  EXPECT_GE(r.max_workgroup_verified, 64u);
}

// A driver that refuses the top byte it advertises (NVIDIA's OpenCL does, for a __local argument)
// is a finding: the refused sizes are unsupported, not failed, and the figure that works is the
// one verified.
TEST(ConformOpenCL, OverAdvertisedLocalMemoryIsAFindingWithTheFigureThatWorks) {
  auto r = run(kDevice, "conform.local.*", "conform.local.over_advertise=1");
  const auto claimed = claimed_device(core::Options{}, kDevice);
  const uint64_t limit = claimed.local_mem_size;
  ASSERT_GT(limit, 0u);
  for (const char* form : {"opencl_arg", "opencl_static"}) {
    const std::string prefix = std::string("conform.local.") + form + ".";
    const core::Row* full = find_row(r, prefix + "100pct");
    ASSERT_NE(full, nullptr) << rows_text(r);
    EXPECT_EQ(full->status, core::RowStatus::unsupported) << full->reason;
    EXPECT_NE(full->reason.find("the driver over-advertises"), std::string::npos) << full->reason;
    const core::Row* largest = find_row(r, prefix + "largest");
    ASSERT_NE(largest, nullptr) << rows_text(r);
    EXPECT_EQ(largest->status, core::RowStatus::unsupported) << largest->reason;
    EXPECT_LT(largest->metrics["bytes"].get<uint64_t>(), limit);
    EXPECT_GE(largest->metrics["bytes"].get<uint64_t>(), limit - limit / 256 - 1);
  }
  EXPECT_LT(r.local_mem_verified_bytes, limit);
  EXPECT_GE(r.local_mem_verified_bytes, limit - limit / 256 - 1);
  EXPECT_EQ(verdict(r, "local_memory"), Verdict::verified) << rows_text(r);
  for (const auto& row : r.rows) {
    EXPECT_NE(row.status, core::RowStatus::fail) << row.id << ": " << row.reason;
  }
}

TEST(ConformOpenCL, WrongConversionFailsWithEvidence) {
  auto r = run(kDevice, "conform.convert.f32_to_f16", "conform.convert.f32_to_f16=wrong");
  const core::Row* row = find_row(r, "conform.convert.f32_to_f16");
  ASSERT_NE(row, nullptr) << rows_text(r);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  EXPECT_NE(row->reason.find("index 512: in = "), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("; expected 0x"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find(", actual 0x"), std::string::npos) << row->reason;
  EXPECT_NE(row->reason.find("; seed 0x"), std::string::npos) << row->reason;
  EXPECT_EQ(verdict(r, "f16.storage"), Verdict::failed);
}

TEST(ConformOpenCL, OutOfBoundsWriteCaughtByGuard) {
  auto r = run(kDevice, "conform.f32.storage", "conform.f32.storage=oob");
  const core::Row* row = find_row(r, "conform.f32.storage");
  ASSERT_NE(row, nullptr) << rows_text(r);
  EXPECT_EQ(row->status, core::RowStatus::fail);
  EXPECT_NE(row->reason.find("guard region of buffer 3 overwritten at byte 0"), std::string::npos)
      << row->reason;
  EXPECT_EQ(verdict(r, "f32"), Verdict::failed);
}

}  // namespace
}  // namespace gauntlet::conformance::testing
