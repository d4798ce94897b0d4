#!/usr/bin/env python3
"""Counts the public declarations whose doc comment is missing or incomplete, per module.

Reads the symbol graphs `swift package dump-symbol-graph` wrote (the directory is the first argument) and
checks every public declaration whose source is in `Sources/<Module>/`:
- it has a doc comment of its own, whose first line is a summary (a declaration that implements another
  module's protocol requirement and has none inherits that requirement's comment, and passes);
- a function, method, initializer, subscript or operator names each of its parameters under
  `- Parameters:` (or `- Parameter name:`), has `- Returns:` when it returns a value (initializers
  aside), and `- Throws:` when it throws (`rethrows` aside).
Prints a line per module ("RippleBlueZ: 1405 public declarations, 12 incomplete"), with `--list` each
incomplete declaration (file:line, name, what is missing); exits 1 when a module named by `--gate` has
any. Called by Scripts/check-doc-comments.
"""

import argparse
import json
import os
import re
import sys
from collections import defaultdict

FUNCTION_KINDS = {
    "swift.func",
    "swift.method",
    "swift.type.method",
    "swift.func.op",
    "swift.init",
    "swift.subscript",
    "swift.type.subscript",
}
NAMED_PARAMETER = re.compile(r"^\s*-\s*(?:[Pp]arameter\s+)?`?([A-Za-z_][A-Za-z0-9_]*)`?\s*:")


def text(fragments):
    return "".join(fragment["spelling"] for fragment in fragments or [])


def throws(symbol):
    """Whether the declaration itself throws (a `throws` outside its parentheses: not a closure parameter's)."""
    depth = 0
    for fragment in symbol.get("declarationFragments", []):
        if fragment["kind"] == "keyword" and fragment["spelling"] == "throws" and depth == 0:
            return True
        if fragment["kind"] == "text":
            depth += fragment["spelling"].count("(") - fragment["spelling"].count(")")
    return False


def problems(symbol, module):
    """What the declaration's doc comment lacks (empty when complete); None when it is not checked."""
    comment = symbol.get("docComment")
    if comment is None:
        return ["no doc comment"]
    if comment.get("module") not in (None, module):
        return []  # Another module's protocol requirement documents it.
    lines = [line["text"] for line in comment.get("lines", [])]
    while lines and not lines[0].strip():
        lines.pop(0)
    if not lines or lines[0].lstrip().startswith("- "):
        return ["no summary"]
    kind = symbol["kind"]["identifier"]
    if kind not in FUNCTION_KINDS:
        return []
    missing = []
    signature = symbol.get("functionSignature") or {}
    documented = {match.group(1) for line in lines if (match := NAMED_PARAMETER.match(line))}
    # A parameter is named by its internal name, as DocC expects (its argument label is accepted too).
    undocumented = [
        parameter.get("internalName", parameter["name"])
        for parameter in signature.get("parameters", [])
        if parameter.get("internalName", parameter["name"]) not in documented and parameter["name"] not in documented
    ]
    if undocumented:
        missing.append("- Parameters: " + ", ".join(undocumented))
    returns = text(signature.get("returns")).strip()
    has = lambda section: any(line.lstrip().startswith(section) for line in lines)
    if kind != "swift.init" and returns not in ("", "()", "Void") and not has("- Returns:"):
        missing.append("- Returns:")
    if throws(symbol) and not has("- Throws:"):
        missing.append("- Throws:")
    return missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graphs", help="the directory of the symbol graphs")
    parser.add_argument("sources", help="the package's Sources directory")
    parser.add_argument("modules", nargs="*", help="the modules to count (default: every one in Sources)")
    parser.add_argument("--list", action="store_true", help="list each incomplete declaration")
    parser.add_argument("--gate", default="", help="comma-separated modules that must have none")
    arguments = parser.parse_intermixed_args()
    sources = os.path.realpath(arguments.sources)
    modules = arguments.modules or sorted(
        name for name in os.listdir(sources) if os.path.isdir(os.path.join(sources, name)))
    gate = {name for name in arguments.gate.split(",") if name}
    failed = False
    graphs = os.listdir(arguments.graphs)
    for module in modules:
        if f"{module}.symbols.json" not in graphs:
            continue  # A C module, or one the graphs were not built for.
        folder = os.path.join(sources, module) + os.sep
        seen = set()
        incomplete = []
        for name in sorted(graphs):
            if not (name == f"{module}.symbols.json" or name.startswith(f"{module}@")):
                continue
            with open(os.path.join(arguments.graphs, name)) as file:
                graph = json.load(file)
            for symbol in graph["symbols"]:
                location = symbol.get("location", {})
                path = location.get("uri", "").removeprefix("file://")
                identifier = symbol["identifier"]["precise"]
                if not path.startswith(folder) or identifier in seen:
                    continue
                seen.add(identifier)
                missing = problems(symbol, module)
                if missing:
                    line = location.get("position", {}).get("line", 0) + 1
                    title = ".".join(symbol.get("pathComponents", [symbol["names"]["title"]]))
                    incomplete.append((os.path.relpath(path), line, title, missing))
        print(f"{module}: {len(seen)} public declarations, {len(incomplete)} incomplete")
        if arguments.list:
            for path, line, title, missing in sorted(incomplete):
                print(f"  {path}:{line}: {title}: {'; '.join(missing)}")
        if module in gate and incomplete:
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
