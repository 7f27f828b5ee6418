#!/usr/bin/env python3
"""history-ratios.py STORE [COMMIT...]: a paired store's values as a table.

One row a point (store order), one column a series (variant/kernel/M and
threads): each cell the point's COMMIT/ANCHOR ratio and the width of its
95 % interval in percent of it.  The COMMITs given (hash prefixes, such as
the annotations') are starred.  Reads STORE/index.jsonl only; for reading a
real history beside `gemmbench history changes` (results/notes/history.md).

A store it cannot read (missing, not UTF-8, a line that is not an index
line, a ratio not above 0) is one line on stderr and exit 2, as gemmbench
says it; every text from the store is printed as gemmbench prints user text
(bytes outside printable ASCII, and the backslash, as \\xNN).
"""
import json
import math
import sys


def shown(text, limit=200):
    """text as gemmbench's messages show it (gb_printable): printable ASCII
    kept, every other byte of its UTF-8 and the backslash as \\xNN, at most
    limit characters, then '...'."""
    out = []
    for i, b in enumerate(str(text).encode("utf-8", "surrogateescape")):
        if i == limit:
            out.append("...")
            break
        out.append(chr(b) if 0x20 <= b < 0x7F and b != 0x5C else "\\x%02x" % b)
    return "".join(out)


def fail(why):
    sys.stderr.write("history-ratios.py: " + why + "\n")
    sys.exit(2)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def read_rows(store):
    """The paired lines of STORE/index.jsonl, each checked as far as the
    table reads it."""
    path = store + "/index.jsonl"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        fail("%s: %s" % (shown(path), e.strerror or e))
    rows = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        where = "%s:%d" % (shown(path), n)
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            fail(where + ": not UTF-8")
        try:
            row = json.loads(line)
        except ValueError:
            fail(where + ": not JSON")
        if not isinstance(row, dict) or not isinstance(row.get("commit"), str) or \
                not isinstance(row.get("entries"), list):
            fail(where + ": not a line of a history index (no commit or entries)")
        if "anchor" not in row:
            continue
        for e in row["entries"]:
            if not isinstance(e, list) or len(e) < 10 or not isinstance(e[0], str) or \
                    not isinstance(e[1], str) or not all(number(e[i]) for i in (2, 5, 7, 8, 9)):
                fail(where + ": an entry is not a row of the index")
            if not (e[7] > 0 and e[8] > 0 and e[9] >= e[8]):
                fail(where + ": an entry's ratio or interval is not above 0")
        rows.append(row)
    return rows


def main():
    if len(sys.argv) < 2:
        fail("usage: history-ratios.py STORE [COMMIT...]")
    marked = sys.argv[2:]
    rows = read_rows(sys.argv[1])
    if not rows:
        fail("no paired point in " + shown(sys.argv[1]))
    series = {}
    for row in rows:
        for e in row["entries"]:
            key = "%s %s %d t%d" % (shown(e[0], 40), shown(e[1], 40), e[2], e[5])
            series.setdefault(key, {})[row["commit"]] = (e[7], e[8], e[9])
    keys = sorted(series)
    print("each cell: COMMIT/ANCHOR (width of its 95 % interval, % of it); * a commit named")
    print("%-13s" % "commit" + "".join("%-26s" % k[:25] for k in keys))
    for row in rows:
        c = row["commit"]
        star = "*" if any(c.startswith(m) for m in marked) else " "
        cells = ""
        for k in keys:
            v = series[k].get(c)
            cells += "%-26s" % ("%.3f (%.0f)" % (v[0], 100 * (v[2] - v[1]) / v[0]) if v else "-")
        print("%-12s%s" % (shown(c[:11]), star) + cells)


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        sys.exit(3)
