#!/usr/bin/env python3
"""history-ratios.py STORE [COMMIT...]: a paired store's values as a table.

One row a point (store order), one column a series (variant/kernel/M and
threads): each cell the point's COMMIT/ANCHOR ratio and the width of its
95 % interval in percent of it.  The COMMITs given (hash prefixes, such as
the annotations') are starred.  Reads STORE/index.jsonl only; for reading a
real history beside `gemmbench history changes` (results/notes/history.md).
"""
import json
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: history-ratios.py STORE [COMMIT...]")
    marked = sys.argv[2:]
    rows = []
    with open(sys.argv[1] + "/index.jsonl") as f:
        for line in f:
            row = json.loads(line)
            if "anchor" in row:
                rows.append(row)
    if not rows:
        sys.exit("history-ratios.py: no paired point in " + sys.argv[1])
    series = {}
    for row in rows:
        for e in row["entries"]:
            key = "%s %s %d t%d" % (e[0], e[1], e[2], e[5])
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
        print("%-12s%s" % (c[:11], star) + cells)


if __name__ == "__main__":
    main()
