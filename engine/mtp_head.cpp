#include "engine/mtp_head.h"

#include <algorithm>
#include <string>

#include "engine/reference/layer_ops.h"
#include "engine/reference/matmuls.h"

namespace gauntlet::engine {

namespace {

core::Error no_head(const std::string& why) {
  return core::make_error(core::ErrorKind::invalid_argument,
                          "the model file has no MTP head to draft with: " + why);
}

// The file's tensors with the MTP block (blk.<n_layer>.) renamed as layer 0 and the trunk's
// layers left out, so that the block binds as a one-layer model.
model::GgufInfo block_as_layer_zero(const model::GgufInfo& info, uint32_t n_layer) {
  model::GgufInfo out = info;
  out.tensors.clear();
  const std::string block = "blk." + std::to_string(n_layer) + ".";
  for (const auto& t : info.tensors) {
    if (t.name.starts_with(block)) {
      auto renamed = t;
      renamed.name = "blk.0." + t.name.substr(block.size());
      out.tensors.push_back(std::move(renamed));
    } else if (!t.name.starts_with("blk.")) {
      out.tensors.push_back(t);
    }
  }
  return out;
}

}  // namespace

core::Result<std::unique_ptr<MtpHead>> MtpHead::create(
    const model::GgufInfo& info, std::span<const std::byte> file_bytes,
    const model::LoadedModel& target, uint32_t context, unsigned threads,
    std::shared_ptr<const reference::Products> products) {
  const auto& s = target.shape;
  if (s.n_layer_nextn != 1) {
    return no_head(std::string(s.traits().name) + " file with nextn_predict_layers " +
                   std::to_string(s.n_layer_nextn) + " (qwen35's single MTP block is run)");
  }
  const auto renamed = block_as_layer_zero(info, s.n_layer);
  // One layer, full attention (qwen35's layer l is one when (l + 1) % interval == 0).
  model::ModelShape shape = s;
  shape.n_layer = 1;
  shape.n_layer_nextn = 0;
  shape.full_attention_interval = 1;
  auto data_of = [&](size_t i) -> const std::byte* {
    const auto& t = renamed.tensors[i];
    if (info.data_offset + t.offset + t.bytes > file_bytes.size()) return nullptr;
    return file_bytes.data() + info.data_offset + t.offset;
  };
  auto weights = model::bind_weights(renamed, shape, data_of);
  if (!weights) return weights.error();
  std::unique_ptr<MtpHead> head(new MtpHead());
  // The block's tensor `name` if the file has it with dimensions {n_in, n_out} (an f32 vector
  // when n_out is 1); an empty view if it has none; an error naming it otherwise.
  bool bad = false;
  std::string bad_name;
  auto view = [&](const std::string& name, uint64_t n_in, uint64_t n_out) -> model::TensorView {
    const auto* t = renamed.find("blk.0." + name);
    if (t == nullptr) return {};
    const std::vector<uint64_t> want =
        n_out == 1 ? std::vector<uint64_t>{n_in} : std::vector<uint64_t>{n_in, n_out};
    const std::byte* data = data_of(static_cast<size_t>(t - renamed.tensors.data()));
    if (t->ne != want || data == nullptr || (n_out == 1 && t->type != model::TensorType::f32)) {
      bad = true;
      bad_name = name;
      return {};
    }
    return {t->type, n_in, n_out, data, 1};
  };
  const uint64_t e = s.n_embd, vocab = s.n_vocab;
  head->eh_proj_ = view("nextn.eh_proj.weight", 2 * e, e);
  head->enorm_ = view("nextn.enorm.weight", e, 1);
  head->hnorm_ = view("nextn.hnorm.weight", e, 1);
  // The optional tensors of load_block_mtp, else the model's own.
  const auto embed = view("nextn.embed_tokens.weight", e, vocab);
  const auto head_norm = view("nextn.shared_head_norm.weight", e, 1);
  const auto head_out = view("nextn.shared_head_head.weight", e, vocab);
  if (bad) {
    return no_head("nextn tensor '" + bad_name + "' is not {" + std::to_string(e) +
                   ", ...} as load_block_mtp creates it (or a norm not f32)");
  }
  if (head->eh_proj_.data == nullptr || head->enorm_.data == nullptr ||
      head->hnorm_.data == nullptr) {
    return no_head("its nextn.eh_proj, enorm or hnorm tensor is missing");
  }
  head->embed_ = embed.data != nullptr ? embed : target.weights.token_embd;
  head->target_norm_ = target.weights.output_norm;
  if (head_norm.data != nullptr) weights->output_norm = head_norm;
  if (head_out.data != nullptr) weights->output = head_out;
  head->block_.shape = shape;
  head->block_.file_type = target.file_type;
  head->block_.weights = std::move(*weights);
  reference::DecodeOptions options;
  options.threads = threads;
  options.context = context;
  options.micro_batch = 64;
  options.range = {0, 1, true, false};
  options.products = products;
  auto decoder = reference::Decoder::create(head->block_, options);
  if (!decoder) return decoder.error();
  head->decoder_ = std::move(*decoder);
  head->products_ = std::move(products);
  head->pool_ = std::make_unique<reference::ThreadPool>(threads);
  head->pool_->set_products(head->products_.get());
  return head;
}

std::vector<float> MtpHead::target_hidden(std::span<const float> residuals) const {
  const auto& s = block_.shape;
  std::vector<float> out(residuals.size());
  for (size_t at = 0; at + s.n_embd <= residuals.size(); at += s.n_embd) {
    reference::rmsnorm(out.data() + at, residuals.data() + at, reference::floats(target_norm_),
                       s.n_embd, s.rms_eps);
  }
  return out;
}

core::Result<std::span<const float>> MtpHead::run(std::span<const int32_t> tokens,
                                                  std::span<const float> hidden, uint32_t pos) {
  const auto& s = block_.shape;
  const uint32_t e = s.n_embd;
  if (tokens.empty() || hidden.size() != tokens.size() * e) {
    return core::make_error(core::ErrorKind::internal, "MTP pairs of tokens and hiddens differ");
  }
  const uint32_t capacity = decoder_->pass_capacity();
  std::vector<float> x;
  std::vector<PassToken> pass;
  logits_.clear();
  for (size_t begin = 0; begin < tokens.size(); begin += capacity) {
    const size_t n = std::min<size_t>(capacity, tokens.size() - begin);
    // Each token's block: [enorm(embedding); hnorm(hidden)], then eh_proj's product.
    act_.assign(n * 3 * e, 0.0f);
    for (size_t t = 0; t < n; ++t) {
      float* block = act_.data() + t * 3 * e;
      reference::embed_token(s, embed_, tokens[begin + t], block);
      reference::rmsnorm(block, block, reference::floats(enorm_), e, s.rms_eps);
      reference::rmsnorm(block + e, hidden.data() + (begin + t) * e, reference::floats(hnorm_), e,
                         s.rms_eps);
    }
    reference::matmuls(*pool_, act_.data(), 3 * e, n, {{&eh_proj_, 0, 2 * e}});
    x.resize(n * e);
    pass.clear();
    for (size_t t = 0; t < n; ++t) {
      std::copy_n(act_.data() + t * 3 * e + 2 * e, e, x.data() + t * e);
      const bool last = begin + t + 1 == tokens.size();
      pass.push_back({tokens[begin + t], pos + static_cast<uint32_t>(begin + t), 0, last});
    }
    GAUNTLET_TRY(decoder_->run_stage(pass, x, logits_));
  }
  own_hidden_.resize(e);
  reference::rmsnorm(own_hidden_.data(), x.data() + x.size() - e,
                     reference::floats(block_.weights.output_norm), e, s.rms_eps);
  return std::span<const float>(logits_);
}

}  // namespace gauntlet::engine
