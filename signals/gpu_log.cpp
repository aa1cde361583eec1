#include "signals/gpu_log.h"

#include <cctype>
#include <charconv>

namespace gauntlet::signals {

namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// "dddd:bb:dd.f" with hex digits: the form the kernel's dev_printk names a PCI device by.
bool bus_id_at(std::string_view text, size_t at) {
  static constexpr std::string_view shape = "hhhh:hh:hh.h";
  if (at + shape.size() > text.size()) return false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const char c = text[at + i];
    if (shape[i] == 'h' ? !is_hex(c) : c != shape[i]) return false;
  }
  return at == 0 || !is_hex(text[at - 1]);
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string find_bus_id(std::string_view text) {
  for (size_t at = 0; at < text.size(); ++at) {
    if (bus_id_at(text, at)) return lower(text.substr(at, 12));
  }
  return {};
}

std::string_view word_at(std::string_view text, size_t at) {
  const size_t end = text.find_first_of(" ,:\t", at);
  return text.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

// "NVRM: Xid (PCI:0000:01:00): 79, pid=..." (older drivers: "NVRM: Xid (0000:01:00): 79, ...").
std::optional<GpuLogEvent> nvidia_xid(std::string_view message) {
  const size_t xid = message.find("NVRM: Xid (");
  if (xid == std::string_view::npos) return std::nullopt;
  std::string_view rest = message.substr(xid + 11);
  const size_t close = rest.find("):");
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view bus = rest.substr(0, close);
  if (bus.rfind("PCI:", 0) == 0) bus.remove_prefix(4);
  rest = rest.substr(close + 2);
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  int number = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
  if (error != std::errc{} || end == rest.data()) return std::nullopt;
  GpuLogEvent event{
      GpuLogKind::nvidia_xid, kmsg_escaped(lower(bus)), number, {}, kmsg_escaped(message)};
  return event;
}

std::optional<GpuLogKind> kind_of(std::string_view m, std::string& detail) {
  if (const size_t ring = m.find("ring "); ring != std::string_view::npos) {
    const std::string_view name = word_at(m, ring + 5);
    if (m.substr(ring + 5 + name.size()).rfind(" timeout", 0) == 0 && !name.empty()) {
      detail = std::string(name);
      return GpuLogKind::ring_timeout;
    }
  }
  if (m.find("GPU reset begin") != std::string_view::npos) return GpuLogKind::reset_begin;
  if (m.find("GPU reset(") != std::string_view::npos) {
    if (m.find("succeeded") != std::string_view::npos) return GpuLogKind::reset_succeeded;
    if (m.find("failed") != std::string_view::npos) return GpuLogKind::reset_failed;
  }
  if (m.find("GPU Recovery Failed") != std::string_view::npos) return GpuLogKind::reset_failed;
  if (m.find("MES failed") != std::string_view::npos) return GpuLogKind::mes_failed;
  if (m.find("GPU HANG") != std::string_view::npos) return GpuLogKind::gpu_hang;
  if (const size_t at = m.find("wedged"); at != std::string_view::npos) {
    if (at < 2 || m.substr(at - 2, 2) != "un") return GpuLogKind::wedged;
  }
  if (lower(m).find("coredump") != std::string_view::npos) {
    if (const size_t path = m.find("/sys/"); path != std::string_view::npos) {
      detail = std::string(word_at(m, path));
      while (!detail.empty() && (detail.back() == '.' || detail.back() == ')')) detail.pop_back();
    }
    return GpuLogKind::devcoredump;
  }
  return std::nullopt;
}

}  // namespace

const char* to_string(GpuLogKind kind) {
  switch (kind) {
    case GpuLogKind::ring_timeout:
      return "ring_timeout";
    case GpuLogKind::reset_begin:
      return "reset_begin";
    case GpuLogKind::reset_succeeded:
      return "reset_succeeded";
    case GpuLogKind::reset_failed:
      return "reset_failed";
    case GpuLogKind::wedged:
      return "wedged";
    case GpuLogKind::mes_failed:
      return "mes_failed";
    case GpuLogKind::devcoredump:
      return "devcoredump";
    case GpuLogKind::gpu_hang:
      return "gpu_hang";
    case GpuLogKind::nvidia_xid:
      return "nvidia_xid";
  }
  return "unknown";
}

std::optional<GpuLogEvent> classify_kernel_message(std::string_view message) {
  if (auto xid = nvidia_xid(message)) return xid;
  std::string detail;
  const auto kind = kind_of(message, detail);
  if (!kind) return std::nullopt;
  return GpuLogEvent{*kind, find_bus_id(message), std::nullopt, kmsg_escaped(detail),
                     kmsg_escaped(message)};
}

std::optional<GpuLogEvent> classify_kernel_record(const KmsgRecord& record) {
  auto event = classify_kernel_message(record.message);
  if (!event || !event->bus_id.empty()) return event;
  const auto device = record.dictionary.find("DEVICE");
  if (device != record.dictionary.end() && device->second.rfind("+pci:", 0) == 0) {
    event->bus_id = find_bus_id(device->second);
  }
  return event;
}

bool names_device(const GpuLogEvent& event, std::string_view bus_id) {
  if (event.bus_id.empty()) return false;
  const std::string wanted = lower(bus_id);
  return wanted == event.bus_id ||
         (event.bus_id.size() == 10 && wanted.rfind(event.bus_id + ".", 0) == 0);
}

}  // namespace gauntlet::signals
