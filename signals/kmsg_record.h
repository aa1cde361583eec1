#pragma once
// One record of /dev/kmsg, as the kernel's Documentation/ABI/testing/dev-kmsg defines it:
// "prio,seq,usec,flags[,more];message\n" then continuation lines " KEY=value\n" (SUBSYSTEM=pci,
// DEVICE=+pci:0000:01:00.0, ...). prio holds the syslog facility and level (level = prio & 7).
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gauntlet::signals {

struct KmsgRecord {
  int level = 0;     // 0 emergency .. 7 debug
  int facility = 0;  // 0 kernel, 1 user (a line written to /dev/kmsg), ...
  uint64_t sequence = 0;
  uint64_t usec = 0;    // since boot
  std::string flags;    // "-", "c" (a continuation), "+"
  std::string message;  // escaped as kmsg_escaped does, whatever the source held
  std::map<std::string, std::string> dictionary;  // the continuation lines, KEY -> value
};

// `text` with every byte below ' ' or from 0x7f up written as "\xNN", as the kernel writes them in
// /dev/kmsg: plain ASCII whatever the source held, so that a report can hold it as JSON.
std::string kmsg_escaped(std::string_view text);

// Parses one record (its message line and any continuation lines); a line that is not a record
// is a named error ("not a kmsg record: ...").
core::Result<KmsgRecord> parse_kmsg_record(std::string_view text);

}  // namespace gauntlet::signals
