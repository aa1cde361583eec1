#include "cli/bench_output.h"

#include <algorithm>
#include <cstdio>

#include "core/json.h"

namespace gauntlet::cli {

namespace {

std::string printf_text(const char* format, double value, const char* unit = "") {
  char text[64];
  std::snprintf(text, sizeof text, format, value, unit);
  return text;
}

// As llama-bench: "234.12 MiB", "1.23 GiB".
std::string size_text(uint64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024) return printf_text("%.2f %s", b / (1024.0 * 1024 * 1024), "GiB");
  return printf_text("%.2f %s", b / (1024.0 * 1024), "MiB");
}

// As llama-bench: "6.74 B", "248.63 M", "4.20 K".
std::string params_text(uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e9) return printf_text("%.2f %s", v / 1e9, "B");
  if (v >= 1e6) return printf_text("%.2f %s", v / 1e6, "M");
  return printf_text("%.2f %s", v / 1e3, "K");
}

std::string ts_text(const engine::BenchResult& r) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f ± %.2f", r.avg_ts, r.stddev_ts);
  return text;
}

// Display width: "±" is two bytes in UTF-8 and one column.
size_t columns(const std::string& s) {
  return static_cast<size_t>(std::count_if(
      s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string number(double v) { return printf_text("%.6f", v); }

bool default_kv_cache(const BenchRow& r) {
  return r.type_k == "f32" && r.type_v == "f32" && !r.flash_attn;
}

}  // namespace

std::string bench_markdown(const std::vector<BenchRow>& rows) {
  const bool kv_columns = !std::all_of(rows.begin(), rows.end(), default_kv_cache);
  std::vector<std::vector<std::string>> cells{
      {"model", "size", "params", "backend", "device", "ubatch"}};
  std::vector<bool> right = {false, true, true, false, false, true};
  if (kv_columns) {
    cells[0].insert(cells[0].end(), {"type_k", "type_v", "fa"});
    right.insert(right.end(), {false, false, true});
  }
  const bool held =
      std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.steady.has_value(); });
  cells[0].insert(cells[0].end(), {"test", "t/s"});
  right.insert(right.end(), {true, true});
  if (held) {
    cells[0].push_back("t/s held");
    right.push_back(true);
  }
  const bool drafted = std::any_of(
      rows.begin(), rows.end(), [](const BenchRow& r) { return r.draft_acceptance.has_value(); });
  if (drafted) {
    cells[0].push_back("draft accepted");
    right.push_back(true);
  }
  for (const auto& r : rows) {
    std::vector<std::string> row{r.model,   size_text(r.size), params_text(r.params),
                                 r.backend, r.device,          std::to_string(r.ubatch)};
    if (kv_columns) row.insert(row.end(), {r.type_k, r.type_v, r.flash_attn ? "1" : "0"});
    row.insert(row.end(), {r.result.test.name(), ts_text(r.result)});
    if (held) row.push_back(r.steady ? ts_text(*r.steady) : "-");
    if (drafted) {
      row.push_back(r.draft_acceptance ? printf_text("%.1f %%", 100 * *r.draft_acceptance) : "-");
    }
    cells.push_back(std::move(row));
  }
  std::vector<size_t> widths(right.size(), 0);
  for (const auto& row : cells) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], columns(row[i]));
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string out = "|";
    for (size_t i = 0; i < row.size(); ++i) {
      const std::string pad(widths[i] - columns(row[i]), ' ');
      out.append(" ").append(right[i] ? pad + row[i] : row[i] + pad).append(" |");
    }
    return out + "\n";
  };
  std::string out = line(cells[0]);
  out += "|";
  for (size_t i = 0; i < widths.size(); ++i) {
    out.append(" ").append(widths[i] - (right[i] ? 1 : 0), '-');
    out.append(right[i] ? ":" : "").append(" |");
  }
  out += "\n";
  for (size_t i = 1; i < cells.size(); ++i) out += line(cells[i]);
  return out;
}

std::string bench_json(const std::vector<BenchRow>& rows) {
  core::OrderedJson out = core::OrderedJson::array();
  for (const auto& r : rows) {
    out.push_back({{"model", r.model},
                   {"size", r.size},
                   {"params", r.params},
                   {"backend", r.backend},
                   {"device", r.device},
                   {"device_name", r.device_name},
                   {"ubatch", r.ubatch},
                   {"type_k", r.type_k},
                   {"type_v", r.type_v},
                   {"flash_attn", r.flash_attn},
                   {"test", r.result.test.name()},
                   {"n_prompt", r.result.test.n_prompt},
                   {"n_gen", r.result.test.n_gen},
                   {"samples_ts", r.result.samples_ts},
                   {"avg_ts", r.result.avg_ts},
                   {"stddev_ts", r.result.stddev_ts}});
    if (r.draft_acceptance) out.back()["draft_acceptance"] = *r.draft_acceptance;
    if (r.steady) {
      out.back()["held_samples_ts"] = r.steady->samples_ts;
      out.back()["held_avg_ts"] = r.steady->avg_ts;
      out.back()["held_stddev_ts"] = r.steady->stddev_ts;
    }
  }
  return out.dump(2) + "\n";
}

std::string bench_csv(const std::vector<BenchRow>& rows) {
  std::string out =
      "model,size,params,backend,device,device_name,ubatch,type_k,type_v,flash_attn,test,n_prompt,"
      "n_gen,avg_ts,stddev_ts,samples_ts\n";
  for (const auto& r : rows) {
    std::string samples;
    for (double s : r.result.samples_ts)
      samples.append(samples.empty() ? "" : ",").append(number(s));
    const std::vector<std::string> fields = {r.model,
                                             std::to_string(r.size),
                                             std::to_string(r.params),
                                             r.backend,
                                             r.device,
                                             r.device_name,
                                             std::to_string(r.ubatch),
                                             r.type_k,
                                             r.type_v,
                                             r.flash_attn ? "1" : "0",
                                             r.result.test.name(),
                                             std::to_string(r.result.test.n_prompt),
                                             std::to_string(r.result.test.n_gen),
                                             number(r.result.avg_ts),
                                             number(r.result.stddev_ts),
                                             samples};
    for (size_t i = 0; i < fields.size(); ++i)
      out.append(i ? "," : "").append(csv_field(fields[i]));
    out += "\n";
  }
  return out;
}

}  // namespace gauntlet::cli
