#!/usr/bin/env python3
"""Fails, naming each one, if a public symbol of the given modules has no documentation.

Usage: doc-coverage.py SYMBOLGRAPH_DIR MODULE... [--report-only]

SYMBOLGRAPH_DIR holds the symbol graphs written by
`swift package dump-symbol-graph --minimum-access-level public` (MODULE.symbols.json, and
MODULE@OTHER.symbols.json for the module's extensions of other modules' types).

What counts (the rules `make docs` enforces):
- Every `public` or `open` symbol declared in the module's own sources needs a `///` comment:
  types, members, enum cases, initialisers, and the default implementations a protocol
  extension provides (they say what the default does, which is what a porter needs).
- A symbol whose documentation DocC inherits from a declaration of this package is
  documented: a member that satisfies a requirement of one of our protocols, or overrides a
  member of one of our classes, without a comment of its own shows the requirement's text.
- A symbol that satisfies a requirement of the standard library's or Foundation's protocols
  (`description`, `==`, `rawValue`, an `AsyncSequence`'s `makeAsyncIterator()`) may go
  without a comment: DocC shows that protocol's documentation, which says what it means.
- Symbols the compiler makes are not ours to document and are skipped: synthesized
  conformances (`hashValue`, `hash(into:)` of a `Hashable` struct, with no source location)
  and the members a type inherits from another module's protocol extensions (their
  identifiers carry `::SYNTHESIZED::`).
"""

import collections
import json
import os
import sys

STANDARD_MODULES = {"Swift", "_Concurrency", "Foundation", "FoundationEssentials", "_StringProcessing"}


def load(directory, module):
    graphs = []
    for name in sorted(os.listdir(directory)):
        if name == f"{module}.symbols.json" or (name.startswith(f"{module}@") and name.endswith(".symbols.json")):
            with open(os.path.join(directory, name)) as file:
                graphs.append(json.load(file))
    if not graphs:
        sys.exit(f"doc-coverage: no symbol graph for {module} in {directory}")
    return graphs


def undocumented(graph, module, package_modules):
    missing = []
    total = 0
    for symbol in graph["symbols"]:
        if symbol.get("accessLevel") not in ("public", "open"):
            continue
        if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or "location" not in symbol:
            continue
        total += 1
        comment = symbol.get("docComment")
        if comment is not None:
            origin = comment.get("module", module)
            if origin == module or origin in package_modules or origin in STANDARD_MODULES:
                continue
        missing.append(symbol)
    return total, missing


def main(arguments):
    report_only = "--report-only" in arguments
    arguments = [a for a in arguments if a != "--report-only"]
    if len(arguments) < 2:
        sys.exit(__doc__)
    directory, modules = arguments[0], arguments[1:]
    root = os.getcwd() + "/"
    missing_count = 0
    for module in modules:
        by_file = collections.defaultdict(list)
        total = 0
        for graph in load(directory, module):
            count, missing = undocumented(graph, module, set(modules) | {"Baton", "BatonLoop", "BatonContinuity", "BatonAgent"})
            total += count
            for symbol in missing:
                location = symbol["location"]
                path = location["uri"].removeprefix("file://").removeprefix(root)
                line = location["position"]["line"] + 1
                name = ".".join(symbol["pathComponents"])
                by_file[path].append((line, symbol["kind"]["displayName"].lower(), name))
        count = sum(len(v) for v in by_file.values())
        missing_count += count
        print(f"{module}: {total - count} of {total} public symbols documented")
        for path in sorted(by_file):
            print(f"  {path}: {len(by_file[path])} undocumented")
            for line, kind, name in sorted(by_file[path]):
                print(f"    {path}:{line}: {kind} {name}")
    names = ", ".join(modules)
    if missing_count and report_only:
        print(f"doc-coverage: {missing_count} public symbols of {names} have no documentation (listed, not enforced)")
        return 0
    if missing_count:
        print(f"doc-coverage: FAILED: {missing_count} public symbols of {names} have no documentation: "
              "give each a /// comment that says the behaviour (and the Apple rule it follows)")
        return 1
    print(f"doc-coverage: every public symbol of {names} is documented")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
