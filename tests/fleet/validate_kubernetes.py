"""Validates Kubernetes objects and node-problem-detector plugin configs offline, against published
schemas, and checks that each schema can fail.

  validate_kubernetes.py [--node-condition FILE]... [--npd-config FILE]... MANIFEST...

- A stable kind (core, apps, batch, rbac) is checked against the types of Debian's
  python3-kubernetes, the official client generated from Kubernetes' published OpenAPI spec: every
  key must be a field of its type (the client alone drops an unknown key), every value of the
  field's type, every required field present (the client's own client-side validation).
- resource.k8s.io/v1beta2 DeviceTaintRule, newer than Debian's client, is checked with
  python3-jsonschema against schemas/devicetaintrule-resource-v1beta2.json (its $comment says
  where it was published).
- A node-problem-detector custom plugin config (a file, or a ConfigMap's *.json entry that names
  the "custom" plugin) is checked against schemas/npd-custom-plugin-monitor.schema.json and the
  rules of NPD's CustomPluginConfig.Validate().
- A manifest is YAML or JSON, one or more documents; a List is checked item by item.

Each object that passes is changed once at its top and once inside (an unknown key added) and
must then fail, so a validator that accepts anything fails this script. Exit 0 when every object
passes and every changed copy fails; 1 otherwise, with each reason printed.
"""
import argparse
import copy
import json
import os
import re
import sys

import jsonschema
import kubernetes.client
import yaml
from dateutil import parser as dateparser

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "schemas")
API = kubernetes.client.ApiClient()
UNKNOWN_KEY = "gauntletUnknownKey"


def load_schema(name):
    with open(os.path.join(SCHEMAS, name)) as f:
        return json.load(f)


DEVICE_TAINT_RULE = load_schema("devicetaintrule-resource-v1beta2.json")
NPD_CONFIG = load_schema("npd-custom-plugin-monitor.schema.json")
# The schema's description of taint.effect, which the published schema does not enumerate.
DEVICE_TAINT_EFFECTS = {"None", "NoSchedule", "NoExecute"}
PRIMITIVES = {
    "str": (str,), "int": (int,), "float": (int, float), "bool": (bool,), "object": (object,),
}


def client_type_errors(value, type_name, path):
    """Every key a field of its type and every value of the field's type, as the client knows them."""
    if value is None:
        return []
    if type_name.startswith("list["):
        if not isinstance(value, list):
            return [f"{path}: expected a list, got {type(value).__name__}"]
        return [e for i, v in enumerate(value)
                for e in client_type_errors(v, type_name[5:-1], f"{path}[{i}]")]
    if type_name.startswith("dict("):
        if not isinstance(value, dict):
            return [f"{path}: expected a map, got {type(value).__name__}"]
        inner = re.match(r"dict\([^,]*, (.*)\)$", type_name).group(1)
        return [e for k, v in value.items() for e in client_type_errors(v, inner, f"{path}.{k}")]
    if type_name in ("datetime", "date"):
        try:
            dateparser.isoparse(value)
            return []
        except (TypeError, ValueError):
            return [f"{path}: {value!r} is not an RFC 3339 time"]
    if type_name in PRIMITIVES:
        ok = isinstance(value, PRIMITIVES[type_name]) and not (
            type_name in ("int", "float") and isinstance(value, bool))
        return [] if ok else [f"{path}: expected {type_name}, got {type(value).__name__}"]
    model = getattr(kubernetes.client, type_name)
    if not isinstance(value, dict):
        return [f"{path}: expected a {type_name} object, got {type(value).__name__}"]
    fields = {key: attr for attr, key in model.attribute_map.items()}
    errors = []
    for key, v in value.items():
        if key not in fields:
            errors.append(f"{path}.{key}: not a field of {type_name}")
        else:
            errors += client_type_errors(v, model.openapi_types[fields[key]], f"{path}.{key}")
    return errors


def client_errors(obj, type_name):
    errors = client_type_errors(obj, type_name, type_name)
    if not errors:
        try:  # the client's required fields and value checks
            API._ApiClient__deserialize(obj, type_name)
        except (ValueError, TypeError) as e:
            errors.append(f"{type_name}: {e}")
    return errors


def schema_errors(obj, schema):
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'.'.join(map(str, e.absolute_path)) or '(top)'}: {e.message}"
            for e in validator.iter_errors(obj)]


def go_duration_seconds(text):
    units = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    return sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+)(ns|us|µs|ms|s|m|h)", text))


def npd_config_errors(config):
    """The schema, then CustomPluginConfig.ApplyConfiguration's defaults and Validate()'s rules."""
    errors = schema_errors(config, NPD_CONFIG)
    if errors:
        return errors
    if config.get("plugin") != "custom":
        errors.append(f"plugin {config.get('plugin')!r}: NPD supports only \"custom\"")
    global_config = config.get("pluginConfig", {})
    interval = go_duration_seconds(global_config.get("invoke_interval", "30s"))
    timeout = go_duration_seconds(global_config.get("timeout", "5s"))
    if interval <= 0:
        errors.append("pluginConfig.invoke_interval must be greater than zero")
    conditions = {c.get("type") for c in config.get("conditions") or []}
    for i, rule in enumerate(config.get("rules") or []):
        if "invoke_interval" in rule and go_duration_seconds(rule["invoke_interval"]) <= 0:
            errors.append(f"rules[{i}].invoke_interval must be greater than zero")
        if rule.get("timeout") and go_duration_seconds(rule["timeout"]) > timeout:
            errors.append(f"rules[{i}].timeout {rule['timeout']} is greater than the global timeout")
        if rule.get("type") == "permanent" and rule.get("condition") not in conditions:
            errors.append(f"rules[{i}]: permanent problem {rule.get('condition')!r} has no default "
                          "condition")
        if not os.path.isabs(rule.get("path", "")):
            errors.append(f"rules[{i}].path {rule.get('path')!r} is not absolute")
    return errors


def object_errors(obj):
    api_version, kind = obj.get("apiVersion", ""), obj.get("kind", "")
    if (api_version, kind) == ("resource.k8s.io/v1beta2", "DeviceTaintRule"):
        errors = schema_errors(obj, DEVICE_TAINT_RULE)
        effect = obj.get("spec", {}).get("taint", {}).get("effect")
        if not errors and effect not in DEVICE_TAINT_EFFECTS:
            errors.append(f"spec.taint.effect {effect!r} is not one of {sorted(DEVICE_TAINT_EFFECTS)}")
        return errors, "schemas/devicetaintrule-resource-v1beta2.json"
    version = api_version.split("/")[-1]
    type_name = version[:1].upper() + version[1:] + kind
    if not hasattr(kubernetes.client, type_name):
        return [f"{api_version} {kind}: no published schema here to check it against"], None
    return client_errors(obj, type_name), f"python3-kubernetes {kubernetes.__version__} {type_name}"


def with_unknown_keys(obj):
    """Two changed copies: an unknown key at the top, and one in the first object inside."""
    top = copy.deepcopy(obj)
    top[UNKNOWN_KEY] = 1
    inside = copy.deepcopy(obj)
    stack = [v for v in inside.values() if isinstance(v, (dict, list))]
    while stack:
        v = stack.pop(0)
        if isinstance(v, dict) and v:
            v[UNKNOWN_KEY] = 1
            return [top, inside]
        stack += [x for x in (v.values() if isinstance(v, dict) else v) if isinstance(x, (dict, list))]
    return [top]


class Checker:
    def __init__(self):
        self.failures = 0

    def check(self, name, errors_of, obj, how):
        errors = errors_of(obj)
        if errors:
            self.failures += 1
            print(f"FAIL {name}:")
            for e in errors:
                print(f"       {e}")
            return
        print(f"ok   {name} ({how})")
        for changed in with_unknown_keys(obj):
            if not errors_of(changed):
                self.failures += 1
                print(f"FAIL {name}: a copy with an unknown key added also passes")

    def manifest_object(self, source, obj):
        if obj.get("kind") == "List":
            for item in obj.get("items", []):
                self.manifest_object(source, item)
            return
        meta = obj.get("metadata", {})
        name = f"{source}: {obj.get('kind')} {meta.get('namespace', '')}/{meta.get('name', '')}"
        _, how = object_errors(obj)
        self.check(name, lambda o: object_errors(o)[0], obj, how)
        if obj.get("kind") == "ConfigMap":
            for key, text in (obj.get("data") or {}).items():
                config = json.loads(text) if key.endswith(".json") else None
                if isinstance(config, dict) and config.get("plugin") == "custom":
                    self.npd_config(f"{name} {key}", config)

    def npd_config(self, name, config):
        self.check(name, npd_config_errors, config, "node-problem-detector custom plugin config")


def documents(path):
    """The file's objects; a file that does not read or parse is a failure named, not a crash."""
    try:
        with open(path) as f:
            text = f.read()
        if path.endswith(".json"):
            return [json.loads(text)]
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except (OSError, ValueError, yaml.YAMLError) as e:
        raise SystemExit(f"FAIL {path}: does not read: {e}\nFAIL")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--node-condition", action="append", default=[])
    parser.add_argument("--npd-config", action="append", default=[])
    parser.add_argument("manifests", nargs="*")
    args = parser.parse_args()
    checker = Checker()
    for path in args.node_condition:
        checker.check(f"{path}: NodeCondition", lambda o: client_errors(o, "V1NodeCondition"),
                      documents(path)[0], f"python3-kubernetes {kubernetes.__version__} V1NodeCondition")
    for path in args.npd_config:
        checker.npd_config(path, documents(path)[0])
    for path in args.manifests:
        for obj in documents(path):
            checker.manifest_object(path, obj)
    print("FAIL" if checker.failures else "PASS")
    return 1 if checker.failures else 0


if __name__ == "__main__":
    sys.exit(main())
