import re, subprocess, sys
for label in sys.argv[1:]:
    t = open(label + ('.clean.txt' if label.startswith('2-') else '.txt')).read()
    la = re.findall(r'load average at (?:start|end): ([\d.]+)', t)
    ing = re.search(r'while ingesting and scrolling \(([\d,]+) jumps\): waits p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms \(([\d,]+) probes\); UI thread\'s own CPU during those waits p50 ([\d.]+) ms, p99 ([\d.]+) ms', t)
    win = re.search(r'per 20 s of the ingest \(from its start\): (.*)', t).group(1)
    w = re.findall(r'(\d+)-\d+ s p99 ([\d.]+) ms', win)
    first = w[0][1]; rest = [float(p) for s, p in w[1:] if int(s) < 200]
    scroll = re.search(r'scrolling 1,000,000 flows for 20 s \(\d+ jumps\): waits p50 [\d.]+ ms, p99 ([\d.]+) ms', t)
    rss = re.search(r'RSS at the end of the ingest ([\d,]+) MiB', t)
    cpu = re.search(r'CPU while ingesting and scrolling: ([\d.]+) s \(([\d.]+) ms per jump', t)
    g = subprocess.run(['python3', 'gcstats.py', label + '.gc'], capture_output=True, text=True).stdout
    yp = re.search(r'p50/p90/p99/max ([\d.]+)/([\d.]+)/([\d.]+)', g)
    cyc = re.search(r"'Young Concurrent Start': (\d+)", g)
    prom = re.search(r'total (\d+) over', g)
    print(f"| {label} | {la[0]} → {la[1]} | **{ing.group(3)}** / {ing.group(4)} ms ({ing.group(5)} probes) | {first} ms | {min(rest):.0f}–{max(rest):.0f} ms | {ing.group(7)} ms | {cpu.group(2)} ms | {yp.group(1)} / {yp.group(3)} ms | {cyc.group(1) if cyc else '?'} | {prom.group(1) if prom else '?'} | {scroll.group(1)} ms | {rss.group(1)} MiB |")
