#!/usr/bin/env python3
"""Validates JSON files against a JSON Schema with python3-jsonschema (Debian package).

usage: validate_schema.py SCHEMA FILE...
Exit 0 when every file is valid; 1 with one line per error (file, path, message); 3 when the
jsonschema module is missing, so that a test fails instead of passing without a check.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is not installed (apt-get install python3-jsonschema)")
    sys.exit(3)


def leaves(error):
    """The errors inside an anyOf that say what is wrong: those of the alternatives whose type
    matched (a null-or-object field holding a broken object reports the object's errors)."""
    if not error.context:
        return [error]
    inner = [e for e in error.context if e.validator != "type"] or list(error.context)
    found = []
    for e in inner:
        found.extend(leaves(e))
    return found


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    failed = False
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        for error in sorted(validator.iter_errors(document), key=lambda e: list(e.path)):
            failed = True
            for leaf in leaves(error):
                where = "/" + "/".join(str(p) for p in leaf.absolute_path)
                message = leaf.message if len(leaf.message) < 300 else leaf.message[:300] + "..."
                print(f"{path}: {where}: {message}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
