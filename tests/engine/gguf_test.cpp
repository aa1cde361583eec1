#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "core/half.h"
#include "core/rng.h"
#include "engine/model/gguf_writer.h"
#include "test_models.h"

namespace gauntlet::engine {
namespace {

using model::TensorType;

const TensorType kFormats[] = {TensorType::f32, TensorType::f16, TensorType::bf16, TensorType::q8_0,
                               TensorType::q4_0};
using model::FileType;

// Writes a parsed file again from what the reader returned: identical bytes prove that the
// reader lost nothing.
std::vector<std::byte> rewrite(const model::GgufInfo& info, std::span<const std::byte> bytes) {
  model::GgufWriter w(info.alignment);
  for (const auto& key : info.metadata_order) {
    if (key != "general.alignment") w.set_meta(key, info.metadata.at(key));
  }
  for (const auto& t : info.tensors) {
    auto data = bytes.subspan(info.data_offset + t.offset, t.bytes);
    w.add_tensor_bytes(t.name, t.ne, t.type, {data.begin(), data.end()});
  }
  auto out = w.to_bytes();
  EXPECT_TRUE(out.is_ok());
  return *out;
}

TEST(Gguf, EveryFileTypeReadsBackIdentically) {
  auto shape = model::preset_shape("test-tiny").value();
  for (FileType format : model::all_file_types()) {
    SCOPED_TRACE(model::to_string(format));
    auto bytes = test::synthetic_bytes(shape, format);
    auto info = model::parse_gguf(bytes);
    ASSERT_TRUE(info.is_ok()) << info.error().describe();
    auto m = model::load_model(*info, bytes);
    ASSERT_TRUE(m.is_ok()) << m.error().describe();
    EXPECT_EQ(m->file_type, format);
    EXPECT_FALSE(m->file_type_guessed);
    EXPECT_EQ(m->shape.n_embd, 64u);
    EXPECT_EQ(m->shape.n_layer, 2u);
    EXPECT_EQ(m->shape.n_head, 4u);
    EXPECT_EQ(m->shape.n_head_kv, 2u);
    EXPECT_EQ(m->shape.n_ff, 128u);
    EXPECT_EQ(m->shape.n_vocab, 256u);
    EXPECT_EQ(m->shape.context, 128u);
    EXPECT_EQ(info->tensors.size(), 3u + 9u * 2u);
    EXPECT_EQ(info->find("blk.1.ffn_norm.weight")->type, TensorType::f32);
    for (const auto& want : model::model_tensors(shape, format)) {
      EXPECT_EQ(info->find(want.name)->type, want.type) << want.name;
    }
    EXPECT_EQ(info->find("blk.1.ffn_down.weight")->ne, (std::vector<uint64_t>{128, 64}));
    EXPECT_EQ(rewrite(*info, bytes), bytes);

    // Through a file and its memory map: the same bytes and the same answer.
    auto path = test::temp_path(std::string("rt-") + model::to_string(format) + ".gguf");
    ASSERT_TRUE(model::write_synthetic_model(shape, format, 7, path, true).is_ok());
    auto file = model::GgufFile::open(path);
    ASSERT_TRUE(file.is_ok()) << file.error().describe();
    ASSERT_EQ((*file)->bytes().size(), bytes.size());
    EXPECT_EQ(std::memcmp((*file)->bytes().data(), bytes.data(), bytes.size()), 0);
    std::filesystem::remove(path);
  }
}

TEST(Gguf, SeedChangesWeightsAndSameSeedRepeats) {
  auto shape = model::preset_shape("test-tiny").value();
  EXPECT_EQ(test::synthetic_bytes(shape, FileType::q8_0, 3),
            test::synthetic_bytes(shape, FileType::q8_0, 3));
  EXPECT_NE(test::synthetic_bytes(shape, FileType::q8_0, 3),
            test::synthetic_bytes(shape, FileType::q8_0, 4));
}

// Reads the layout by hand, as the GGUF specification gives it, without the reader.
struct Reader {
  const std::vector<std::byte>& b;
  size_t pos = 0;
  template <typename T>
  T get() {
    T v;
    EXPECT_LE(pos + sizeof(T), b.size());
    std::memcpy(&v, b.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
  std::string str() {
    auto n = get<uint64_t>();
    std::string s(reinterpret_cast<const char*>(b.data() + pos), n);
    pos += n;
    return s;
  }
  void skip_value(uint32_t type) {
    switch (type) {
      case 4:
      case 6:
        pos += 4;
        break;
      case 10:
        pos += 8;
        break;
      case 8:
        str();
        break;
      case 9: {
        auto et = get<uint32_t>();
        auto n = get<uint64_t>();
        for (uint64_t i = 0; i < n; ++i) skip_value(et);
        break;
      }
      default:
        ADD_FAILURE() << "unexpected value type " << type;
    }
  }
};

TEST(Gguf, WriterLayoutFollowsTheSpecification) {
  for (uint32_t alignment : {32u, 64u}) {
    auto shape = model::preset_shape("test-tiny").value();
    model::GgufWriter w(alignment);
    w.set_string("general.architecture", "llama");
    uint64_t expected_data_bytes = 0;
    for (const auto& t : model::model_tensors(shape, FileType::q4_0)) {
      const uint64_t n_in = t.ne[0];
      w.add_tensor(t.name, t.ne, t.type, [n_in](uint64_t, float* out) {
        for (uint64_t i = 0; i < n_in; ++i) out[i] = 0.5f;
      });
      expected_data_bytes += t.bytes();
    }
    auto bytes = w.to_bytes().value();
    Reader r{bytes};
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data()), 4), "GGUF");
    r.pos = 4;
    EXPECT_EQ(r.get<uint32_t>(), 3u);
    const auto n_tensors = r.get<uint64_t>();
    const auto n_kv = r.get<uint64_t>();
    EXPECT_EQ(n_tensors, model::model_tensors(shape, FileType::q4_0).size());
    EXPECT_EQ(n_kv, alignment == 32 ? 1u : 2u);
    for (uint64_t i = 0; i < n_kv; ++i) {
      auto key = r.str();
      auto type = r.get<uint32_t>();
      if (key == "general.alignment") {
        EXPECT_EQ(type, 4u);
        auto pos = r.pos;
        EXPECT_EQ(r.get<uint32_t>(), alignment);
        r.pos = pos;
      }
      r.skip_value(type);
    }
    std::vector<std::pair<uint64_t, uint64_t>> spans;  // offset, bytes
    for (uint64_t i = 0; i < n_tensors; ++i) {
      auto name = r.str();
      auto n_dims = r.get<uint32_t>();
      uint64_t n = 1;
      for (uint32_t d = 0; d < n_dims; ++d) n *= r.get<uint64_t>();
      auto type = r.get<uint32_t>();
      auto offset = r.get<uint64_t>();
      EXPECT_EQ(offset % alignment, 0u) << name;
      // f32 norms, q4_0 matrices, and the output in q8_0 (rows of 64 cannot hold q6_K).
      const uint64_t size = type == 0   ? n * 4
                            : type == 2 ? n / 32 * 18
                            : type == 8 ? n / 32 * 34
                                        : 0;
      EXPECT_NE(size, 0u) << name << " type " << type;
      spans.emplace_back(offset, size);
    }
    const size_t data_start = (r.pos + alignment - 1) / alignment * alignment;
    for (size_t i = r.pos; i < data_start; ++i) EXPECT_EQ(bytes[i], std::byte{0});
    // Tensors follow one another, each at the first aligned offset after the previous one.
    uint64_t next = 0;
    for (const auto& [offset, size] : spans) {
      EXPECT_EQ(offset, (next + alignment - 1) / alignment * alignment);
      next = offset + size;
    }
    EXPECT_EQ(bytes.size(), data_start + next);
    EXPECT_GE(next, expected_data_bytes);
    // The first tensor's first q4_0 block: d = 0.5 / -8 (f16) and every nibble q = 0
    // (0.5 is the largest value, mapped to -8: q = -8 + 8 = 0).
    const std::byte* first = bytes.data() + data_start + spans[0].first;
    uint16_t d;
    std::memcpy(&d, first, 2);
    EXPECT_EQ(core::f16_to_f32(d), -0.0625f);
    EXPECT_EQ(first[2], std::byte{0});
  }
}

TEST(Gguf, WriterNeverOverwritesWithoutForce) {
  auto path = test::temp_path("exists.gguf");
  { std::ofstream(path) << "keep me"; }
  auto shape = model::preset_shape("test-tiny").value();
  auto s = model::write_synthetic_model(shape, FileType::q4_0, 1, path, false);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.error().message.find("exists"), std::string::npos);
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "keep me");
  EXPECT_TRUE(model::write_synthetic_model(shape, FileType::q4_0, 1, path, true).is_ok());
  EXPECT_TRUE(model::GgufFile::open(path).is_ok());
  for (const auto& e : std::filesystem::directory_iterator(path.parent_path())) {
    EXPECT_EQ(e.path().string().find(path.filename().string() + ".tmp"), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(Quant, BlockLayoutsAsDefined) {
  // q4_0: d = 2.0, byte j = j | (15 - j) << 4: element j = (j - 8) * 2, element j + 16 =
  // (15 - j - 8) * 2.
  std::byte q4[18];
  const uint16_t two = core::f32_to_f16(2.0f);
  std::memcpy(q4, &two, 2);
  for (int j = 0; j < 16; ++j) q4[2 + j] = static_cast<std::byte>(j | ((15 - j) << 4));
  float out[32];
  model::dequantize_row(TensorType::q4_0, q4, out, 32);
  for (int j = 0; j < 16; ++j) {
    EXPECT_EQ(out[j], (j - 8) * 2.0f);
    EXPECT_EQ(out[j + 16], (7 - j) * 2.0f);
  }
  // q8_0: d = 0.5, q = i - 16.
  std::byte q8[34];
  const uint16_t half = core::f32_to_f16(0.5f);
  std::memcpy(q8, &half, 2);
  for (int i = 0; i < 32; ++i) q8[2 + i] = static_cast<std::byte>(static_cast<int8_t>(i - 16));
  model::dequantize_row(TensorType::q8_0, q8, out, 32);
  for (int i = 0; i < 32; ++i) EXPECT_EQ(out[i], (i - 16) * 0.5f);
}

TEST(Quant, RoundTripErrorWithinEachFormatsStep) {
  core::Rng rng(11);
  std::vector<float> x(256), back(256);
  for (float& v : x) v = rng.uniform(-3, 3);
  for (TensorType t : kFormats) {
    std::vector<std::byte> enc(model::row_bytes(t, x.size()));
    model::quantize_row(t, x.data(), enc.data(), x.size());
    model::dequantize_row(t, enc.data(), back.data(), x.size());
    const float bound = t == TensorType::f32    ? 0.0f
                        : t == TensorType::f16  ? 3.0f / 1024
                        : t == TensorType::bf16 ? 3.0f / 128
                        : t == TensorType::q8_0
                            ? 3.0f / 127 * 0.5f + 1e-3f
                            // q4_0 maps the largest magnitude to -8, so +amax clamps at 7 * d.
                            : 3.0f / 8 + 1e-2f;
    for (size_t i = 0; i < x.size(); ++i) {
      ASSERT_LE(std::fabs(x[i] - back[i]), bound) << model::to_string(t) << " element " << i;
    }
    // dot_row is the dot product with the dequantized row.
    double expected = 0;
    for (size_t i = 0; i < x.size(); ++i) expected += static_cast<double>(back[i]) * x[i];
    EXPECT_NEAR(model::dot_row(t, enc.data(), x.data(), x.size()), expected,
                1e-5 * std::fabs(expected) + 1e-4);
  }
}

TEST(Shapes, PresetsHaveRealDimensions) {
  auto tiny = model::preset_shape("tinyllama-1.1b").value();
  EXPECT_EQ(model::parameter_count(tiny), 1100048384ull);
  auto l7 = model::preset_shape("llama-7b").value();
  EXPECT_EQ(model::parameter_count(l7), 6738415616ull);
  // The published counts: each model card's figure (tied embeddings counted once; Qwen2's Q/K/V
  // biases and Qwen3's Q/K norms included).
  const std::pair<const char*, uint64_t> published[] = {
      {"llama-3.1-8b", 8030261248ull},  {"llama-3.2-1b", 1235814400ull},
      {"qwen2.5-0.5b", 494032768ull},   {"qwen3-0.6b", 596049920ull},
      {"phi-3-mini-4k", 3821079552ull}, {"mistral-7b-v0.3", 7248023552ull}};
  for (const auto& [name, count] : published) {
    EXPECT_EQ(model::parameter_count(model::preset_shape(name).value()), count) << name;
  }
  EXPECT_FALSE(model::preset_shape("nope").is_ok());
  auto dims = model::parse_dims("n_embd=96,n_layer=1,n_head=3,n_ff=64,n_vocab=16,context=8");
  ASSERT_TRUE(dims.is_ok());
  EXPECT_EQ(dims->n_head_kv, 3u);
  EXPECT_TRUE(model::validate_shape(*dims).is_ok());
  EXPECT_FALSE(model::parse_dims("n_embd=abc").is_ok());
  auto bad = model::parse_dims("n_embd=80,n_layer=1,n_head=4,n_ff=64,n_vocab=16,context=8");
  auto status = model::validate_shape(*bad);
  ASSERT_FALSE(status.is_ok());
  EXPECT_NE(status.error().message.find("multiples of 32"), std::string::npos);
}

TEST(Shapes, ACommandLineShapeIsDimsOrAPresetName) {
  EXPECT_EQ(model::parse_shape("test-small").value().n_embd, 128u);
  auto dims = model::parse_shape("n_embd=96,n_layer=1,n_head=3,n_ff=64,n_vocab=16,context=8");
  ASSERT_TRUE(dims.is_ok());
  EXPECT_EQ(dims->n_embd, 96u);
  auto unknown = model::parse_shape("test-huge");
  ASSERT_FALSE(unknown.is_ok());
  EXPECT_NE(unknown.error().message.find("test-huge"), std::string::npos);
}

}  // namespace
}  // namespace gauntlet::engine
