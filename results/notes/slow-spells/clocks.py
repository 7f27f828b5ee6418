# Per round: sd of ln(wall per call), ln(CPU per call), ln(CPU share) and their
# correlation, by thread count; the fastest and slowest quarter of the rounds.
# Usage: python3 clocks.py RESULT.json...
import json, math, statistics, sys
rows = []
for path in sys.argv[1:]:
    d = json.load(open(path))
    for r in d['results']:
        n = {}
        for t in r['sample_rounds']:
            n[t] = n.get(t, 0) + 1
        for c in r['round_clocks']:
            k = n[c['round']]
            rows.append((r['threads'], c['wall_s'] / k, c['cpu_s'] / k / r['threads'],
                         c['cpu_s'] / (c['wall_s'] * r['threads']), c['nivcsw'], c['steal_s']))
for T in (1, 2):
    xs = sorted([x for x in rows if x[0] == T], key=lambda x: x[1])
    q = len(xs) // 4
    lw = [math.log(x[1]) for x in xs]; ls = [math.log(x[3]) for x in xs]
    corr = statistics.correlation(lw, ls)
    f = lambda g, i: statistics.median(x[i] for x in g)
    print(f"threads {T}: {len(xs)} rounds, sd ln(wall/call) {statistics.stdev(lw):.3f}, sd ln(CPU/call) "
          f"{statistics.stdev([math.log(x[2]) for x in xs]):.3f}, sd ln(share) {statistics.stdev(ls):.3f}, "
          f"corr(ln wall/call, ln share) {corr:.2f}; fastest quarter: wall/call {f(xs[:q],1)*1e6:.0f} us, "
          f"share {f(xs[:q],3):.2f}, nivcsw {f(xs[:q],4):.0f}; slowest quarter: wall/call {f(xs[-q:],1)*1e6:.0f} us, "
          f"share {f(xs[-q:],3):.2f}, nivcsw {f(xs[-q:],4):.0f}; rounds with steal {sum(x[5] > 0 for x in xs)}")
