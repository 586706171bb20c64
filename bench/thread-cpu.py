#!/usr/bin/env python3
"""CPU time of a process by thread name, for bench/cpu-per-request.sh (THREADS=1).

  thread-cpu.py PID > SNAPSHOT                  utime+stime (clock ticks) of every thread, as JSON
  thread-cpu.py diff BEFORE AFTER REQUESTS      one line: µs of CPU per request by thread name
                                                (trailing digits and dashes dropped, so the event
                                                loops loupe-io-3-1..4 add up to "loupe-io")
"""
import collections
import json
import os
import re
import sys

if sys.argv[1] == "diff":
    before = json.load(open(sys.argv[2]))
    after = json.load(open(sys.argv[3]))
    requests = int(sys.argv[4])
    tick_us = 1e6 / os.sysconf("SC_CLK_TCK")
    by_name = collections.Counter()
    for tid, (name, ticks) in after.items():
        by_name[re.sub(r"[-0-9]+$", "", name)] += ticks - before.get(tid, [name, 0])[1]
    total = sum(by_name.values())
    print("  threads, µs CPU per request: " + ", ".join(
        "%s %.1f" % (n, t * tick_us / requests) for n, t in by_name.most_common(8) if t > 0)
        + " | total %.1f" % (total * tick_us / requests))
else:
    pid = sys.argv[1]
    out = {}
    for tid in os.listdir("/proc/%s/task" % pid):
        try:
            stat = open("/proc/%s/task/%s/stat" % (pid, tid)).read()
        except OSError:
            continue  # the thread ended
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[tid] = [name, int(fields[11]) + int(fields[12])]
    print(json.dumps(out))
