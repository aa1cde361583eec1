#include "reports/fit_rows.h"

#include <algorithm>
#include <cstdio>

#include "reports/text_util.h"

namespace gauntlet::reports::detail {

std::string fit_title(const std::vector<FitAnswer>& fit) {
  if (fit.empty()) return "";
  const FitAnswer& a = fit.front();
  const std::string pool =
      a.pool_bytes > 0 ? "; the device and the host share one pool: both sides of a placement "
                         "within " +
                             format_bytes(a.pool_bytes) + ", " + a.pool_basis
                       : "";
  return "fit (planned against " + format_bytes(fit.front().budget_bytes) + ", " +
         fit.front().budget_basis + pool + "; as llama.cpp allocates: the device's weights, " +
         fit.front().kv_cache + " KV cache and compute buffer" +
         (fit.front().flash_attention ? " with flash attention" : "") + " at micro-batch 512)";
}

namespace {

// "756 MiB (4.2 GiB without the window)" where a sliding window saves memory.
std::string kv_text(const FitAnswer& a) {
  std::string text = format_bytes(a.kv_bytes);
  if (a.kv_bytes_without_window > a.kv_bytes) {
    text += " (" + format_bytes(a.kv_bytes_without_window) + " without the window)";
  }
  if (a.state_bytes > 0) text += " + " + format_bytes(a.state_bytes) + " recurrent state";
  return text;
}

// ", measured 5.1 tok/s" where a placed profile of those layer slots ran.
std::string measured_text(const FitAnswer::Placement& p) {
  if (!p.tokens_per_second) return "";
  char text[48];
  std::snprintf(text, sizeof text, ", measured %.1f tok/s", *p.tokens_per_second);
  return text;
}

std::string experts_text(const FitAnswer::Placement& p) {
  if (p.expert_layers_on_host == 0) return "";
  return ", experts of the first " + std::to_string(p.expert_layers_on_host) +
         " layers on the host";
}

}  // namespace

namespace {

// "vision projector (--mmproj) p.gguf on the device ...: 260.1 MiB"; empty without one.
std::vector<std::string> projector_lines(const std::vector<FitAnswer>& fit) {
  if (fit.empty() || fit.front().projector_model.empty()) return {};
  return {"vision projector (--mmproj) " + fit.front().projector_model +
          " on the device beside the model, its weights and the compute buffer of its warmup "
          "image (counted in PLANNED): " +
          format_bytes(fit.front().projector_bytes)};
}

// Bytes that follow each answer's context, one figure per context with its formats:
// "93.5 MiB at context 4096 (F16, Q8_0); 101.2 MiB at context 13056 (IQ2_M)".
std::string figures_by_context(const std::vector<FitAnswer>& fit, uint64_t FitAnswer::*bytes) {
  std::vector<std::pair<std::string, std::string>> figures;  // "93.5 MiB at context 4096", formats
  for (const auto& a : fit) {
    const std::string figure =
        format_bytes(a.*bytes) + " at context " +
        std::to_string(a.placement ? a.placement->context : a.largest_context);
    auto it = std::find_if(figures.begin(), figures.end(),
                           [&](const auto& f) { return f.first == figure; });
    if (it == figures.end()) {
      figures.emplace_back(figure, a.weight_format);
    } else {
      it->second += ", " + a.weight_format;
    }
  }
  std::string text;
  for (size_t i = 0; i < figures.size(); ++i) {
    text += (i > 0 ? "; " : "") + figures[i].first + " (" + figures[i].second + ")";
  }
  return text;
}

std::vector<std::string> draft_lines(const std::vector<FitAnswer>& fit) {
  if (fit.empty() || fit.front().draft_model.empty()) return {};
  return {"draft model (-md) " + fit.front().draft_model +
          " on the device beside the model, with its own KV cache and compute buffer (counted in "
          "PLANNED): " +
          figures_by_context(fit, &FitAnswer::draft_bytes)};
}

std::vector<std::string> mtp_lines(const std::vector<FitAnswer>& fit) {
  if (fit.empty() || fit.front().mtp_layers == 0) return {};
  return {"MTP head (--spec-type draft-mtp): the model's " +
          std::to_string(fit.front().mtp_layers) +
          " MTP block(s) on the device and an MTP context with its own KV cache and compute "
          "buffer (counted in PLANNED): " +
          figures_by_context(fit, &FitAnswer::mtp_bytes)};
}

}  // namespace

std::vector<std::string> fit_companion_lines(const std::vector<FitAnswer>& fit) {
  auto lines = projector_lines(fit);
  for (auto& line : draft_lines(fit)) lines.push_back(std::move(line));
  for (auto& line : mtp_lines(fit)) lines.push_back(std::move(line));
  return lines;
}

std::vector<std::string> memory_pool_lines(const std::optional<MemoryPool>& pool) {
  if (!pool) return {};
  std::vector<std::string> lines;
  std::string line = "memory: ";
  if (pool->shared) {
    line += "one pool with the host, " + format_bytes(pool->pool_bytes) +
            " of host memory for both sides of a placement; the GPU side bound by " + pool->bound +
            " (" + format_bytes(pool->bound_bytes) + ")";
  } else {
    line += pool->bound + " " + format_bytes(pool->bound_bytes) +
            " for the GPU side, the host side in host memory apart";
  }
  if (pool->device_held_bytes > 0) {
    line += "; other processes hold " + format_bytes(pool->device_held_bytes) + " of it (" +
            pool->device_held_source + ")";
  }
  if (pool->pool_held_bytes > 0) {
    line += "; other processes hold " + format_bytes(pool->pool_held_bytes) + " of the pool (" +
            pool->pool_held_source + ")";
  }
  if (pool->driver_overhead_bytes) {
    line += "; the driver kept " + format_bytes(*pool->driver_overhead_bytes) +
            " of what it claimed (the stress could not allocate it)";
  }
  lines.push_back(line);
  for (const auto& f : pool->clamped) {
    lines.push_back("driver figure clamped: " + f.source + " said " + format_bytes(f.raw_bytes) +
                    " against a total of " + format_bytes(f.total_bytes) + " (" + f.note +
                    "); planned with " + format_bytes(f.used_bytes));
  }
  for (const auto& note : pool->notes) lines.push_back("memory note: " + note);
  return lines;
}

std::vector<std::vector<std::string>> fit_rows(const std::vector<FitAnswer>& fit) {
  std::vector<std::vector<std::string>> rows{
      {"FORMAT", "WEIGHTS", "FITS UP TO", "PLANNED", "KV CACHE", "WHY"}};
  for (const auto& a : fit) {
    rows.push_back({a.weight_format, format_bytes(a.weight_bytes),
                    a.placement
                        ? std::to_string(a.placement->device_slots) + " of " +
                              std::to_string(a.placement->layer_slots) + " layers" +
                              experts_text(*a.placement) + " at context " +
                              std::to_string(a.placement->context) + measured_text(*a.placement)
                    : a.largest_context ? "context " + std::to_string(a.largest_context)
                                        : "does not fit",
                    format_bytes(a.planned_bytes), kv_text(a), a.why});
  }
  return rows;
}

}  // namespace gauntlet::reports::detail
