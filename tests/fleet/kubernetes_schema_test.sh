#!/usr/bin/env bash
# The Kubernetes objects gauntlet writes and ships, validated offline against published schemas
# (validate_kubernetes.py says which): `gauntlet health --format node-condition` with no baseline
# (a warning) and on a wrong decode, `--format device-taint` on a wrong decode, every manifest under
# recipes/kubernetes (the fleet Jobs, node-problem-detector's DaemonSet, its ConfigMap and the
# plugin config inside it) and the plugin config file. Then objects that break the schemas must
# be refused, and the DaemonSet's plugin must run the same gauntlet command as the plugin file.
#   kubernetes_schema_test.sh GAUNTLET SOURCE_DIR WORK_DIR
set -euo pipefail
gauntlet=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
# Debian's python3-kubernetes and python3-jsonschema belong to Debian's python3.
python=/usr/bin/python3
validate="$python $src/tests/fleet/validate_kubernetes.py"
recipes=$src/recipes/kubernetes

rm -rf "$work"
mkdir -p "$work/sys"
trap 'rm -rf "$work"' EXIT
: >"$work/kmsg"
health() {
  local expected=$1
  shift
  local rc=0
  env GAUNTLET_STATE_DIR="$work/state" GAUNTLET_SYSFS_ROOT="$work/sys" GAUNTLET_KMSG="$work/kmsg" \
    "$gauntlet" health --device host "$@" >"$work/stdout" || rc=$?
  [ "$rc" -eq "$expected" ] || fail "gauntlet health $* exited $rc, not $expected: $(cat "$work/stdout")"
  head -1 "$work/stdout"
}

health 0 --format node-condition --out "$work/condition-warning.json"
GAUNTLET_TEST_FAULT=health.decode=wrong \
  health 1 --format node-condition --out "$work/condition-critical.json"
GAUNTLET_TEST_FAULT=health.decode=wrong \
  health 1 --format device-taint --dra-driver gpu.example.com --out "$work/taints.json"

$validate --node-condition "$work/condition-warning.json" \
  --node-condition "$work/condition-critical.json" \
  --npd-config "$recipes/node-problem-detector/gauntlet-health.json" \
  "$work/taints.json" "$recipes"/*.yaml "$recipes"/node-problem-detector/*.yaml

# What the schemas refuse.
# Refused means the validator's own verdict naming the fault (`expect`), not any non-zero exit: a
# validator that crashed would exit non-zero too.
refused() {
  local name=$1 flag=$2 text=$3 expect=$4
  printf '%s\n' "$text" >"$work/bad.json"
  if out=$($validate $flag "$work/bad.json" 2>&1); then fail "$name passed: $out"; fi
  grep -q '^FAIL$' <<<"$out" && grep -qF -- "$expect" <<<"$out" ||
    fail "$name: not refused for '$expect': $out"
  echo "refused: $name: $(echo "$out" | sed -n 2p | sed 's/^ *//')"
}
taint_rule() {
  printf '{"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule",
   "metadata": {"name": "r"}, "spec": {"deviceSelector": {"device": "d"}, "taint": %s}}' "$1"
}
refused "a DeviceTaintRule without a taint key" "" "$(taint_rule '{"effect": "NoSchedule"}')" \
  "'key' is a required property"
refused "a DeviceTaintRule with an effect Kubernetes does not have" "" \
  "$(taint_rule '{"key": "k", "effect": "PreferNoSchedule"}')" "'PreferNoSchedule' is not one of"
refused "a NodeCondition without a status" --node-condition '{"type": "GauntletHealthProblem"}' \
  "Invalid value for \`status\`"
refused "a NodeCondition whose heartbeat is not a time" --node-condition \
  '{"type": "GauntletHealthProblem", "status": "True", "lastHeartbeatTime": "yesterday"}' \
  "'yesterday' is not an RFC 3339 time"
refused "a plugin rule whose timeout exceeds the plugin's" --npd-config \
  '{"plugin": "custom", "pluginConfig": {"timeout": "30s"}, "source": "s", "conditions": [],
    "rules": [{"type": "temporary", "reason": "r", "path": "/bin/true", "timeout": "60s"}]}' \
  "timeout 60s is greater than the global timeout"
refused "a plugin rule of an unknown type" --npd-config \
  '{"plugin": "custom", "source": "s", "conditions": [],
    "rules": [{"type": "sometimes", "reason": "r", "path": "/bin/true"}]}' \
  "'sometimes' is not one of"
refused "a DaemonSet without a selector" "" \
  '{"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "d"},
    "spec": {"template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}}' \
  "Invalid value for \`selector\`"

# The verdicts the objects carry.
$python - "$work" <<'PY'
import json, sys
work = sys.argv[1]
load = lambda name: json.load(open(f"{work}/{name}"))
warning, critical = load("condition-warning.json"), load("condition-critical.json")
assert (warning["status"], warning["reason"]) == ("False", "GauntletWarning"), warning
assert warning["message"].startswith("gauntlet: no baseline at "), warning["message"]
assert (critical["status"], critical["reason"]) == ("True", "GauntletCritical"), critical
assert critical["message"].startswith("gauntlet: host decode wrong"), critical["message"]
rules = load("taints.json")["items"]
assert [r["spec"]["taint"]["effect"] for r in rules] == ["NoSchedule"], rules
selector = rules[0]["spec"]["deviceSelector"]
assert set(selector) == {"driver", "pool", "device"}, selector
assert (selector["driver"], selector["device"]) == ("gpu.example.com", "host"), selector
assert selector["pool"], selector  # the node's name
print("verdicts: condition", warning["status"], "then", critical["status"], "; taint",
      rules[0]["spec"]["taint"]["effect"])
PY

# The DaemonSet's plugin runs the plugin file's gauntlet command through a chroot of the host.
$python - "$recipes/node-problem-detector" <<'PY'
import json, sys, yaml
folder = sys.argv[1]
plain = json.load(open(f"{folder}/gauntlet-health.json"))
docs = list(yaml.safe_load_all(open(f"{folder}/gauntlet-health-daemonset.yaml")))
config_map = next(d for d in docs if d["kind"] == "ConfigMap")
daemon_set = next(d for d in docs if d["kind"] == "DaemonSet")
in_cluster = json.loads(config_map["data"]["gauntlet-health.json"])
file_rule, cluster_rule = plain["rules"][0], in_cluster["rules"][0]
assert cluster_rule["path"] == "/usr/sbin/chroot", cluster_rule
assert cluster_rule["args"] == ["/host", file_rule["path"]] + file_rule["args"], cluster_rule
strip = lambda c: {k: v for k, v in c.items() if k != "rules"}
assert strip(plain) == strip(in_cluster), "the two plugin configs differ outside their rule"
assert {k: v for k, v in file_rule.items() if k not in ("path", "args")} == \
       {k: v for k, v in cluster_rule.items() if k not in ("path", "args")}
container = daemon_set["spec"]["template"]["spec"]["containers"][0]
assert "--config.custom-plugin-monitor=/config/gauntlet-health.json" in container["command"]
host = next(v for v in daemon_set["spec"]["template"]["spec"]["volumes"] if v["name"] == "host")
assert host["hostPath"]["path"] == "/", host
print("the DaemonSet's plugin runs:", " ".join([cluster_rule["path"]] + cluster_rule["args"]))
PY
echo "PASS"
