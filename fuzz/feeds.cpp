#include "fuzz/feeds.h"

#include <string_view>

#include "engine/model/gguf.h"
#include "engine/model/loaded_model.h"
#include "engine/reference/decoder.h"
#include "harness/journal.h"
#include "harness/simulate.h"
#include "reports/diff.h"
#include "reports/io.h"
#include "reports/merge.h"
#include "reports/render.h"
#include "signals/gpu_log.h"
#include "signals/gpu_metrics.h"
#include "signals/json.h"
#include "signals/kmsg_record.h"

namespace gauntlet::fuzz {

namespace {

std::string text_of(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <typename R>
Fed refused(const R& result) {
  return {false, result.error().message};
}

}  // namespace

// What parses is loaded as a model and, where it loads, decoded for one step by the host
// reference, so that every tensor type's codec reads the bytes.
Fed feed_gguf(std::span<const std::byte> bytes) {
  using namespace engine;
  auto info = model::parse_gguf(bytes);
  if (!info) return refused(info);
  auto loaded = model::load_model(*info, bytes);
  if (!loaded) return refused(loaded);
  const reference::DecodeOptions options{{.threads = 1, .context = 2}};
  auto decoder = reference::Decoder::create(*loaded, options);
  if (!decoder) return refused(decoder);
  auto logits = (*decoder)->step(0);
  if (!logits) return refused(logits);
  return {true, {}};
}

// A report that reads is rendered in every format, diffed against itself and merged, as
// `report show|diff|merge` do.
Fed feed_report(std::span<const std::byte> bytes) {
  using namespace reports;
  auto report = parse_report(text_of(bytes), "fuzz input");
  if (!report) return refused(report);
  for (auto format : {Format::text, Format::markdown, Format::html, Format::junit, Format::json}) {
    (void)render(*report, format);
  }
  auto diff = diff_reports(*report, *report);
  (void)render_diff_text(diff);
  (void)diff_to_json(diff);
  auto table = merge_reports({{"a.json", *report}, {"b.json", *report}});
  (void)merge_to_json(table);
  (void)render_merge_text(table);
  (void)render_merge_markdown(table);
  return {true, {}};
}

Fed feed_journal(std::span<const std::byte> bytes) {
  auto entries = harness::parse_journal(text_of(bytes), "fuzz input");
  if (!entries) return refused(entries);
  for (const auto& [unit, payload] : *entries) (void)payload.dump();
  return {true, {}};
}

// Clamps that read are applied to a device, as `run --simulate` does.
Fed feed_simulate(std::span<const std::byte> bytes) {
  auto clamps = harness::parse_simulate(text_of(bytes), "fuzz input");
  if (!clamps) return refused(clamps);
  core::DeviceInfo info;
  info.local_mem_size = 65536;
  info.global_mem_size = 1ull << 34;
  info.max_mem_alloc_size = 1ull << 32;
  (void)harness::apply_clamps(info, *clamps);
  (void)harness::clamp_memory_budget(1ull << 33, *clamps);
  (void)clamps->to_json().dump();
  return {true, {}};
}

// An amdgpu gpu_metrics file: decoded, its throttle bits named.
Fed feed_gpu_metrics(std::span<const std::byte> bytes) {
  auto metrics = signals::decode_gpu_metrics(bytes);
  if (!metrics) return refused(metrics);
  (void)metrics->throttle_reasons();
  return {true, {}};
}

// Kernel log text: the whole input as one /dev/kmsg record, then each line as one, each record
// classified as the cursor's reader does; accepted when some line is a record.
Fed feed_kmsg(std::span<const std::byte> bytes) {
  const std::string text = text_of(bytes);
  bool any = false;
  std::string error = "no kmsg record in the input";
  const auto feed_record = [&](std::string_view record_text) {
    auto record = signals::parse_kmsg_record(record_text);
    if (!record) {
      error = record.error().message;
      return;
    }
    any = true;
    if (auto event = signals::classify_kernel_record(*record)) {
      (void)signals::to_json(*event).dump();
      (void)signals::names_device(*event, "0000:01:00.0");
    }
  };
  feed_record(text);
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    feed_record(std::string_view(text).substr(start, end - start));
    (void)signals::classify_kernel_message(std::string_view(text).substr(start, end - start));
    start = end + 1;
  }
  return {any, any ? std::string{} : error};
}

}  // namespace gauntlet::fuzz
