#pragma once
// What a decoder is built for, one vocabulary from the command line to the decoder: CPU threads,
// the KV cache's types, its positions, the most tokens of one sequence in a pass, the sequences
// decoded together, the loader's staging chunk and flash attention. The planner sizes every
// buffer from these; make_decoder takes them, and the host reference's options and the device
// decoder's configuration are these plus what only they need.
#include <cstdint>

#include "engine/planner/planner.h"

namespace gauntlet::engine::planner {

struct DecoderSettings {
  unsigned threads = 0;                // host: CPU threads (0: one per hardware thread)
  KvPrecision kv = KvPrecision::f32;   // -ctk / -ctv
  uint32_t context = 0;                // KV cache positions (0: the model's context)
  uint32_t micro_batch = 1;            // the most tokens of one sequence in a pass (-ub)
  uint32_t sequences = 1;              // sequences with a KV cache each (-np)
  uint64_t chunk_bytes = 16ull << 20;  // the loader's staging chunk
  bool flash_attention = false;        // -fa: attention through the flash kernel
};

}  // namespace gauntlet::engine::planner
