#!/usr/bin/env python3
"""Loupe's CPU per request in reverse mode and in regular mode (CONNECT + TLS interception) in the
same run, with the same load generator, by thread. Issue 19: the CONNECT path ran at 13.6k req/s
where reverse TLS H1 ran at 18k; the probe drives the two with different generators (h2load and
LoadGen), so its throughput gap mixes the proxy's cost with the generator's. Here both modes get
LoadGen, the same connections and the same origin; only Loupe's mode differs.

  bench/cpu-per-request-modes.py [--jar A.jar] [--jar-b B.jar] [--modes reverse,regular[,reverse-h2load]]
                                 [--client h1|h2] [--conc 64] [--warm 30] [--dur 10] [--pairs 2]
                                 [--jopts "-Xms1g -Xmx1g"] [--jfr DIR] [--args "..."]

Starts an nginx origin (TLS, one worker, access log off, h1 only on one port and h1+h2 on
another) serving /13 (13 bytes), and one LoadGen JVM (`--serve`, kept warm for the whole run).
For every run (jar x mode, in A B B A order over --pairs): a fresh Loupe (`--headless -q`,
`--trust-ca` the origin's CA, `--upstream-protocol h1`; `--mode reverse:https://127.0.0.1:ORIGIN`
or regular mode, where LoadGen sends CONNECT 127.0.0.1:ORIGIN then TLS through Loupe's
interception), warmed with --warm seconds of load in chunks of at most 10 s whose connections
close (so the close path is compiled before measuring, as the probe does), then one measured
LoadGen run of --dur seconds (after 2 s of its own warm-up on new connections): Loupe's
utime+stime by thread (/proc/PID/task/*/stat) is read at the start and the end of the measured
window (mode reverse-h2load: reverse mode measured with h2load, the probe's generator for reverse
arms, instead of LoadGen; the warm-up is LoadGen's either way). Prints µs of CPU per request by thread name, the total, req/s, peak RSS, the generator's own
CPU per request over the same window, and Loupe's voluntary and involuntary context switches per
request (/proc/PID/task/*/status: voluntary ones are wake-ups, fewer means more batching;
involuntary ones are the box's load taking the CPU away).
--jfr DIR: also records a JFR (settings=profile, -XX:+DebugNonSafepoints) of each run from launch
into DIR and prints the measured window's start and end (local time) to filter its samples on; the
CPU figure then includes JFR's own cost.
"""
import argparse
import collections
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TICK_US = 1e6 / os.sysconf("SC_CLK_TCK")


def threads(pid):
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            stat = open("/proc/%d/task/%s/stat" % (pid, tid)).read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        f = stat[stat.rindex(")") + 2:].split()
        out[tid] = (name, int(f[11]) + int(f[12]))
    return out


def proc_ticks(pid):
    f = open("/proc/%d/stat" % pid).read()
    f = f[f.rindex(")") + 2:].split()
    return int(f[11]) + int(f[12])


def switches(pid):
    """Context switches (voluntary, involuntary) summed over the threads of pid."""
    v = n = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            st = open("/proc/%d/task/%s/status" % (pid, tid)).read()
        except OSError:
            continue
        v += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", st, re.M).group(1))
        n += int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", st, re.M).group(1))
    return v, n


def per_thread(before, after, requests):
    by = collections.Counter()
    for tid, (name, ticks) in after.items():
        by[re.sub(r"[-0-9]+$", "", name)] += ticks - before.get(tid, (name, 0))[1]
    return {n: t * TICK_US / requests for n, t in by.items() if t > 0}


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def wait_port(port, proc, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        if proc.poll() is not None:
            sys.exit("process exited before listening on %d" % port)
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    sys.exit("nothing listening on %d" % port)


class LoadGen:
    def __init__(self, jar, log, jopts=""):
        self.p = subprocess.Popen(["nice", "-n", "19", "java"] + jopts.split() + ["-jar", str(jar), "--serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1,
                                  start_new_session=True)

    def send(self, args):
        self.p.stdin.write(" ".join(args) + "\n")
        self.p.stdin.flush()

    def result(self, timeout):
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            sys.exit("LoadGen hung")
        return json.loads(self.p.stdout.readline())

    def stop(self):
        self.p.stdin.close()
        self.p.wait(10)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--jar", default=str(HERE.parent / "app/target/loupe.jar"))
    ap.add_argument("--jar-b", default=None)
    ap.add_argument("--modes", default="reverse,regular")
    ap.add_argument("--client", default="h1", choices=("h1", "h2"))
    ap.add_argument("--conc", type=int, default=64)
    ap.add_argument("--streams", type=int, default=1)
    ap.add_argument("--warm", type=float, default=30)
    ap.add_argument("--dur", type=float, default=10)
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--jopts", default="-Xms1g -Xmx1g")
    ap.add_argument("--args", default="", help="extra Loupe options (every run)")
    ap.add_argument("--args-b", default="", help="extra Loupe options of the --jar-b runs")
    ap.add_argument("--lines", nargs="?", const="B", default="",
                    help="B runs (--lines AB: all runs) print the per-flow line (no -q), into a file")
    ap.add_argument("--jfr", default=None)
    ap.add_argument("--loadgen", default=str(HERE / "target/loadgen.jar"))
    ap.add_argument("--gen-jopts", default="", help="LoadGen's JVM options (e.g. a JFR recording of the generator)")
    a = ap.parse_args()
    modes = a.modes.split(",")
    w = Path(tempfile.mkdtemp(prefix="loupe-cprm."))
    os.chmod(w, 0o755)
    procs = []

    def cleanup():
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGTERM)
        pid = w / "nginx.pid"
        if pid.exists():
            try:
                os.kill(int(pid.read_text()), signal.SIGTERM)
            except (OSError, ValueError):
                pass
        time.sleep(0.5)
        shutil.rmtree(w, ignore_errors=True)

    signal.signal(signal.SIGTERM, lambda *_: sys.exit("terminated"))  # runs the cleanup below
    try:
        sh = lambda *c: subprocess.run(c, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sh("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
           "-keyout", str(w / "ca.key"), "-out", str(w / "ca.pem"), "-days", "2", "-subj", "/CN=cprm CA")
        sh("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
           "-keyout", str(w / "leaf.key"), "-out", str(w / "leaf.csr"), "-subj", "/CN=localhost")
        (w / "ext").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        sh("openssl", "x509", "-req", "-in", str(w / "leaf.csr"), "-CA", str(w / "ca.pem"), "-CAkey",
           str(w / "ca.key"), "-CAcreateserial", "-out", str(w / "leaf.pem"), "-days", "2", "-extfile",
           str(w / "ext"))
        (w / "13").write_text("hello, world\n")
        o1, o2 = free_port(), free_port()
        (w / "nginx.conf").write_text(f"""worker_processes 1; pid {w}/nginx.pid; error_log {w}/error.log;
events {{ worker_connections 4096; }}
http {{ access_log off; keepalive_requests 100000000; keepalive_timeout 300s;
  ssl_certificate {w}/leaf.pem; ssl_certificate_key {w}/leaf.key;
  server {{ listen 127.0.0.1:{o1} ssl; location / {{ root {w}; }} }}
  server {{ listen 127.0.0.1:{o2} ssl http2; location / {{ root {w}; }} }} }}
""")
        subprocess.run(["nginx", "-c", str(w / "nginx.conf")], check=True)
        origin = o1  # h1 only: Loupe's --upstream-protocol h1 either way
        gen = LoadGen(a.loadgen, open(w / "loadgen.log", "ab"), a.gen_jopts)
        procs.append(gen.p)
        print("# load1 %.1f, jar %s%s, client %s, c=%d, warm %gs, measured %gs, JVM %s" % (
            os.getloadavg()[0], a.jar, (", jar-b " + a.jar_b) if a.jar_b else "", a.client, a.conc, a.warm,
            a.dur, a.jopts or "(defaults)"), flush=True)

        def loadgen_args(mode, port, warm, dur):
            url = "https://127.0.0.1:%d/13" % (port if mode.startswith("reverse") else origin)
            args = [url, "--" + a.client, "-c", str(a.conc), "-m", str(a.streams), "-t", "1", "-D", str(dur),
                    "--warmup", str(warm), "--insecure"]
            if not mode.startswith("reverse"):
                args += ["--proxy", "127.0.0.1:%d" % port]
            return args

        runs = []
        jars = [("A", a.jar, a.args)] + ([("B", a.jar_b, a.args_b)] if a.jar_b or a.args_b or a.lines else [])
        if len(jars) == 2 and jars[1][1] is None:
            jars[1] = ("B", a.jar, a.args_b)
        for i in range(a.pairs):
            order = [(j, m) for j in jars for m in modes]
            runs += order if i % 2 == 0 else order[::-1]
        for n, ((tag, jar, extra), mode) in enumerate(runs):
            port = free_port()
            argv = ["nice", "-n", "19", "java"] + a.jopts.split()
            if a.jfr:
                # recording from launch: a JFR.start mid-run recompiled the relay (C1 and C2 busy for
                # the whole window); the dump holds the warm-up too, the window is printed to filter on
                argv += ["-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints",
                         "-XX:StartFlightRecording=name=m,settings=profile"]
            argv += ["-jar", jar, "--headless", "-q", "--listen", "127.0.0.1:%d" % port,
                     "--confdir", str(w / ("conf-%d" % n)), "--trust-ca", str(w / "ca.pem"),
                     "--upstream-protocol", "h1"]
            if mode.startswith("reverse"):
                argv += ["--mode", "reverse:https://127.0.0.1:%d" % origin]
            argv += extra.split()
            if tag in a.lines:
                argv.remove("-q")
            log = open(w / ("loupe-%d.log" % n), "ab")
            p = subprocess.Popen(argv, stdout=log, stderr=log, start_new_session=True)
            procs.append(p)
            wait_port(port, p)
            left = a.warm
            wmode = "reverse" if mode.startswith("reverse") else mode
            while left > 0:
                chunk = min(10, left)
                gen.send(loadgen_args(wmode, port, 0, chunk))
                r = gen.result(chunk + 60)
                if r.get("errors_total") or "error" in r:
                    sys.exit("warm-up errors: %s (log %s)" % (r, w))
                left -= chunk
            time.sleep(1)
            jfr = None
            h2 = None
            if mode == "reverse-h2load":
                h2 = subprocess.Popen(["nice", "-n", "19", "h2load", "--h1" if a.client == "h1" else "-m%d" % a.streams,
                                       "-c", str(a.conc), "-t", "1", "--warm-up-time=2", "-D", "%g" % a.dur,
                                       "https://127.0.0.1:%d/13" % port], stdout=subprocess.PIPE, text=True)
                genpid = h2.pid
            else:
                gen.send(loadgen_args(mode, port, 2, a.dur))
                genpid = gen.p.pid
            t0 = time.time()
            time.sleep(2)
            if a.jfr:
                jfr = Path(a.jfr) / ("%s-%s-%s-%d.jfr" % (tag, a.client, mode, n))
                window = [time.strftime("%H:%M:%S")]
            b = threads(p.pid)
            sb = switches(p.pid)
            gb = proc_ticks(genpid)
            time.sleep(max(0, t0 + 2 + a.dur - time.time()))
            e = threads(p.pid)
            se = switches(p.pid)
            ge = proc_ticks(genpid)
            if a.jfr:
                window.append(time.strftime("%H:%M:%S"))
                subprocess.run(["jcmd", str(p.pid), "JFR.dump", "name=m", "filename=%s" % jfr],
                               stdout=subprocess.DEVNULL)
                jfr = "%s (measured %s-%s local time)" % (jfr, window[0], window[1])
            if h2:
                out = h2.communicate(timeout=a.dur + 60)[0]
                m = re.search(r"requests: (\d+) total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed", out)
                rps = re.search(r"finished in [^,]+, ([0-9.]+) req/s", out)
                r = {"requests": int(m.group(2)), "errors_total": int(m.group(3)), "rps": float(rps.group(1))}
            else:
                r = gen.result(a.dur + 60)
            hwm = int(re.search(r"VmHWM:\s+(\d+)", open("/proc/%d/status" % p.pid).read()).group(1)) // 1024
            os.killpg(p.pid, signal.SIGTERM)
            p.wait(20)
            req = r.get("requests", 0)
            if not req or r.get("errors_total"):
                print("run %d %s %s: errors %s" % (n, tag, mode, r), flush=True)
                continue
            t = per_thread(b, e, req)
            total = sum(t.values())
            top = sorted(t.items(), key=lambda kv: -kv[1])[:6]
            print("%s %-7s cpu_us_per_req %5.1f  rps %7.0f  rss_peak_mib %d  load1 %.1f  gen_us_per_req %.1f  vcsw/req %.2f  ivcsw/req %.2f | %s%s" % (
                tag, mode, total, r["rps"], hwm, os.getloadavg()[0], (ge - gb) * TICK_US / req,
                (se[0] - sb[0]) / req, (se[1] - sb[1]) / req,
                ", ".join("%s %.1f" % kv for kv in top), ("  jfr " + str(jfr)) if jfr else ""), flush=True)
        gen.stop()
    finally:
        cleanup()


if __name__ == "__main__":
    main()
