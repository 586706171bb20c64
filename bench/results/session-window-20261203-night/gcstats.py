import re, sys
# per GC log: young pauses (count, p50/p90/p99/max ms), by kind, old regions added per young pause (p50, mean),
# survivor regions after (p50), GC CPU (user+sys) per pause p50/p90, total paused s, from t>=start
def pct(a, p):
    a = sorted(a); return a[min(len(a) - 1, int(len(a) * p))] if a else float('nan')
for path in sys.argv[1:]:
    pauses = {}; old = {}; surv = {}; cpu = {}; kinds = {}; t = {}
    for line in open(path, errors='replace'):
        m = re.search(r'\[([\d.]+)s\].*GC\((\d+)\) Pause (Young|Full|Remark|Cleanup) \(([^)]*)\).* ([\d.]+)ms$', line)
        if m:
            g = int(m.group(2)); pauses[g] = float(m.group(5)); kinds[g] = m.group(3) + ' ' + m.group(4); t[g] = float(m.group(1)); continue
        m = re.search(r'GC\((\d+)\) Old regions: (\d+)->(\d+)', line)
        if m: old[int(m.group(1))] = int(m.group(3)) - int(m.group(2)); continue
        m = re.search(r'GC\((\d+)\) Survivor regions: (\d+)->(\d+)', line)
        if m: surv[int(m.group(1))] = int(m.group(3)); continue
        m = re.search(r'GC\((\d+)\) User=([\d.]+)s Sys=([\d.]+)s', line)
        if m: cpu[int(m.group(1))] = (float(m.group(2)) + float(m.group(3))) * 1000
    young = [g for g in pauses if kinds[g].startswith('Young')]
    d = [pauses[g] for g in young]
    kc = {}
    for g in pauses: kc[kinds[g]] = kc.get(kinds[g], 0) + 1
    span = max(t.values()) if t else 0
    print(path, f"span {span:.0f}s young {len(young)} ({len(young)/max(span,1):.2f}/s) p50/p90/p99/max {pct(d,.5):.1f}/{pct(d,.9):.1f}/{pct(d,.99):.1f}/{max(d) if d else 0:.1f} ms, total paused {sum(pauses.values())/1000:.1f}s")
    print("   kinds", kc)
    o = [old[g] for g in young if g in old]; s = [surv[g] for g in young if g in surv]; c = [cpu[g] for g in young if g in cpu]
    on = [old[g] for g in young if g in old and 'Mixed' not in kinds[g] or (g in old and 'Prepare' in kinds[g])]
    if on: print(f"   old regions added per non-mixed young pause: mean {sum(on)/len(on):.2f}, total {sum(on)} over {len(on)}; mixed pauses reclaimed {-sum(old[g] for g in young if g in old and kinds[g]=='Young Mixed')} regions")
    if o: print(f"   old regions added per young pause p50 {pct(o,.5)} mean {sum(o)/len(o):.2f}; survivor regions after p50 {pct(s,.5)} p90 {pct(s,.9)}")
    if c: print(f"   GC CPU per young pause p50 {pct(c,.5):.0f} p90 {pct(c,.9):.0f} p99 {pct(c,.99):.0f} ms, total GC CPU in pauses {sum(c)/1000:.1f}s")
