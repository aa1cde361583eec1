// The KV cache's block types for engine_attention.comp and engine_kv_store.comp: each quantized
// cache type's decoder (and, with GAUNTLET_KV_ENCODE, its encoder) from core/kernels/types/,
// included once with its names prefixed (q8_0_value_at, q8_0_encode_block, Q8_0_BYTES, ...), and
// kv_value / kv_encode choosing by ggml type id, which the kernels take as specialization
// constants (so a driver keeps one branch). The includer defines kv_word(i), the word the decoders
// read, and with GAUNTLET_KV_ENCODE PUT_BYTE(off, byte), where the encoders write, first.
#define WEIGHT_WORD(i) kv_word(i)
#include "../../core/kernels/types/access.glsl"

#define BLOCK_ELEMS Q8_0_ELEMS
#define BLOCK_BYTES Q8_0_BYTES
#define decode16 q8_0_decode16
#define value_at q8_0_value_at
#define encode_block q8_0_encode_block
#include "../../core/kernels/types/q8_0.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

#define BLOCK_ELEMS Q4_0_ELEMS
#define BLOCK_BYTES Q4_0_BYTES
#define decode16 q4_0_decode16
#define value_at q4_0_value_at
#define encode_block q4_0_encode_block
#include "../../core/kernels/types/q4_0.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

#define BLOCK_ELEMS Q4_1_ELEMS
#define BLOCK_BYTES Q4_1_BYTES
#define decode16 q4_1_decode16
#define value_at q4_1_value_at
#define encode_block q4_1_encode_block
#include "../../core/kernels/types/q4_1.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

#define BLOCK_ELEMS Q5_0_ELEMS
#define BLOCK_BYTES Q5_0_BYTES
#define decode16 q5_0_decode16
#define value_at q5_0_value_at
#define encode_block q5_0_encode_block
#include "../../core/kernels/types/q5_0.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

#define BLOCK_ELEMS Q5_1_ELEMS
#define BLOCK_BYTES Q5_1_BYTES
#define decode16 q5_1_decode16
#define value_at q5_1_value_at
#define encode_block q5_1_encode_block
#include "../../core/kernels/types/q5_1.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

#define BLOCK_ELEMS IQ4_NL_ELEMS
#define BLOCK_BYTES IQ4_NL_BYTES
#define decode16 iq4_nl_decode16
#define value_at iq4_nl_value_at
#define encode_block iq4_nl_encode_block
#include "../../core/kernels/types/iq4_nl.glsl"
#undef BLOCK_ELEMS
#undef BLOCK_BYTES
#undef decode16
#undef value_at
#undef encode_block

// Element j of the block at byte offset off of a cache of `type`.
float kv_value(uint type, uint off, uint j) {
  switch (type) {
    case 8u:
      return q8_0_value_at(off, j);
    case 2u:
      return q4_0_value_at(off, j);
    case 3u:
      return q4_1_value_at(off, j);
    case 6u:
      return q5_0_value_at(off, j);
    case 7u:
      return q5_1_value_at(off, j);
    case 20u:
      return iq4_nl_value_at(off, j);
  }
  return 0.0;
}

// Bytes of one 32-element block of a quantized `type`.
uint kv_block_bytes(uint type) {
  switch (type) {
    case 8u:
      return Q8_0_BYTES;
    case 2u:
      return Q4_0_BYTES;
    case 3u:
      return Q4_1_BYTES;
    case 6u:
      return Q5_0_BYTES;
    case 7u:
      return Q5_1_BYTES;
    case 20u:
      return IQ4_NL_BYTES;
  }
  return 0u;
}

#ifdef GAUNTLET_KV_ENCODE
// Encodes 32 floats into the block at byte offset off of a cache of the quantized `type`.
void kv_encode(uint type, float x[32], uint off) {
  switch (type) {
    case 8u:
      q8_0_encode_block(x, off);
      break;
    case 2u:
      q4_0_encode_block(x, off);
      break;
    case 3u:
      q4_1_encode_block(x, off);
      break;
    case 6u:
      q5_0_encode_block(x, off);
      break;
    case 7u:
      q5_1_encode_block(x, off);
      break;
    case 20u:
      iq4_nl_encode_block(x, off);
      break;
  }
}
#endif
