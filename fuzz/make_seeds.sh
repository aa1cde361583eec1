#!/usr/bin/env bash
# Writes the fuzz targets' seed corpora from files gauntlet itself writes: synthetic GGUF models
# (every tensor type the engine runs, several architectures, mixtures of experts), a report and a journal of a short
# `gauntlet run` on the host, the shipped --simulate presets, and the signals tests' gpu_metrics
# files and kernel log (tests/signals/fixtures).
# Usage: make_seeds.sh GAUNTLET_EXE SOURCE_DIR OUT_DIR
set -euo pipefail
exe=$1 src=$2 out=$3
if [ ! -x "$exe" ]; then
  echo "make_seeds: no gauntlet binary at $exe: build the ci preset first (ci/test.sh does)" >&2
  exit 1
fi
rm -rf "$out"
mkdir -p "$out/gguf" "$out/report" "$out/journal" "$out/simulate" "$out/gpu_metrics" "$out/kmsg"
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT

micro="n_embd=32,n_layer=1,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=16"
wide="n_embd=256,n_layer=1,n_head=2,n_head_kv=1,n_ff=256,n_vocab=48,context=16"
make_model() {  # name dims format
  "$exe" model make --dims "$2" --format "$3" -o "$out/gguf/$1.gguf" >/dev/null
}
for f in F32 F16 BF16 Q8_0 Q5_1 Q5_0 Q4_1 Q4_0; do make_model "llama-$f" "$micro" "$f"; done
for f in Q6_K Q5_K_S Q4_K_M; do make_model "llama-$f" "$wide" "$f"; done
make_model qwen2-Q8_0 "arch=qwen2,$micro" Q8_0
make_model qwen3-F16 "arch=qwen3,$micro" F16
make_model phi3-Q4_0 "arch=phi3,$micro" Q4_0
make_model gemma3-Q8_0 "arch=gemma3,$micro" Q8_0
for f in Q3_K_M Q2_K IQ4_XS IQ4_NL; do make_model "llama-$f" "$wide" "$f"; done
# Mixtures of experts: 3-D expert stacks, the router, qwen2moe's shared expert.
experts="n_expert=4,n_expert_used=2,n_ff_exp=32"
make_model qwen3moe-Q8_0 "arch=qwen3moe,$micro,$experts" Q8_0
make_model qwen2moe-F16 "arch=qwen2moe,$micro,$experts,n_ff_shexp=64" F16
make_model mixtral-Q4_0 "arch=llama,$micro,n_expert=4,n_expert_used=2" Q4_0
make_model qwen3moe-MXFP4_MOE "arch=qwen3moe,$micro,$experts" MXFP4_MOE
# gpt-oss: biases, sinks, expert bias rows, YaRN metadata.
make_model gpt-oss-MXFP4_MOE "arch=gpt-oss,$micro,$experts,window=4,yarn_factor=4,yarn_orig_ctx=8" MXFP4_MOE
# A gated-DeltaNet hybrid: ssm.* keys, rope.dimension_sections (an i32 array), the recurrent
# layers' tensors beside one attention layer.
make_model qwen35-Q8_0 "arch=qwen35,n_embd=32,n_layer=4,n_head=2,n_head_kv=1,head_dim=16,rope_dim=8,n_ff=64,n_vocab=48,context=16,ssm_state=16,ssm_groups=1,ssm_heads=2,ssm_inner=32" Q8_0
# gemma4: per-layer arrays (the sliding pattern, head counts), rope_freqs, layer_output_scale.
make_model gemma4-Q8_0 "arch=gemma4,n_embd=32,n_layer=2,n_head=2,n_head_kv=1,head_dim=32,head_dim_swa=16,n_ff=64,n_vocab=48,context=16,swa_pattern=2" Q8_0
# lfm2: a short-convolution layer (head_count_kv 0 in its array) beside an attention layer.
make_model lfm2-Q8_0 "arch=lfm2,$micro,n_layer=2,attn_layers=1" Q8_0
# lfm2moe: a leading dense layer, then sigmoid-routed experts with their selection bias.
make_model lfm2moe-Q8_0 "arch=lfm2moe,$micro,n_layer=2,attn_layers=1,dense_lead=1,$experts" Q8_0
# mistral3: YaRN's own keys and the attention temperature.
make_model mistral3-F16 "arch=mistral3,$micro,yarn_factor=4,yarn_orig_ctx=8,yarn_log_mul=1,attn_temp_scale=0.1" F16
# laguna: head_count one per layer, the sliding layers' RoPE keys, attn_gate, exp_probs_b.
make_model laguna-Q8_0 "arch=laguna,$micro,n_layer=2,n_head_swa=4,window=4,rope_dim_swa=16,dense_lead=1,$experts,n_ff_shexp=32,expert_norm=1,expert_scale=2.5,yarn_factor=4,yarn_orig_ctx=8" Q8_0
# granite (Granite 3.x): its multipliers and rope.scaling.finetuned on attention layers alone.
make_model granite-Q8_0 "arch=granite,$micro,embedding_scale=12,residual_scale=0.22,attention_scale=0.0078125,logit_scale=16" Q8_0
# The Mamba2 hybrids: ssm.* keys, per-layer head_count_kv and feed_forward_length arrays, ssm_a and
# ssm_d without a "weight" suffix, the grouped norm's 2-D weight; nemotron_h_moe's bool
# expert_weights_norm; granitehybrid's multipliers and rope.scaling.finetuned.
mamba="n_embd=32,n_head=2,n_head_kv=1,n_ff=64,n_vocab=48,context=16,ssm_groups=1"
make_model nemotron_h-Q8_0 "arch=nemotron_h,$mamba,n_layer=3,layers=M*-" Q8_0
make_model nemotron_h_moe-Q8_0 "arch=nemotron_h_moe,$mamba,n_layer=3,layers=M*E,$experts,n_ff_shexp=64,expert_norm=1,expert_scale=2.5" Q8_0
make_model granitehybrid-F16 "arch=granitehybrid,$mamba,n_layer=2,layers=M*,rope=0,embedding_scale=2,residual_scale=0.5,attention_scale=0.25,logit_scale=3" F16

# A run on the host: its journal is copied while the run goes (it is removed once the report
# is written), then the report.
GAUNTLET_CACHE_DIR="$work/cache" "$exe" run --device host --shape "${micro/context=16/context=64}" --level quick \
  --out "$work/report.json" --quiet >/dev/null 2>&1 &
run=$!
while kill -0 "$run" 2>/dev/null; do
  # The run may remove the journal between the test and the copy: a failed copy keeps the last.
  if [ -s "$work/report.json.journal" ] &&
    cp "$work/report.json.journal" "$work/journal.part" 2>/dev/null; then
    mv "$work/journal.part" "$work/journal"
  fi
  sleep 0.05
done
if ! wait "$run"; then
  echo "make_seeds: the host run failed (exit $?); run it by hand to see why" >&2
  exit 1
fi
cp "$work/report.json" "$out/report/host-quick.json"
if [ ! -s "$work/journal" ]; then
  echo "make_seeds: the run's journal was never seen" >&2
  exit 1
fi
cp "$work/journal" "$out/journal/host-quick.journal"

cp "$src"/harness/presets/*.json "$out/simulate/"
cp "$src"/tests/signals/fixtures/gpu_metrics/*.bin "$out/gpu_metrics/"
cp "$src"/tests/signals/fixtures/kmsg/records.txt "$out/kmsg/"
echo "make_seeds: $(find "$out" -type f | wc -l) seeds in $out"
