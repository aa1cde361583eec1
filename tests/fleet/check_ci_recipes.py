#!/usr/bin/env python3
"""Checks the CI and cluster recipes' YAML files: yamllint passes on each, and every `gauntlet`
command line in them names real subcommands and flags (those its `--help` lists) and is accepted
by the binary when run with `--help` appended (CLI11 then checks the values it can, such as
--level, before printing the help).

usage: check_ci_recipes.py GAUNTLET_BINARY YAMLLINT_CONFIG FILE...
"""
import re
import shlex
import subprocess
import sys

import yaml

SEPARATORS = {";", "&&", "||", "|", "&", "(", ")", ">", ">>", "<", "2>", "2>&1"}


def variables(node, found):
    """Variables the files set: GitHub's env, GitLab's variables, a container's env list."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("env", "variables") and isinstance(value, dict):
                found.update({k: str(v) for k, v in value.items()})
            if key == "env" and isinstance(value, list):
                found.update({e["name"]: str(e["value"]) for e in value if "value" in e})
            variables(value, found)
    elif isinstance(node, list):
        for item in node:
            variables(item, found)


SHELL_KEYS = {"run", "script", "before_script", "after_script", "command", "args"}


def scripts(node, shell=False):
    """The shell text of the files: GitHub's run, GitLab's script, a container's command/args."""
    if isinstance(node, str):
        if shell:
            yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from scripts(value, key in SHELL_KEYS)
    elif isinstance(node, list):
        for item in node:
            yield from scripts(item, shell)


def expand(text, env):
    text = re.sub(r"\$\{\{[^}]*\}\}", "X", text)  # GitHub expressions
    text = re.sub(r"\$\([A-Za-z_][A-Za-z0-9_]*\)", "X", text)  # Kubernetes $(VAR)
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), "X"), text)


def gauntlet_commands(text, env):
    """Each `gauntlet ...` command of a shell script: its arguments, up to the next operator."""
    text = text.replace("\\\n", " ")
    for line in text.splitlines():
        lexer = shlex.shlex(expand(line, env), posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        tokens = list(lexer)
        for i, token in enumerate(tokens):
            if token == "gauntlet" and (i == 0 or tokens[i - 1] in SEPARATORS):
                args = []
                for t in tokens[i + 1:]:
                    if t in SEPARATORS:
                        break
                    args.append(t)
                yield args


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True, check=False)


def subcommands(help_text):
    section = help_text.split("SUBCOMMANDS:" if "SUBCOMMANDS:" in help_text else "Subcommands:")
    if len(section) < 2:
        return set()
    return {m.group(1) for m in re.finditer(r"^\s{2}(\S+)", section[1], re.M)}


def check_command(binary, args, where):
    """Returns the problems of one command line."""
    path, rest = [], list(args)
    help_text = run([binary, "--help"]).stdout
    while rest and not rest[0].startswith("-") and rest[0] in subcommands(help_text):
        path.append(rest.pop(0))
        help_text = run([binary, *path, "--help"]).stdout
    if not path:
        return [f"{where}: `gauntlet {' '.join(args)}` names no gauntlet subcommand"]
    problems = []
    for token in rest:
        if token.startswith("-") and token != "-":
            flag = token.split("=", 1)[0]
            if not re.search(r"(?<![\w-])" + re.escape(flag) + r"(?![\w-])", help_text):
                problems.append(f"{where}: `gauntlet {' '.join(path)}` has no flag {flag}")
    result = run([binary, *args, "--help"])
    if result.returncode != 0:
        problems.append(f"{where}: `gauntlet {' '.join(args)} --help` exited "
                        f"{result.returncode}: {(result.stdout + result.stderr).strip()}")
    return problems


def main(argv):
    binary, config, files = argv[1], argv[2], argv[3:]
    lint = run(["yamllint", "--strict", "-c", config, *files])
    problems = [lint.stdout.strip()] if lint.returncode != 0 else []
    checked = 0
    for file in files:
        with open(file, encoding="utf-8") as f:
            documents = [d for d in yaml.safe_load_all(f) if d is not None]
        env = {}
        for document in documents:
            variables(document, env)
        for document in documents:
            for text in scripts(document):
                for args in gauntlet_commands(text, env):
                    checked += 1
                    problems.extend(check_command(binary, args, file))
    for p in problems:
        print("FAIL:", p)
    print(f"{len(files)} file(s) linted, {checked} gauntlet command line(s) checked")
    if checked == 0:
        print("FAIL: no gauntlet command line found")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
