#include "engine/device/kernels.h"

#include <algorithm>

#include "build_options.h"
#include "core/type_kernels.h"
#include "engine/device/config.h"
#include "kernels/engine_add_bias_cl.h"
#include "kernels/engine_attention_cl.h"
#include "kernels/engine_delta_net_cl.h"
#include "kernels/engine_elementwise_cl.h"
#include "kernels/engine_expert_combine_cl.h"
#include "kernels/engine_expert_group_cl.h"
#include "kernels/engine_expert_route_cl.h"
#include "kernels/engine_flash_attention_cl.h"
#include "kernels/engine_hadamard_cl.h"
#include "kernels/engine_kv_store_cl.h"
#include "kernels/engine_matmul_cl.h"
#include "kernels/engine_matvec_cl.h"
#include "kernels/engine_query_gate_cl.h"
#include "kernels/engine_rmsnorm_cl.h"
#include "kernels/engine_rope_kv_cl.h"
#include "kernels/engine_ssm_conv_cl.h"
#include "kernels/engine_ssm_scan_cl.h"
#ifdef GAUNTLET_HAVE_SPIRV
#include "kernels/engine_add_bias_comp.h"
#include "kernels/engine_attention_comp.h"
#include "kernels/engine_attention_queries_comp.h"
#include "kernels/engine_attention_texels_comp.h"
#include "kernels/engine_delta_net_comp.h"
#include "kernels/engine_elementwise_comp.h"
#include "kernels/engine_expert_combine_comp.h"
#include "kernels/engine_expert_group_comp.h"
#include "kernels/engine_expert_route_comp.h"
#include "kernels/engine_flash_attention_comp.h"
#include "kernels/engine_hadamard_comp.h"
#include "kernels/engine_kv_store_comp.h"
#include "kernels/engine_matmul_texels_typed.h"
#include "kernels/engine_matmul_typed.h"
#include "kernels/engine_matvec_blocks_texels_typed.h"
#include "kernels/engine_matvec_blocks_typed.h"
#include "kernels/engine_matvec_comp.h"
#include "kernels/engine_matvec_texels_comp.h"
#include "kernels/engine_query_gate_comp.h"
#include "kernels/engine_rmsnorm_comp.h"
#include "kernels/engine_rope_kv_comp.h"
#include "kernels/engine_ssm_conv_comp.h"
#include "kernels/engine_ssm_scan_comp.h"
#endif

namespace gauntlet::engine::device {

namespace {

using backends::KernelSource;

struct Embedded {
  std::string_view cl;
  std::span<const uint32_t> spirv;
};

core::Result<KernelSource> make(core::Api api, const std::string& entry, Embedded code,
                                uint32_t buffers, uint32_t params_bytes, uint32_t workgroup,
                                bool dynamic_local) {
  KernelSource s;
  s.name = entry;
  s.buffer_count = buffers;
  s.params_bytes = params_bytes;
  s.workgroup = {workgroup, 1, 1};
  if (api == core::Api::opencl) {
    s.opencl_c = code.cl;
    s.dynamic_local = dynamic_local;
  } else if (api == core::Api::vulkan) {
    if (code.spirv.empty()) {
      return core::make_error(core::ErrorKind::unsupported,
                              "this build has no SPIR-V for kernel '" + entry + "'");
    }
    s.spirv = code.spirv;
  } else {
    return core::make_error(
        core::ErrorKind::unsupported,
        std::string("the decode kernels run on OpenCL and Vulkan, not ") + core::to_string(api));
  }
  return s;
}

#ifdef GAUNTLET_HAVE_SPIRV
#define SPIRV(x) kernels::x
#else
#define SPIRV(x) std::span<const uint32_t>()
#endif

#ifdef GAUNTLET_HAVE_SPIRV
// Whether the type's Vulkan matvec is one of engine_matvec.comp's tuned paths:
// core/weight_types.def's matvec column says tuned (the others, blocks, have one SPIR-V each from
// engine_matvec_blocks.glsl).
bool has_tuned_vulkan_matvec(model::TensorType type) {
  switch (type) {
#define GAUNTLET_WEIGHT_TYPE(name, id, elements, bytes, codec, matvec) \
  case model::TensorType::name:                                        \
    return std::string_view(#matvec) == "tuned";
#include "core/weight_types.def"
#undef GAUNTLET_WEIGHT_TYPE
  }
  return false;
}
#endif

// The matvec and embed kernels of a weight type: OpenCL builds one text with the type's block
// decoder in front; Vulkan has engine_matvec.comp's tuned paths for some types and one SPIR-V per
// block type from engine_matvec_blocks.glsl for the others.
core::Result<KernelSource> matvec_kernel(core::Api api, model::TensorType weights,
                                         const std::string& entry, uint32_t workgroup,
                                         bool dynamic_local, bool weights_as_texels = false) {
  std::span<const uint32_t> spirv;
  const bool texels = weights_as_texels && api == core::Api::vulkan;
#ifdef GAUNTLET_HAVE_SPIRV
  if (has_tuned_vulkan_matvec(weights)) {
    spirv = texels ? kernels::engine_matvec_texels_comp : kernels::engine_matvec_comp;
  } else {
    spirv = texels ? kernels::engine_matvec_blocks_texels_spirv(static_cast<uint32_t>(weights))
                   : kernels::engine_matvec_blocks_spirv(static_cast<uint32_t>(weights));
  }
#endif
  auto s = make(api, entry, {kernels::engine_matvec_cl, spirv}, 2, sizeof(MatvecParams), workgroup,
                dynamic_local);
  if (s && api == core::Api::opencl) s->opencl_headers = core::opencl_type_headers(weights);
  // The texel matvec reads f32 activations as texels too (binding 3).
  if (s && texels) {
    s->texel_views = {0, 1};
    s->texel_vectors = true;
  }
  return s;
}

bool is_pow2(uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }

core::Status check_workgroup(const planner::KernelVariant& v) {
  if (!is_pow2(v.workgroup) || v.workgroup > 1024) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": the workgroup must be a power of two up to 1024");
  }
  return core::Status::ok();
}

// The activation elements a workgroup holds at once: all n_in, or a tile of them.
uint32_t tile_elements(const planner::KernelVariant& v, uint32_t n_in) {
  return v.activation_tile == planner::kWholeVector ? n_in
                                                    : std::min<uint32_t>(v.activation_tile, n_in);
}

// engine_matvec_body.glsl's ROW_PATH for its five types (the other bodies ignore it).
uint32_t matvec_row_path(model::TensorType weights, uint32_t n_in, uint32_t tile) {
  using model::TensorType;
  const bool quant = weights == TensorType::q8_0 || weights == TensorType::q4_0;
  const bool floats =
      weights == TensorType::f32 || weights == TensorType::f16 || weights == TensorType::bf16;
  if (quant && n_in % 256 == 0 && tile % 256 == 0) return 1;
  if (floats && n_in % 8 == 0 && tile % 8 == 0) return 2;
  return 0;
}

}  // namespace

VectorReads vector_reads(const backends::Buffer& weights, const backends::Buffer& act,
                         std::initializer_list<uint32_t> act_offsets) {
  const bool aligned = std::all_of(act_offsets.begin(), act_offsets.end(),
                                   [](uint32_t offset) { return offset % 4 == 0; });
  return {aligned && act.size() % 16 == 0, weights.size() % 16 == 0};
}

core::Result<KernelSource> matvec_source(core::Api api, model::TensorType weights,
                                         const planner::KernelVariant& v, uint32_t n_in,
                                         uint32_t rows, bool accumulate, bool weights_as_texels,
                                         VectorReads vector_reads) {
  GAUNTLET_TRY(check_workgroup(v));
  const uint32_t tile = tile_elements(v, n_in);
  if (tile % 2 != 0 ||
      (v.activation_tile != planner::kWholeVector && tile % 32 != 0 && tile != n_in)) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": an activation chunk must be a multiple of 32 elements");
  }
  if (rows == 0 || rows > 8) {
    return core::make_error(core::ErrorKind::invalid_argument, "matvec rows per workgroup 1..8");
  }
  const bool f16 = v.activation_type == planner::ActivationType::f16;
  if (v.activation_tile != planner::kWholeVector && tile % model::block_elements(weights) != 0 &&
      tile != n_in) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": an activation chunk of " + std::to_string(tile) +
                                " elements does not hold whole " + model::to_string(weights) +
                                " blocks of " + std::to_string(model::block_elements(weights)));
  }
  auto s = matvec_kernel(api, weights, "matvec", v.workgroup, true, weights_as_texels);
  if (!s) return s;
  s->constants = {{"WEIGHT_FORMAT", static_cast<int64_t>(weights)},
                  {"TILE", tile},
                  {"ACT_F16", f16 ? 1 : 0},
                  {"ROWS", rows},
                  {"TILE_WORDS", ((f16 ? tile / 2 : tile) + 3) / 4 * 4},
                  {"RED", v.workgroup},
                  {"MODE", 0},
                  {"ACCUMULATE", accumulate ? 1 : 0},
                  {"VECTOR_READS", weights_as_texels ? vector_reads.bits() : 0},
                  {"ROW_PATH", matvec_row_path(weights, n_in, tile)}};
  return s;
}

core::Result<KernelSource> matmul_source(core::Api api, model::TensorType weights,
                                         const planner::KernelVariant& v, uint32_t n_in,
                                         uint32_t rows, bool accumulate, bool experts,
                                         bool weights_as_texels) {
  GAUNTLET_TRY(check_workgroup(v));
  const uint32_t tile = tile_elements(v, n_in);
  const uint32_t step = std::max<uint32_t>(16, model::block_elements(weights));
  if (tile % step != 0 || n_in % step != 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": a matmul over " + std::to_string(n_in) + " " +
                                model::to_string(weights) + " elements in tiles of " +
                                std::to_string(tile) + " needs both to be multiples of " +
                                std::to_string(step));
  }
  if (rows == 0 || rows > 8 || v.tokens == 0 || v.tokens > 32) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() +
                                ": a matmul computes 1..8 rows per work-item for 1..32 "
                                "tokens per workgroup");
  }
  std::span<const uint32_t> spirv;
  const bool texels = weights_as_texels && api == core::Api::vulkan;
#ifdef GAUNTLET_HAVE_SPIRV
  spirv = texels ? kernels::engine_matmul_texels_spirv(static_cast<uint32_t>(weights))
                 : kernels::engine_matmul_spirv(static_cast<uint32_t>(weights));
#endif
  auto s = make(api, "matmul", {kernels::engine_matmul_cl, spirv}, 2, sizeof(MatmulParams),
                v.workgroup, true);
  if (!s) return s;
  // The texel matmul reads the activations as texels too (binding 3).
  if (texels) s->texel_views = {0, 1};
  if (api == core::Api::opencl) s->opencl_headers = core::opencl_type_headers(weights);
  s->constants = {{"WEIGHT_FORMAT", static_cast<int64_t>(weights)},
                  {"TILE", tile},
                  {"TOKENS", v.tokens},
                  {"ROWS", rows},
                  {"ACCUMULATE", accumulate ? 1 : 0},
                  {"TILE_VECS", v.tokens * tile / 4},
                  {"EXPERTS", experts ? 1 : 0}};
  return s;
}

core::Result<KernelSource> embed_source(core::Api api, model::TensorType weights) {
  auto s = matvec_kernel(api, weights, "embed", kSimpleWorkgroup, false);
  if (!s) return s;
  // TILE_WORDS of 4 (one 16-byte vector) and RED of 1: the embed mode declares almost no shared
  // memory.
  s->constants = {{"WEIGHT_FORMAT", static_cast<int64_t>(weights)},
                  {"TILE", 2},
                  {"ACT_F16", 0},
                  {"ROWS", 1},
                  {"TILE_WORDS", 4},
                  {"RED", 1},
                  {"MODE", 1},
                  {"ACCUMULATE", 0}};
  return s;
}

core::Result<KernelSource> rmsnorm_source(core::Api api, uint32_t workgroup) {
  planner::KernelVariant v;
  v.op = planner::KernelOp::rmsnorm;
  v.workgroup = workgroup;
  GAUNTLET_TRY(check_workgroup(v));
  auto s = make(api, "rmsnorm", {kernels::engine_rmsnorm_cl, SPIRV(engine_rmsnorm_comp)}, 2,
                sizeof(RmsnormParams), workgroup, true);
  if (!s) return s;
  s->constants = {{"RED", workgroup}};
  return s;
}

core::Result<KernelSource> rope_kv_source(core::Api api, planner::KvPrecision kv) {
  auto s = make(api, "rope_kv", {kernels::engine_rope_kv_cl, SPIRV(engine_rope_kv_comp)}, 5,
                sizeof(RopeParams), kSimpleWorkgroup, false);
  if (!s) return s;
  s->constants = {{"KV_F16", kv == planner::KvPrecision::f16 ? 1 : 0},
                  {"KV_WRITE", rope_writes_kv(kv) ? 1 : 0}};
  return s;
}

core::Result<KernelSource> kv_store_source(core::Api api, planner::KvPrecision kv) {
  auto s = make(api, "kv_store", {kernels::engine_kv_store_cl, SPIRV(engine_kv_store_comp)}, 4,
                sizeof(KvStoreParams), kSimpleWorkgroup, false);
  if (!s) return s;
  if (api == core::Api::opencl) s->opencl_headers = core::opencl_kv_type_headers(kv.k, kv.v);
  s->constants = {{"K_TYPE", static_cast<int64_t>(kv.k)}, {"V_TYPE", static_cast<int64_t>(kv.v)}};
  return s;
}

core::Result<KernelSource> hadamard_source(core::Api api, uint32_t chunk) {
  if (chunk < 64 || chunk > 256 || (chunk & (chunk - 1)) != 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "a Walsh-Hadamard rotation turns chunks of 64, 128 or 256 elements, "
                            "not " +
                                std::to_string(chunk));
  }
  auto s = make(api, "hadamard", {kernels::engine_hadamard_cl, SPIRV(engine_hadamard_comp)}, 1,
                sizeof(HadamardParams), chunk, true);
  if (!s) return s;
  s->constants = {{"CHUNK", chunk}};
  return s;
}

core::Result<KernelSource> attention_source(core::Api api, const planner::KernelVariant& v,
                                            uint32_t head_dim, uint32_t context,
                                            planner::KvPrecision kv, bool vector_v,
                                            bool kv_as_texels) {
  GAUNTLET_TRY(check_workgroup(v));
  if (v.activation_tile != planner::kWholeVector && v.activation_tile < head_dim) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": attention holds the whole query head (" +
                                std::to_string(head_dim) + " elements) in local memory");
  }
  const uint32_t dims_per_item = (head_dim + v.workgroup - 1) / v.workgroup;
  if (dims_per_item > 8 || head_dim % 2 != 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": head_dim " + std::to_string(head_dim) +
                                " needs an even size and at most 8 dimensions per work-item");
  }
  const uint32_t score_tile = v.score_tile == 0 ? context : std::min(v.score_tile, context);
  const bool f16 = v.activation_type == planner::ActivationType::f16;
  const bool texels = kv_as_texels && api == core::Api::vulkan;
  auto s = make(api, "attention",
                {kernels::engine_attention_cl,
                 texels ? SPIRV(engine_attention_texels_comp) : SPIRV(engine_attention_comp)},
                5, sizeof(AttentionParams), v.workgroup, true);
  if (!s) return s;
  if (texels) s->texel_views = {1, 2};  // the K and V caches
  if (api == core::Api::opencl) s->opencl_headers = core::opencl_kv_type_headers(kv.k, kv.v);
  // Vulkan numbers the constants in this order from 3 (engine_attention.comp).
  s->constants = {{"HEAD_DIM", head_dim},
                  {"SCORE_TILE", score_tile},
                  {"K_TYPE", static_cast<int64_t>(kv.k)},
                  {"ACT_F16", f16 ? 1 : 0},
                  {"DIMS_PER_ITEM", dims_per_item},
                  {"Q_WORDS", f16 ? head_dim / 2 : head_dim},
                  {"RED", v.workgroup},
                  {"V_TYPE", static_cast<int64_t>(kv.v)},
                  {"V_VEC", vector_v && head_dim % 4 == 0 && head_dim / 4 <= v.workgroup ? 4 : 1}};
  return s;
}

core::Result<KernelSource> attention_queries_source(core::Api api, uint32_t workgroup,
                                                    uint32_t head_dim, planner::KvPrecision kv) {
  if (api != core::Api::vulkan || !attention_queries_runs(kv, head_dim)) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "attention by queries runs on Vulkan, for heads of at most 128 (a "
                            "multiple of 4) and f32 or f16 caches");
  }
  auto s = make(api, "attention_queries", {"", SPIRV(engine_attention_queries_comp)}, 5,
                sizeof(AttentionQueriesParams), workgroup, false);
  if (!s) return s;
  s->texel_views = {1, 2};  // the K and V caches
  // Vulkan numbers the constants in this order from 3 (engine_attention_queries.comp).
  s->constants = {{"HEAD_DIM", head_dim},
                  {"K_TYPE", static_cast<int64_t>(kv.k)},
                  {"V_TYPE", static_cast<int64_t>(kv.v)}};
  return s;
}

core::Result<KernelSource> flash_attention_source(core::Api api, const planner::KernelVariant& v,
                                                  uint32_t head_dim, uint32_t group,
                                                  uint32_t context, planner::KvPrecision kv) {
  GAUNTLET_TRY(check_workgroup(v));
  const uint32_t acc = (group * head_dim + v.workgroup - 1) / v.workgroup;
  if (acc > 32 || group == 0) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            v.name() + ": " + std::to_string(group) + " query heads of " +
                                std::to_string(head_dim) +
                                " need at most 32 output elements per work-item");
  }
  const uint32_t tile = planner::flash_tile(v, context);
  auto s = make(api, "flash_attention",
                {kernels::engine_flash_attention_cl, SPIRV(engine_flash_attention_comp)}, 5,
                sizeof(AttentionParams), v.workgroup, true);
  if (!s) return s;
  if (api == core::Api::opencl) s->opencl_headers = core::opencl_kv_type_headers(kv.k, kv.v);
  // Vulkan numbers the constants in this order from 3 (engine_flash_attention.comp).
  s->constants = {{"HEAD_DIM", head_dim},
                  {"TILE", tile},
                  {"GROUP", group},
                  {"K_TYPE", static_cast<int64_t>(kv.k)},
                  {"V_TYPE", static_cast<int64_t>(kv.v)},
                  {"ACC", acc},
                  {"Q_SIZE", group * head_dim},
                  {"KV_SIZE", tile * head_dim},
                  {"S_SIZE", group * tile}};
  return s;
}

core::Result<KernelSource> elementwise_source(core::Api api, Elementwise op) {
  auto s =
      make(api, "elementwise", {kernels::engine_elementwise_cl, SPIRV(engine_elementwise_comp)}, 1,
           sizeof(ElementwiseParams), kSimpleWorkgroup, false);
  if (!s) return s;
  s->constants = {{"OP", static_cast<int64_t>(op)}};
  return s;
}

core::Result<KernelSource> add_bias_source(core::Api api) {
  return make(api, "add_bias", {kernels::engine_add_bias_cl, SPIRV(engine_add_bias_comp)}, 2,
              sizeof(BiasParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> expert_route_source(core::Api api) {
  return make(api, "expert_route",
              {kernels::engine_expert_route_cl, SPIRV(engine_expert_route_comp)}, 2,
              sizeof(RouteParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> expert_group_source(core::Api api) {
  return make(api, "expert_group",
              {kernels::engine_expert_group_cl, SPIRV(engine_expert_group_comp)}, 1,
              sizeof(GroupParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> expert_combine_source(core::Api api) {
  return make(api, "expert_combine",
              {kernels::engine_expert_combine_cl, SPIRV(engine_expert_combine_comp)}, 2,
              sizeof(CombineParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> ssm_conv_source(core::Api api) {
  return make(api, "ssm_conv", {kernels::engine_ssm_conv_cl, SPIRV(engine_ssm_conv_comp)}, 5,
              sizeof(SsmConvParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> ssm_scan_source(core::Api api) {
  return make(api, "ssm_scan", {kernels::engine_ssm_scan_cl, SPIRV(engine_ssm_scan_comp)}, 6,
              sizeof(SsmScanParams), kSimpleWorkgroup, false);
}

core::Result<KernelSource> delta_net_source(core::Api api, uint32_t state, uint32_t workgroup) {
  if (!is_pow2(workgroup) || workgroup > 1024 || state == 0 || state > model::kMaxSsmState) {
    return core::make_error(core::ErrorKind::invalid_argument,
                            "delta_net: a power-of-two workgroup up to 1024 and a state of 1.." +
                                std::to_string(model::kMaxSsmState));
  }
  auto s = make(api, "delta_net", {kernels::engine_delta_net_cl, SPIRV(engine_delta_net_comp)}, 5,
                sizeof(DeltaNetParams), workgroup, false);
  if (!s) return s;
  // Vulkan numbers the constants in this order from 3 (engine_delta_net.comp).
  s->constants = {{"STATE", state}, {"RED", workgroup}};
  return s;
}

core::Result<KernelSource> query_gate_source(core::Api api, QueryGate mode) {
  auto s = make(api, "query_gate", {kernels::engine_query_gate_cl, SPIRV(engine_query_gate_comp)},
                1, sizeof(QueryGateParams), kSimpleWorkgroup, false);
  if (!s) return s;
  s->constants = {{"MODE", static_cast<int64_t>(mode)}};
  return s;
}

core::Result<backends::Kernel*> KernelCache::get(const KernelSource& source) {
  std::string key = source.name;
  for (const auto& c : source.constants) key += "," + c.name + "=" + std::to_string(c.value);
  key += ",wg=" + std::to_string(source.workgroup[0]);
  auto it = kernels_.find(key);
  if (it != kernels_.end()) return it->second.get();
  auto built = device_.build(source);
  if (!built) return built.error();
  auto* raw = built->get();
  kernels_.emplace(key, std::move(*built));
  return raw;
}

}  // namespace gauntlet::engine::device
