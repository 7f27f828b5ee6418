#!/usr/bin/env python3
"""layers.py - do the dependencies of src/ (and schedules/) point one way?

usage: scripts/layers.py [BUILD]     (after `make`; BUILD defaults to build)

The folders are layers, top first (LAYERS below): the commands use their
settings, which select what analysis and measurement (with tuning) work
on; those run the schedules, which read and write files, which describe
the machine, which uses base.  Folders of one layer do not use each other; folders of one
group (measure and tune) are one unit.

A header of include/ belongs to the folder that defines its functions and
variables, read from the objects with nm, so that where a function lives
decides it, never where it is declared; a header of types alone belongs
nowhere.  Two lists follow:
  includes: every `#include "x.h"` of a .c file that calls x.h's functions
    in another folder (or, calling none, takes its types), and every
    include in a header, as an arrow from folder to folder;
  calls: every function a folder's objects call in another folder (nm's
    undefined symbols), whatever header declared it.
Arrows that run up a layer are listed first, then those between two
folders of one layer.  Exit status: 0 none up, 1 some up, 2 no build.
"""
import os
import re
import signal
import subprocess
import sys

# Top first.  A tuple is one group: its folders may use each other.
# settings (the parsed command line and bench.conf) is the commands'
# input, under them; schedules/ is run by measurement and reads the
# machine and the tuning records, so it sits between the two; the files
# (result writer and reader) write what the machine reports, so they sit
# above it.  learn (the trial database and the cost model) reads the
# compiler's plans and is read by ml_guided and the search: one unit with
# the schedules and their compiler.
LAYERS = [
    [("cmd",)],
    [("settings",)],
    [("analysis",), ("measure", "tune")],
    [("schedules", "sched", "learn")],
    [("files",)],
    [("machine",)],
    [("base",)],
]
LEVEL = {f: i for i, layer in enumerate(LAYERS) for group in layer for f in group}
GROUP = {f: group for layer in LAYERS for group in layer for f in group}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
WORD = re.compile(r"\b([A-Za-z_]\w*)\b")


def folder_of(path):
    """src/X/y.c -> X; schedules/y.c -> schedules (relative to the tree)."""
    parts = os.path.normpath(path).split(os.sep)
    return parts[1] if parts[0] == "src" else parts[0]


def objects(build):
    for top in ("src", "schedules"):
        for root, _, files in os.walk(os.path.join(build, top)):
            for name in sorted(files):
                if name.endswith(".o"):
                    yield os.path.join(root, name)


_SYMBOLS = {}


def symbols(build, obj):
    """(defined, undefined) global symbols of obj: one `nm -g` over every
    object of the build, the first time (an nm per object took 4 s)."""
    if obj not in _SYMBOLS:
        objs = sorted(objects(build))
        out = subprocess.run(["nm", "-g", "-A"] + objs, check=True,
                             capture_output=True, text=True).stdout
        for o in objs:
            _SYMBOLS[o] = ([], [])
        for line in out.splitlines():
            # "path.o:[value] TYPE name"; undefined ones have no value
            path, _, rest = line.partition(":")
            fields = rest.split()
            if len(fields) < 2 or path not in _SYMBOLS:
                continue
            undefined = fields[-2] in ("U", "w", "v")
            _SYMBOLS[path][1 if undefined else 0].append(fields[-1])
    return _SYMBOLS[obj]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def kind(src, dst):
    """'up', 'sideways' or None for an arrow from folder src to folder dst."""
    if src not in LEVEL or dst not in LEVEL or dst in GROUP[src]:
        return None
    if LEVEL[dst] < LEVEL[src]:
        return "up"
    return "sideways" if LEVEL[dst] == LEVEL[src] else None


def symbol_homes(build):
    """{symbol: folder} for every global definition of the objects."""
    home = {}
    for obj in objects(build):
        for sym in symbols(build, obj)[0]:
            home[sym] = folder_of(os.path.relpath(obj, build))
    return home


def header_homes(home):
    """{header: {folder: [the header's symbols defined there]}}."""
    headers = {}
    for name in sorted(os.listdir("include")):
        text = strip_comments(open(os.path.join("include", name)).read())
        for sym in sorted(set(WORD.findall(text)) & home.keys()):
            headers.setdefault(name, {}).setdefault(home[sym], []).append(sym)
    return headers


def include_arrows(headers):
    """(where, from, to, what) for every include of a source or header."""
    sources = [os.path.join(r, f) for top in ("src", "schedules")
               for r, _, fs in os.walk(top) for f in sorted(fs) if f.endswith(".c")]
    for path in sorted(sources):
        text = open(path).read()
        words = set(WORD.findall(strip_comments(text)))
        for header in INCLUDE.findall(text):
            homes = headers.get(header, {})
            called = {d: [s for s in syms if s in words] for d, syms in homes.items()}
            called = {d: s for d, s in called.items() if s}
            # Types alone of a header that is partly the includer's own
            # folder's are taken to be that folder's.
            if not called and folder_of(path) in homes:
                continue
            for dst in sorted(called or homes):
                yield (f"{path} includes {header}", folder_of(path), dst,
                       ", ".join(called[dst]) if called else "types or macros only")
    for name, homes in sorted(headers.items()):
        if len(homes) != 1:
            continue
        for header in INCLUDE.findall(open(os.path.join("include", name)).read()):
            homes_of = sorted(headers.get(header, {}))
            what = "for its types" + (f" (its functions: {', '.join(homes_of)})"
                                      if len(homes_of) > 1 else "")
            for dst in homes_of:
                yield f"include/{name} includes {header}", next(iter(homes)), dst, what


def call_arrows(build, home):
    """(where, from, to, what) for every call of a function of another folder."""
    calls = {}
    for obj in objects(build):
        src = folder_of(os.path.relpath(obj, build))
        for sym in symbols(build, obj)[1]:
            if sym in home and home[sym] != src:
                where = os.path.relpath(obj, build)[:-2] + ".c"
                calls.setdefault((where, src, home[sym]), []).append(sym)
    for (where, src, dst), syms in sorted(calls.items()):
        yield where, src, dst, ", ".join(sorted(syms))


def print_arrows(title, arrows):
    """Prints the up and sideways ones; returns how many run up."""
    found = {"up": [], "sideways": []}
    for where, src, dst, what in arrows:
        k = kind(src, dst)
        if k:
            found[k].append(f"  {where} ({src} -> {dst}): {what}")
    for k in ("up", "sideways"):
        print(f"\n{title} {k}: {len(found[k])}")
        for line in found[k]:
            print(line)
    return len(found["up"])


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # `| head` is not an error
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if not os.path.isdir(os.path.join(build, "src")):
        print(f"layers.py: no objects under {build}/src: run make first", file=sys.stderr)
        return 2
    home = symbol_homes(build)
    print("layers, top first: " + " > ".join(
        " | ".join("+".join(g) for g in layer) for layer in LAYERS))
    ups = print_arrows("includes", include_arrows(header_homes(home)))
    ups += print_arrows("calls", call_arrows(build, home))
    return 1 if ups else 0


if __name__ == "__main__":
    sys.exit(main())
