#include "signals/kmsg_record.h"

#include <charconv>
#include <vector>

namespace gauntlet::signals {

namespace {

core::Error not_a_record(std::string_view text, const std::string& why) {
  std::string shown;
  for (const char c : text.substr(0, 60)) shown += (c >= 0x20 && c < 0x7f) ? c : '?';
  return core::invalid_argument("not a kmsg record (" + why + "): '" + shown + "'");
}

bool parse_number(std::string_view field, uint64_t& out) {
  const auto [end, error] = std::from_chars(field.data(), field.data() + field.size(), out);
  return !field.empty() && error == std::errc{} && end == field.data() + field.size();
}

}  // namespace

std::string kmsg_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      out += c;
    } else {
      static constexpr char hex[] = "0123456789abcdef";
      out += "\\x";
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out;
}

core::Result<KmsgRecord> parse_kmsg_record(std::string_view text) {
  const size_t line_end = text.find('\n');
  const std::string_view line = text.substr(0, line_end);
  const size_t semicolon = line.find(';');
  if (semicolon == std::string_view::npos) return not_a_record(text, "no ';'");
  std::vector<std::string_view> fields;
  std::string_view prefix = line.substr(0, semicolon);
  for (size_t start = 0;;) {
    const size_t comma = prefix.find(',', start);
    fields.push_back(prefix.substr(start, comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (fields.size() < 4) return not_a_record(text, "fewer than 4 fields before ';'");
  uint64_t prio = 0;
  KmsgRecord record;
  if (!parse_number(fields[0], prio) || prio > 0xffffff) return not_a_record(text, "bad priority");
  if (!parse_number(fields[1], record.sequence)) return not_a_record(text, "bad sequence number");
  if (!parse_number(fields[2], record.usec)) return not_a_record(text, "bad timestamp");
  if (fields[3].empty()) return not_a_record(text, "no flags");
  record.level = static_cast<int>(prio & 7);
  record.facility = static_cast<int>(prio >> 3);
  record.flags = std::string(fields[3]);
  record.message = kmsg_escaped(line.substr(semicolon + 1));
  if (line_end == std::string_view::npos) return record;
  std::string_view rest = text.substr(line_end + 1);
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view continuation = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    if (continuation.empty()) continue;
    if (continuation.front() != ' ') return not_a_record(text, "a second record in one");
    const size_t equals = continuation.find('=');
    if (equals == std::string_view::npos) continue;
    record.dictionary[kmsg_escaped(continuation.substr(1, equals - 1))] =
        kmsg_escaped(continuation.substr(equals + 1));
  }
  return record;
}

}  // namespace gauntlet::signals
