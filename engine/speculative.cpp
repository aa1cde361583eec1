#include "engine/speculative.h"

#include <algorithm>
#include <optional>
#include <string>

#include "engine/reference/decoder.h"

namespace gauntlet::engine {

namespace {

core::Result<std::span<const float>> feed(Decoder& d, std::span<const int32_t> tokens,
                                          bool last_logits) {
  std::vector<BatchToken> batch;
  for (size_t i = 0; i < tokens.size(); ++i) {
    batch.push_back({tokens[i], 0, last_logits && i + 1 == tokens.size()});
  }
  return d.forward(batch);
}

core::Status check_options(const SpeculativeOptions& o, std::span<const int32_t> prompt) {
  if (!prompt.empty() && o.draft_max > 0 && o.draft_min <= o.draft_max) return core::Status::ok();
  return core::make_error(core::ErrorKind::invalid_argument,
                          "speculative decoding needs a prompt, a draft-max of at least 1 "
                          "and a draft-min of at most draft-max (draft-max " +
                              std::to_string(o.draft_max) + ", draft-min " +
                              std::to_string(o.draft_min) + ")");
}

// Drafts for the next check: up to draft_max, one fewer than the tokens left (the target adds
// its own), none when fewer than draft_min would go.
uint32_t drafts_wanted(const SpeculativeOptions& o, size_t have, uint32_t n) {
  const auto left = static_cast<uint32_t>(n - have);
  const uint32_t k = std::min(o.draft_max, left - 1);
  return k < std::max(o.draft_min, 1u) ? 0 : k;
}

// The target's check of `drafts` after `last`, and its way back to the tokens it keeps: a rewind
// where it can; for a model with recurrent layers (rewind refuses), the state saved before the
// check, then the kept tokens fed again (llama.cpp's server does the same with its context
// checkpoints, tools/server/server-context.cpp).
class TargetCheck {
 public:
  TargetCheck(Decoder& target, uint32_t n_vocab) : target_(target), n_vocab_(n_vocab) {}

  struct Verdict {
    uint32_t accepted = 0;  // drafts the target would have picked itself, in order
    int32_t own = 0;        // its own next token after them
  };
  core::Result<Verdict> check(int32_t last, std::span<const int32_t> drafts) {
    const uint32_t base = target_.position(0);
    saved_.reset();
    if (!rewinds_) {
      // A decoder that cannot save its state (a placement across devices) must rewind.
      auto c = target_.checkpoint();
      if (c) {
        saved_ = std::move(*c);
      } else {
        unsaved_ = c.error().message;
      }
    }
    std::vector<BatchToken> batch{{last, 0, true}};
    for (int32_t d : drafts) batch.push_back({d, 0, true});
    auto logits = target_.forward(batch);
    if (!logits) return logits.error();
    auto row = [&](size_t i) { return logits->subspan(i * n_vocab_, n_vocab_); };
    Verdict v;
    while (v.accepted < drafts.size() && reference::argmax(row(v.accepted)) == drafts[v.accepted]) {
      ++v.accepted;
    }
    v.own = reference::argmax(row(v.accepted));
    kept_.assign({last});
    kept_.insert(kept_.end(), drafts.begin(), drafts.begin() + v.accepted);
    fed_ = batch.size();
    base_ = base;
    return v;
  }
  // After check (and after reading anything of its pass the caller needs): the target keeps
  // `last` and the accepted drafts.
  core::Status settle() {
    if (kept_.size() == fed_) return core::Status::ok();
    auto back = target_.rewind(0, base_ + static_cast<uint32_t>(kept_.size()));
    if (back) {
      rewinds_ = true;
      return back;
    }
    if (!saved_) {
      return core::make_error(back.error().kind, back.error().message + ", and " + unsaved_);
    }
    GAUNTLET_TRY(target_.restore(*saved_));
    return feed(target_, kept_, false).status();
  }
  // `last` and the accepted drafts of the latest check.
  std::span<const int32_t> kept() const { return kept_; }

 private:
  Decoder& target_;
  uint32_t n_vocab_;
  bool rewinds_ = false;  // learned at the first rejected draft
  std::optional<DecoderCheckpoint> saved_;
  std::string unsaved_;  // why the target could not save its state
  std::vector<int32_t> kept_;
  size_t fed_ = 0;
  uint32_t base_ = 0;
};

}  // namespace

core::Result<std::vector<int32_t>> speculative_greedy(Decoder& target, Decoder& draft,
                                                      std::span<const int32_t> prompt, uint32_t n,
                                                      uint32_t n_vocab, const SpeculativeOptions& o,
                                                      SpeculativeStats& stats) {
  GAUNTLET_TRY(check_options(o, prompt));
  // Both decoders take the prompt but its last token, which opens the first check.
  if (prompt.size() > 1) {
    const auto head = prompt.first(prompt.size() - 1);
    if (auto r = feed(target, head, false); !r) return r.error();
    if (auto r = feed(draft, head, false); !r) return r.error();
  }
  TargetCheck checker(target, n_vocab);
  std::vector<int32_t> out;
  int32_t last = prompt.back();  // the newest token, fed to neither decoder yet
  // Tokens before `last` that the draft has not been fed (its drafts ran out, or it sat out).
  std::vector<int32_t> behind;
  while (out.size() < n) {
    const uint32_t k = drafts_wanted(o, out.size(), n);
    std::vector<int32_t> drafts;
    behind.push_back(last);
    if (k > 0) {
      auto l = feed(draft, behind, true);
      if (!l) return l.error();
      behind.clear();
      drafts.push_back(reference::argmax(*l));
      while (drafts.size() < k) {
        auto next = draft.step(drafts.back());
        if (!next) return next.error();
        drafts.push_back(reference::argmax(*next));
      }
      ++stats.checks;
    }
    const uint32_t base = target.position(0);
    auto v = checker.check(last, drafts);
    if (!v) return v.error();
    GAUNTLET_TRY(checker.settle());
    out.insert(out.end(), drafts.begin(), drafts.begin() + v->accepted);
    out.push_back(v->own);
    stats.drafted += drafts.size();
    stats.accepted += v->accepted;
    // The draft fed `last` and all but its last draft, and keeps what was accepted of them (the
    // rest of the accepted ones it is fed later).
    if (k > 0) {
      const uint32_t kept = std::min(v->accepted, k - 1);
      GAUNTLET_TRY(draft.rewind(0, base + 1 + kept));
      behind.insert(behind.end(), drafts.begin() + kept, drafts.begin() + v->accepted);
    }
    last = v->own;
  }
  return out;
}

core::Result<std::vector<int32_t>> speculative_mtp(Decoder& target, MtpHead& head,
                                                   std::span<const int32_t> prompt, uint32_t n,
                                                   uint32_t n_vocab, const SpeculativeOptions& o,
                                                   SpeculativeStats& stats) {
  GAUNTLET_TRY(check_options(o, prompt));
  if (!target.keep_final_residuals(true)) {
    return core::make_error(core::ErrorKind::unsupported,
                            "an MTP head reads the target's last hidden state, which this "
                            "decoder (a placement across devices) does not keep");
  }
  if (n == 0) return std::vector<int32_t>{};
  const uint32_t e = head.n_embd();
  auto logits = feed(target, prompt, true);
  if (!logits) return logits.error();
  int32_t last = reference::argmax(*logits);
  // The target's residuals of the tokens it was last fed: `rows` of them, or an error.
  auto residuals = [&](size_t rows) -> core::Result<std::span<const float>> {
    const auto all = target.final_residuals();
    if (all.size() >= rows * e) return all.first(rows * e);
    return core::make_error(core::ErrorKind::internal,
                            "the target kept " + std::to_string(all.size() / e) +
                                " final residuals of " + std::to_string(rows) + " tokens");
  };
  auto prompt_rows = residuals(prompt.size());
  if (!prompt_rows) return prompt_rows.error();
  auto hidden = head.target_hidden(*prompt_rows);
  // The head's pairs over the prompt: token p beside the target's hidden at p - 1 (zeros for the
  // first, as llama.cpp's pending_h starts).
  std::vector<float> pairs(e, 0.0f);
  pairs.insert(pairs.end(), hidden.begin(), hidden.end() - e);
  if (auto r = head.run(prompt, pairs, 0); !r) return r.error();
  std::vector<float> pending(hidden.end() - e, hidden.end());  // the hidden beside `last`
  TargetCheck checker(target, n_vocab);
  std::vector<int32_t> out{last};
  while (out.size() < n) {
    const uint32_t k = drafts_wanted(o, out.size(), n);
    const uint32_t base = target.position(0);
    std::vector<int32_t> drafts;
    if (k > 0) {
      std::vector<float> h = pending;
      int32_t token = last;
      while (drafts.size() < k) {
        auto l = head.run({&token, 1}, h, base + static_cast<uint32_t>(drafts.size()));
        if (!l) return l.error();
        token = reference::argmax(*l);
        drafts.push_back(token);
        h.assign(head.own_hidden().begin(), head.own_hidden().end());
      }
      ++stats.checks;
    }
    auto v = checker.check(last, drafts);
    if (!v) return v.error();
    // The target's hiddens of `last` and the accepted drafts, read before settle() runs again.
    auto kept_rows = residuals(v->accepted + 1);
    if (!kept_rows) return kept_rows.error();
    hidden = head.target_hidden(*kept_rows);
    GAUNTLET_TRY(checker.settle());
    // The head's pairs for the kept tokens (its drafting wrote its own hiddens there).
    pairs.assign(pending.begin(), pending.end());
    pairs.insert(pairs.end(), hidden.begin(), hidden.end() - e);
    if (auto r = head.run(checker.kept(), pairs, base); !r) return r.error();
    pending.assign(hidden.end() - e, hidden.end());
    out.insert(out.end(), drafts.begin(), drafts.begin() + v->accepted);
    out.push_back(v->own);
    stats.drafted += drafts.size();
    stats.accepted += v->accepted;
    last = v->own;
  }
  target.keep_final_residuals(false);
  return out;
}

}  // namespace gauntlet::engine
