#!/usr/bin/env bash
# The Kubernetes recipe's manifests, with Debian's kubectl.
#   kubernetes_test.sh parse DIR     kubectl reads every manifest into typed objects without a
#                                    cluster (--local), and the objects are what the recipe says:
#                                    a ReadWriteMany claim, an Indexed Job of one pod per GPU node
#                                    asking for a device-plugin GPU, and a merge Job on that claim
#   kubernetes_test.sh dry-run DIR   `kubectl apply --dry-run=client` on every manifest. kubectl
#                                    needs an API server's discovery even for a client-side dry
#                                    run, and Debian 12 ships no API server: without one (no
#                                    kubeconfig, or none that answers) this fails and says so.
set -euo pipefail
mode=$1 dir=$2
fail() { echo "FAIL: $*"; exit 1; }
command -v kubectl >/dev/null || fail "kubectl is not installed (ci/install-deps.sh installs kubernetes-client)"

if [ "$mode" = dry-run ]; then
  for manifest in "$dir"/*.yaml; do
    out=$(kubectl apply --dry-run=client -f "$manifest" 2>&1) ||
      fail "kubectl apply --dry-run=client -f $manifest: $out"
    echo "$out"
  done
  echo "PASS"
  exit 0
fi

objects=$(for manifest in "$dir"/*.yaml; do
  kubectl label --local -o json -f "$manifest" gauntlet/checked=true ||
    fail "kubectl could not read $manifest"
done)
OBJECTS=$objects python3 - <<'PY' || exit 1
import json
import os
text = os.environ["OBJECTS"]
decoder, objects, i = json.JSONDecoder(), [], 0
while i < len(text):
    while i < len(text) and text[i].isspace():
        i += 1
    if i == len(text):
        break
    obj, i = decoder.raw_decode(text, i)
    objects.extend(obj["items"] if obj.get("kind") == "List" else [obj])
kinds = {o["metadata"]["name"]: o["kind"] for o in objects}
print("objects:", kinds)
assert kinds == {"gauntlet-reports": "PersistentVolumeClaim", "gauntlet-run": "Job",
                 "gauntlet-merge": "Job"}, kinds
by_name = {o["metadata"]["name"]: o for o in objects}
assert by_name["gauntlet-reports"]["spec"]["accessModes"] == ["ReadWriteMany"]
run = by_name["gauntlet-run"]["spec"]
assert run["completionMode"] == "Indexed" and run["completions"] == run["parallelism"], run
pod = run["template"]["spec"]
spread = pod["topologySpreadConstraints"][0]
assert spread["topologyKey"] == "kubernetes.io/hostname" and spread["maxSkew"] == 1
container = pod["containers"][0]
assert "nvidia.com/gpu" in container["resources"]["limits"], container["resources"]
for job in ("gauntlet-run", "gauntlet-merge"):
    volumes = by_name[job]["spec"]["template"]["spec"]["volumes"]
    assert volumes[0]["persistentVolumeClaim"]["claimName"] == "gauntlet-reports", volumes
PY
echo "PASS"
