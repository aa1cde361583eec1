// Mutated and truncated files, generated from valid ones: every one is rejected with a message,
// or, where the mutation left a valid file, accepted and decoded without a fault (ASan checks
// the reads under the asan preset).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "core/rng.h"
#include "engine/reference/decoder.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

struct Tally {
  int rejected = 0;
  int accepted = 0;
};

void check(std::span<const std::byte> bytes, Tally& tally) {
  auto info = model::parse_gguf(bytes);
  if (!info) {
    EXPECT_FALSE(info.error().message.empty());
    ++tally.rejected;
    return;
  }
  auto m = model::load_model(*info, bytes);
  if (!m) {
    EXPECT_FALSE(m.error().message.empty());
    ++tally.rejected;
    return;
  }
  ++tally.accepted;
  // Still a valid model: two steps must run within its bytes.
  reference::DecodeOptions options{1, planner::KvPrecision::f32, 2};
  auto decoder = reference::Decoder::create(*m, options);
  if (!decoder) return;
  auto logits = (*decoder)->step(0);
  if (logits) (void)(*decoder)->step(static_cast<int32_t>(m->shape.n_vocab - 1));
}

size_t header_size(const std::vector<std::byte>& bytes) {
  auto info = model::parse_gguf(bytes);
  EXPECT_TRUE(info.is_ok());
  return info->data_offset;
}

TEST(GgufFuzz, MutatedAndTruncatedFilesAreRejectedCleanly) {
  Tally tally;
  int files = 0;
  // The legacy block types on the micro shape; the k-quant mixes need rows of 256.
  auto k_shape = test::micro_shape();
  k_shape.n_embd = 256;
  k_shape.n_ff = 256;
  const std::pair<model::ModelShape, model::FileType> models[] = {
      {test::micro_shape(), model::FileType::q4_0}, {test::micro_shape(), model::FileType::f16},
      {test::micro_shape(), model::FileType::q8_0}, {test::micro_shape(), model::FileType::q5_1},
      {k_shape, model::FileType::q4_K_M},           {k_shape, model::FileType::q5_K_M}};
  core::Rng rng(2024);
  for (const auto& [shape, format] : models) {
    const auto valid = test::synthetic_bytes(shape, format, 5);
    const size_t header = header_size(valid);

    // Truncations: every header length, then a spread through the data.
    for (size_t n = 0; n < header; ++n) {
      check(std::span(valid.data(), n), tally);
      ++files;
    }
    for (int i = 0; i < 50; ++i) {
      const size_t n = header + rng.next_u64() % (valid.size() - header);
      check(std::span(valid.data(), n), tally);
      ++files;
    }

    // Byte mutations in the header: random bytes, bit flips, and the extremes of a u64.
    for (int i = 0; i < 300; ++i) {
      auto bytes = valid;
      const int edits = 1 + static_cast<int>(rng.next_u64() % 3);
      for (int e = 0; e < edits; ++e) {
        const size_t at = rng.next_u64() % header;
        switch (rng.next_u64() % 4) {
          case 0:
            bytes[at] = static_cast<std::byte>(rng.next_u32());
            break;
          case 1:
            bytes[at] ^= static_cast<std::byte>(1u << (rng.next_u32() % 8));
            break;
          case 2:
            bytes[at] = std::byte{0xff};
            break;
          default:
            bytes[at] = std::byte{0};
            break;
        }
      }
      check(bytes, tally);
      ++files;
    }
  }
  EXPECT_GE(files, 1000);
  EXPECT_GT(tally.rejected, files / 2);
  std::printf("%d files: %d rejected, %d still valid\n", files, tally.rejected, tally.accepted);
}

TEST(GgufFuzz, SpecificDefectsNameTheProblem) {
  const auto valid = test::synthetic_bytes(test::micro_shape(), model::FileType::q8_0, 5);
  auto expect_error = [](std::vector<std::byte> bytes, const std::string& needle) {
    auto info = model::parse_gguf(bytes);
    std::string message;
    if (!info) {
      message = info.error().message;
    } else {
      auto m = model::load_model(*info, bytes);
      ASSERT_FALSE(m.is_ok()) << "accepted a file that should fail with " << needle;
      message = m.error().message;
    }
    EXPECT_NE(message.find(needle), std::string::npos) << message;
  };
  auto bytes = valid;
  bytes[0] = std::byte{'X'};
  expect_error(bytes, "bad magic");
  bytes = valid;
  bytes[4] = std::byte{2};
  expect_error(bytes, "version 2");
  expect_error({valid.begin(), valid.begin() + 20}, "truncated");
  expect_error({valid.begin(), valid.end() - 1}, "outside the file");
  // A tensor count of 2^63.
  bytes = valid;
  bytes[15] = std::byte{0x80};
  expect_error(bytes, "tensor count");

  // Find the first tensor info's dimension and type fields by searching for its name.
  const std::string name = "token_embd.weight";
  auto it = std::search(valid.begin(), valid.end(), reinterpret_cast<const std::byte*>(name.data()),
                        reinterpret_cast<const std::byte*>(name.data()) + name.size());
  ASSERT_NE(it, valid.end());
  const size_t dims_at = static_cast<size_t>(it - valid.begin()) + name.size();  // u32 n_dims
  bytes = valid;
  const uint64_t huge = 1ull << 62;
  std::memcpy(bytes.data() + dims_at + 4, &huge, 8);
  std::memcpy(bytes.data() + dims_at + 12, &huge, 8);
  expect_error(bytes, "overflows");
  bytes = valid;
  const uint32_t unknown = 9;  // q8_1: a ggml type gauntlet does not run
  std::memcpy(bytes.data() + dims_at + 20, &unknown, 4);
  expect_error(bytes, "tensor 'token_embd.weight' has type q8_1 (id 9), which gauntlet cannot run");
  expect_error(bytes, "q4_K (12)");
  bytes = valid;
  const uint64_t other_vocab = 47;  // token_embd [32, 47]: output.weight no longer fits
  std::memcpy(bytes.data() + dims_at + 12, &other_vocab, 8);
  expect_error(bytes, "output.weight");

  // A missing tensor: rename one.
  bytes = valid;
  const std::string norm = "blk.0.ffn_norm.weight";
  auto n = std::search(bytes.begin(), bytes.end(), reinterpret_cast<const std::byte*>(norm.data()),
                       reinterpret_cast<const std::byte*>(norm.data()) + norm.size());
  ASSERT_NE(n, bytes.end());
  *(n + 4) = std::byte{'9'};
  expect_error(bytes, "'blk.0.ffn_norm.weight' is missing");
  EXPECT_FALSE(model::GgufFile::open("/nonexistent/m.gguf").is_ok());
}

}  // namespace
}  // namespace gauntlet::engine
