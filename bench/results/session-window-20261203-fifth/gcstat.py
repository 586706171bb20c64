#!/usr/bin/env python3
"""gcstat.py GCLOG [from_s to_s]: young pauses (ms) p50/p90/p99/max, count, per-second rate, bytes surviving
per young GC (gc+age: total of the age table = bytes copied to survivors), old regions added per GC (promotion)."""
import re, sys
log = sys.argv[1]
lo = float(sys.argv[2]) if len(sys.argv) > 2 else 0
hi = float(sys.argv[3]) if len(sys.argv) > 3 else 1e9
pauses = []; surv = {}; old = {}; cur_age = {}; cpu = {}
t_re = re.compile(r'\[(\d+\.\d+)s\]')
for line in open(log, errors='replace'):
    m = t_re.search(line)
    if not m: continue
    t = float(m.group(1))
    g = re.search(r'GC\((\d+)\)', line)
    if not g: continue
    gc = int(g.group(1))
    pm = re.search(r'Pause Young \((Normal|Concurrent Start|Prepare Mixed|Mixed)\).* (\d+)M->(\d+)M\(\d+M\) (\d+\.\d+)ms', line)
    if pm and lo <= t <= hi:
        pauses.append((gc, t, float(pm.group(4)), pm.group(1)))
    am = re.search(r'- age +(\d+): +(\d+) bytes, +(\d+) total', line)
    if am:
        surv[gc] = int(am.group(3))
    cm = re.search(r'User=(\d+\.\d+)s Sys=(\d+\.\d+)s Real=(\d+\.\d+)s', line)
    if cm:
        cpu[gc] = (float(cm.group(1)) + float(cm.group(2))) * 1000
    om = re.search(r'Old regions: (\d+)->(\d+)', line)
    if om:
        old[gc] = int(om.group(2)) - int(om.group(1))
def pct(v, p):
    v = sorted(v); return v[min(len(v)-1, int(len(v)*p))] if v else float('nan')
ms = [p[2] for p in pauses]
if not pauses:
    print("no pauses"); sys.exit()
span = pauses[-1][1] - pauses[0][1]
gcs = [p[0] for p in pauses]
sv = [surv.get(g, 0)/1048576 for g in gcs]
od = [old[g] for g in gcs if g in old]
cp = [cpu[g] for g in gcs if g in cpu]
print(f"GC threads' CPU per young pause p50 {pct(cp,.5):.0f} p90 {pct(cp,.9):.0f} ms, total {sum(cp)/1000:.1f} s")
print(f"young pauses {len(ms)} in {span:.0f} s ({len(ms)/max(span,1):.1f}/s): p50 {pct(ms,.5):.1f} p90 {pct(ms,.9):.1f} p99 {pct(ms,.99):.1f} max {max(ms):.1f} ms, total {sum(ms)/1000:.1f} s; "
      f"surviving per GC (age table) p50 {pct(sv,.5):.2f} p90 {pct(sv,.9):.2f} MiB, sum {sum(sv):.0f} MiB; old regions added per GC p50 {pct(od,.5)} p90 {pct(od,.9)} sum {sum(od)}")
