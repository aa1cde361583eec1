#pragma once
// What the harness calls to prove a decode configuration on a device: the checks made before
// any dispatch, the default (fastest fitting) configuration, and decode runs compared with the
// CPU reference.
#include <cstdint>
#include <string>
#include <vector>

#include "backends/device.h"
#include "core/device_info.h"
#include "core/status.h"
#include "engine/decoder.h"
#include "engine/device/config.h"
#include "engine/device/kernels.h"
#include "engine/model/gguf.h"
#include "engine/model/shape.h"

namespace gauntlet::engine::device {

// Before any dispatch: every kernel's local memory (planner::local_mem_bytes) against
// `local_mem_limit`, and the features the config needs against the device's claims. The reason
// names both numbers and the kernel, e.g. "local memory 47040 > 32768
// (matvec.wg64.whole.f32, n_in 11008)", or the feature and device, e.g. "f16 arithmetic not
// supported by opencl:0". A configuration whose passes hold several tokens (micro_batch or
// sequences above 1) is checked with its matmul variant too.
core::Status check_config(const core::DeviceInfo& device, uint64_t local_mem_limit,
                          const model::ModelShape& shape, const DecodeConfig& config);

// The matmul variant a pass of several tokens uses by default: the largest token tile, then the
// largest activation tile, whose local memory fits.
planner::KernelVariant default_matmul(uint64_t local_mem_limit, const model::ModelShape& shape,
                                      model::FileType weights);

// The fastest variant that fits: the whole activation vector in local memory if it fits, else
// the largest chunk; the whole context's scores, else the largest score tile. f32 compute and
// KV cache, the model's context.
DecodeConfig default_config(const core::DeviceInfo& device, uint64_t local_mem_limit,
                            const model::ModelShape& shape, model::FileType weights);

// The logits NMSE bound the checks apply (worst step): 1e-6 with f32 activations and KV cache
// (only summation order differs from the reference), 1e-4 with an f16 or quantized KV cache (the
// device encodes the rows as the host does; a code may round the other way where its f32
// arithmetic differs in the last bit), 1e-3 with f16
// activations in local memory. Attention over more than 4096 positions sums longer: the bound
// grows in proportion (as test-backend-ops loosens its bounds for long reductions).
double logits_nmse_bound(const DecodeConfig& config, uint32_t positions = 0);
// With 8-bit activations (the cpu device): each product's inputs are rounded to 1/254 of their
// block's largest magnitude, as llama.cpp's CPU backend rounds them.
inline constexpr double kQ8ActivationsNmseBound = 1e-2;
// sum((a - b)^2) / sum(b^2) (0 when both are zero).
double nmse(std::span<const float> actual, std::span<const float> expected);

struct CheckResult {
  bool tokens_match = false;
  std::vector<int32_t> device_tokens, host_tokens;
  double logits_nmse = 0, nmse_bound = 0;  // worst step
  double tokens_per_second = 0;
  double effective_gbps = 0;  // (weight + KV bytes read per token) * tok/s
  // check_pass: prompt tokens per second (pp), generated tokens per second over all sequences
  // (tg), and the prompt's arithmetic rate (2 FLOPs per weight element per token).
  double prompt_tokens_per_second = 0;
  double prompt_gflops = 0;
  uint64_t device_peak_bytes = 0;
  uint64_t planned_peak_bytes = 0;  // planner steady state (weights + KV + activations)
  std::string reason;               // empty when it passed
  // Set when the greedy tokens part at a near tie: the host's top two logits closer than the
  // configuration's error scale (sqrt(NMSE bound) * RMS of the logits). Not a failure.
  std::string note;
};

// Bytes one decode step reads: every weight once (one row of token_embd unless it is tied to the
// output; of each expert stack the n_expert_used experts a token picks), K and V of
// `positions` positions of every layer, and a hybrid's recurrent state of one sequence.
uint64_t bytes_read_per_token(const model::ModelShape& shape,
                              std::span<const model::TensorDesc> weights, planner::KvPrecision kv,
                              uint32_t positions);

// Two decoders compared: `steps` greedy tokens after `prompt` on each (each reset first), the
// tested one timed (tokens_per_second); tokens and logits compared over the steps fed the same
// token, against the configuration's bound, a parting at a near tie noted rather than failed.
core::Result<CheckResult> compare_greedy(Decoder& tested, Decoder& reference,
                                         std::span<const int32_t> prompt, uint32_t steps,
                                         const DecodeConfig& config);

// Loads the model onto `device` (bounded chunks), decodes `steps` greedy tokens after `prompt` on
// the device and on the host reference, and compares tokens and logits (over the steps that were
// fed the same token) against logits_nmse_bound.
// `kernels`, when given, is a kernel cache shared by the checks on `device` (each kernel is then
// built once for all of them).
core::Result<CheckResult> check_decode(backends::Device& device, const model::GgufFile& model,
                                       const DecodeConfig& config, std::vector<int32_t> prompt,
                                       uint32_t steps, KernelCache* kernels = nullptr);

// Passes of several tokens, as the configuration's micro_batch and sequences ask. One sequence:
// a prompt of `prompt_tokens` tokens in passes of micro_batch (timed: pp), then `steps` greedy
// tokens one at a time (timed: tg); every 32nd prompt token's logits, the last one's and every
// generated token's are compared with the host reference fed the same tokens (the prompt in one
// pass: its passes are bit for bit its token-by-token decode). Several sequences: a short prompt
// of each in one forward, then `steps` passes of one token of every sequence, each sequence
// compared with its own decode on the host reference. host_tokens holds the tokens of the decode
// compared with.
core::Result<CheckResult> check_pass(backends::Device& device, const model::GgufFile& model,
                                     const DecodeConfig& config, uint32_t prompt_tokens,
                                     uint32_t steps, KernelCache* kernels = nullptr);

// The pass a comparison runs: the tested decoder was made with this KV precision, context,
// micro-batch and sequence count.
struct PassSpec {
  planner::KvPrecision kv = planner::KvPrecision::f32;
  planner::ActivationType compute = planner::ActivationType::f32;  // sets the NMSE bound
  uint32_t context = 0;
  uint32_t micro_batch = 1;
  uint32_t sequences = 1;
  uint32_t prompt_tokens = 8;
  uint32_t steps = 8;
  bool q8_activations = false;  // sets the NMSE bound (the cpu device)
};

// A profile check is two decoders compared: `tested` (any decoder: one device's, a placement's)
// against the host reference over the same file, as check_pass describes; timed as it describes.
core::Result<CheckResult> compare_with_reference(Decoder& tested, const model::GgufFile& file,
                                                 const PassSpec& spec);

// Long context without prefill: fills the KV cache of every layer directly to `context - 1`
// positions with deterministic values (the same on device and host), runs one decode step at
// position context - 1, and compares the logits.
core::Result<CheckResult> check_context(backends::Device& device, const model::GgufFile& model,
                                        const DecodeConfig& config, uint32_t context,
                                        KernelCache* kernels = nullptr);

}  // namespace gauntlet::engine::device
