#pragma once
// A device decode configuration (the profile the harness plans and checks).
#include <cstdint>

#include "core/device_info.h"
#include "engine/model/file_type.h"
#include "engine/planner/decoder_settings.h"
#include "engine/planner/planner.h"

namespace gauntlet::engine::device {

// The decoder's settings (kv, context, micro_batch, sequences, flash_attention; the same as every
// decoder's) and the device's own: the weights' mix, the activations' precision and the kernels'
// variants.
struct DecodeConfig : planner::DecoderSettings {
  // The weights' file type (the mix of tensor types, file_type.h); each matvec reads its own
  // tensor's type.
  model::FileType weights = model::FileType::f32;
  // Activations held in local memory (matvec tiles, the attention query) in f32, or in f16
  // (needs claimed f16 arithmetic). The kernels' arithmetic is f32 in both cases; the variants'
  // activation_type is taken from here.
  planner::ActivationType compute = planner::ActivationType::f32;
  // The cpu device's products: activations rounded to 8-bit blocks as llama.cpp's CPU backend
  // rounds them (engine/cpu). Only the bound its checks apply reads it.
  bool q8_activations = false;
  // flash_attention (-fa): a quantized V cache needs it, as in llama.cpp.
  // Workgroup and activation tile (whole or a chunk, a multiple of 32); attention: workgroup and
  // score tile. The attention kernel always holds the whole query head.
  planner::KernelVariant matvec{planner::KernelOp::matvec, 64, planner::kWholeVector};
  planner::KernelVariant attention{planner::KernelOp::attention, 64, planner::kWholeVector,
                                   planner::ActivationType::f32, 0};
  // With flash_attention: workgroup and K/V tile (score_tile positions; f32 in local memory).
  planner::KernelVariant flash{planner::KernelOp::flash_attention, 64, planner::kWholeVector,
                               planner::ActivationType::f32, planner::kFlashTile};
  // Matmul, for passes of several tokens: workgroup, activation tile per token (a multiple of 16
  // holding whole blocks) and token tile; its local tile is always f32.
  planner::KernelVariant matmul{
      planner::KernelOp::matmul, 64, 256, planner::ActivationType::f32, 0, false, 16};
  // The layers it runs: the whole model, or a placement's share (run through run_stage; only
  // the share's tensors need be loaded, and the KV cache holds only its layers).
  planner::LayerRange layers = planner::LayerRange::whole();
};

// The variants with activation_type taken from `compute` and op set, as the kernels build them.
inline planner::KernelVariant effective_matvec(const DecodeConfig& c) {
  planner::KernelVariant v = c.matvec;
  v.op = planner::KernelOp::matvec;
  v.activation_type = c.compute;
  return v;
}
inline planner::KernelVariant effective_matmul(const DecodeConfig& c) {
  planner::KernelVariant v = c.matmul;
  v.op = planner::KernelOp::matmul;
  v.activation_type = planner::ActivationType::f32;
  v.local_reduction = false;
  return v;
}
inline planner::KernelVariant effective_attention(const DecodeConfig& c) {
  if (c.flash_attention) {
    planner::KernelVariant v = c.flash;
    v.op = planner::KernelOp::flash_attention;
    v.activation_type = planner::ActivationType::f32;
    v.activation_tile = planner::kWholeVector;
    v.local_reduction = false;
    return v;
  }
  planner::KernelVariant v = c.attention;
  v.op = planner::KernelOp::attention;
  v.activation_type = c.compute;
  v.activation_tile = planner::kWholeVector;
  return v;
}

// Rows of a matrix one matvec work-item computes (they share each activation element it loads).
// Measured on a 41 MB Q8_0 decode: an OpenCL CPU driver (PoCL) runs one row per work-item twice
// as fast as four (matvec 5.8 -> 2.8 ms a token; two rows are as slow as four), while llvmpipe,
// which runs invocations side by side in SIMD lanes, is faster with four (27 ms against 41), and
// with eight once its activations and weights are fetched as 16-byte texels (BM_Matvec GB/s: q8_0
// 3.2-4.3 -> 5.5-5.7, q4_0 2.0-2.4 -> 3.0-3.2, q4_K 2.0-2.3 -> 2.8-2.9), on matrices of at least
// two workgroups of them: a smaller one (a narrow K or V projection) would leave half of one
// workgroup's invocations repeating its last row.
inline uint32_t matvec_rows(const core::DeviceInfo& device, uint32_t n_out, uint32_t workgroup) {
  if (device.device_type != "cpu") return 4;
  if (device.id.api == core::Api::opencl) return 1;
  return uint64_t{n_out} >= 2ull * 8 * workgroup ? 8 : 4;
}

// Whether a kernel reads a buffer of `bytes` as a uniform texel buffer of 32-bit words: on a CPU
// Vulkan driver, where a storage-buffer or shared-memory load inside a loop goes lane by lane
// (llvmpipe, Mesa 22.3: a branch, a bounds check and a store through the stack per lane, even at
// an address every lane shares) and a texel fetch is one gather. The matvec reads its weights so
// (BM_Matvec GB/s: q8_0 0.39 -> 0.74, q4_0 0.25 -> 0.42, q4_K 0.23 -> 0.31, q6_K 0.26 -> 0.39,
// mxfp4 0.24 -> 0.38), a pass's matmul its weights (BM_Matmul GFLOP/s: q8_0 2.11 -> 2.65, q4_K
// 2.32 -> 2.87) and then its activations in place of a shared tile (2.70 -> 14.0, 2.93 -> 19.0);
// the attention its K and V caches (BM_Attention at 512 and 8192 positions 1.6-1.7x).
// Every type: the decoders read words through access.glsl's WEIGHT_WORD. Only where the words fit
// maxTexelBufferElements; GPUs keep their storage buffers and shared tiles.
inline bool reads_as_texels(const core::DeviceInfo& device, uint64_t bytes) {
  if (device.id.api != core::Api::vulkan || device.device_type != "cpu") return false;
  const auto limit = device.api_limits.find("maxTexelBufferElements");
  if (limit == device.api_limits.end() || !limit->is_number_unsigned()) return false;
  return (bytes + 3) / 4 <= limit->get<uint64_t>();
}

// Rows one matmul work-item computes for each token of its token tile, for an n_in x n_out matrix.
// A CPU Vulkan driver (llvmpipe) loads shared memory lane by lane, whatever the address, so each
// activation it loads must serve more rows: 8 rows made its q8_0 / q4_K pass products 2.9x / 3x
// faster (BM_Matmul); PoCL gained nothing past 2. Only matrices of at least 2^20 weights take 8
// (a wide ffn_down as much as a tall ffn_up): the larger shader takes llvmpipe twice as long to
// compile, which small matrices never win back.
inline uint32_t matmul_rows(const core::DeviceInfo& device, uint32_t n_in, uint32_t n_out) {
  const bool cpu_vulkan = device.id.api == core::Api::vulkan && device.device_type == "cpu";
  return cpu_vulkan && uint64_t{n_in} * n_out >= (uint64_t{1} << 20) ? 8 : 2;
}

// Whether attention sums V four dimensions per invocation (engine_attention.comp's V_VEC): on a CPU
// Vulkan driver one score load then serves four dimensions and three quarters of the SIMD groups
// skip the loop (llvmpipe's BM_Attention 1.5-1.7x faster); a GPU keeps every invocation busy.
inline bool attention_vector_v(const core::DeviceInfo& device) {
  return device.id.api == core::Api::vulkan && device.device_type == "cpu";
}

// Whether a pass of several tokens of one sequence attends one query per invocation
// (engine_attention_queries.comp): on a CPU Vulkan driver, for f32 and f16 caches and heads of at
// most 128 (a multiple of 4), whose query and sums the invocation keeps in registers. A workgroup
// of 64 tokens then reads each K and V row once, every invocation at the same address, where
// today's kernel reads it once per token (the quick model's 512-token pass on llvmpipe: its
// attention 2.39 -> 0.86 s, the pass 46 -> 51-52 tok/s). It reads the caches as texels
// (reads_as_texels: the pass 145 -> 250 tok/s), so each of the caches' `cache_bytes` must fit the
// texel limit. GPUs keep today's kernel.
// What engine_attention_queries.comp itself can run: f32 or f16 K and V, heads of at most 128
// that are a multiple of 4.
inline bool attention_queries_runs(planner::KvPrecision kv, uint32_t head_dim) {
  auto plain = [](model::TensorType t) {
    return t == model::TensorType::f32 || t == model::TensorType::f16;
  };
  return plain(kv.k) && plain(kv.v) && head_dim % 4 == 0 && head_dim <= 128;
}
inline bool attention_by_queries(const core::DeviceInfo& device, planner::KvPrecision kv,
                                 uint32_t head_dim, uint64_t cache_bytes) {
  return reads_as_texels(device, cache_bytes) && attention_queries_runs(kv, head_dim);
}

}  // namespace gauntlet::engine::device
