#pragma once
// Classifies a kernel log message that names a GPU problem: amdgpu ring timeouts, GPU resets,
// MES failures; a device declared wedged (drm, amdgpu, i915, xe); a devcoredump written; i915/xe
// GPU hangs; NVIDIA's "NVRM: Xid (PCI:0000:01:00): 79, ..." with the Xid number. Each carries the
// PCI bus id the line names where it names one.
#include <optional>
#include <string>
#include <string_view>

#include "signals/kmsg_record.h"

namespace gauntlet::signals {

enum class GpuLogKind {
  ring_timeout,     // amdgpu "ring gfx_0.0.0 timeout"
  reset_begin,      // amdgpu "GPU reset begin!"
  reset_succeeded,  // amdgpu "GPU reset(2) succeeded!"
  reset_failed,     // amdgpu "GPU reset(2) failed", "GPU Recovery Failed"
  wedged,           // "device wedged", xe "declared device ... as wedged", i915 "wedged"
  mes_failed,       // amdgpu "MES failed to respond to msg=..."
  devcoredump,      // a device coredump was written (the path, where the line names one)
  gpu_hang,         // i915/xe "GPU HANG"
  nvidia_xid,       // NVIDIA's "NVRM: Xid"
};

const char* to_string(GpuLogKind kind);

struct GpuLogEvent {
  GpuLogKind kind = GpuLogKind::ring_timeout;
  std::string bus_id;  // "0000:c1:00.0"; NVRM names "0000:01:00" (no function); empty if none
  std::optional<int> xid;
  std::string detail;  // the ring's name, the coredump's path
  std::string message;
};

// The event a message names, or none. A record's DEVICE=+pci:<bus id> fills the bus id where
// the message itself names none.
std::optional<GpuLogEvent> classify_kernel_message(std::string_view message);
std::optional<GpuLogEvent> classify_kernel_record(const KmsgRecord& record);

// Whether the event names the device with this PCI bus id (NVRM's bus id matches any function).
bool names_device(const GpuLogEvent& event, std::string_view bus_id);

}  // namespace gauntlet::signals
