#!/usr/bin/env python3
"""Loupe load probe: Loupe next to its peers, same origin, same run, one command.

Run it through `bench/probe/run` (see bench/README.md, "Load probe"). Python 3 stdlib only.

What one run does (all on 127.0.0.1, every component a separate OS process):
  1. makes a throwaway PKI with openssl (origin CA + leaf for localhost/127.0.0.1),
  2. starts the origin (nginx): /13, /64k, /1m static files and POST /post (reads and
     discards the body, answers the 13-byte file) on four ports -- TLS h1+h2, TLS h1 only,
     cleartext h1 and cleartext h2c (prior knowledge),
  3. for each arm (mode x TLS x client protocol x origin protocol), starts the systems that
     can serve it -- direct (no proxy, the ceiling), nginx as reverse proxy, Loupe, mitmdump;
     for HTTP/3 client arms (reverse-tls-h3h1) Loupe and Caddy as HTTP/3 reverse proxies --
     and gives every proxy an unmeasured warm-up run,
  4. for each body, each concurrency step and each repetition, runs the load generator once
     per system, the system order reversed every other repetition (A B B A ...), and records
     req/s, p50/p99/max latency, errors, and the proxy's CPU% and peak RSS over the measured
     window,
  5. writes bench/results/STAMP.csv (one row per arm x system x body x conc x rep) and
     bench/results/STAMP.md (medians, sustainable RPS, ratios, targets met/missed).

Load generators: h2load (h2 and --h1) where it fits (reverse and direct arms), the project's
Netty generator (dev.loupe.bench.load.LoadGen) for what h2load cannot do: explicit-proxy
CONNECT + TLS (regular and tunnel arms), absolute-form requests to a plain forward proxy, and
HTTP/3 over QUIC (h3 arms: -c QUIC connections x --streams request streams, CA and host checked).
"""

import argparse
import csv
import datetime
import json
import os
import re
import shlex
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
HZ = os.sysconf("SC_CLK_TCK")

BODIES = {  # name -> (method, path, payload bytes: response body for GET, request body for POST)
    "13": ("GET", "/13", 13),
    "64k": ("GET", "/64k", 64 * 1024),
    "1m": ("GET", "/1m", 1024 * 1024),
    "post64k": ("POST", "/post", 64 * 1024),
}
BODY_ALIASES = {"13b": "13", "tiny": "13", "64kib": "64k", "1mib": "1m", "post": "post64k"}

# The default set: every target of issue 4 gets its arm, in about 20 minutes on 2 cores.
DEFAULT_ARMS = ("reverse-tls-h1h1,reverse-tls-h2h1:13,regular-tls-h1h1:13,"
                "regular-tls-h2h2:13,tunnel-tls-h1h1:1m")
QUICK = dict(arms="reverse-tls-h1h1:13+post64k,regular-tls-h1h1:13,tunnel-tls-h1h1:1m",
             conc="8,64", reps=2, duration=1.5, warmup=0.5, proxy_warmup=3)

ARM_RE = re.compile(r"^(reverse|regular|tunnel)-(tls|clear)-(h1|h2|h3)(h1|h2)$")
SYSTEMS = ("direct", "nginx", "loupe", "mitmdump", "caddy", "loupe-full", "loupe-b")
# "loupe-full": a second Loupe with one rule that matches every flow (a request-header rewrite), so
# every flow takes the full tier (collected whole, rules run, re-sent) instead of the relay tier.
# Only measured when --systems names it; its rows get a "÷ loupe" column (full ÷ relay, same run).
# "loupe-b": a second Loupe started with --loupe-b-args on top of --loupe-args (an A/B in one run,
# e.g. one observe-only plugin loaded vs none); measured when --systems names it, with a "÷ loupe" column.
FULL_TIER_RULES = ('[{"name": "every flow", "enabled": true, "filter": "", "action": {"type": "rewrite", '
                   '"ops": [{"side": "REQUEST", "kind": "SET_HEADER", "match": "X-Loupe-Bench", "value": "1"}]}}]')


def log(msg):
    print("[probe] %s" % msg, file=sys.stderr, flush=True)


def die(msg):
    log("ERROR: " + msg)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# arms


class Arm:
    def __init__(self, spec, default_bodies):
        name, _, bodies = spec.partition(":")
        m = ARM_RE.match(name)
        if not m:
            die("bad arm %r: want MODE-TLS-CLIENTORIGIN, e.g. reverse-tls-h2h1 "
                "(MODE reverse|regular|tunnel, TLS tls|clear, protocols h1|h2)" % spec)
        self.name = name
        self.mode, self.tls, self.client, self.origin = m.groups()
        self.bodies = parse_bodies(bodies.replace("+", ",")) if bodies else list(default_bodies)
        if self.mode == "tunnel" and self.client != self.origin:
            die("%s: a tunnel relays bytes, so client and origin protocol are the same" % name)
        if self.mode == "regular" and self.tls == "clear" and (self.client, self.origin) != ("h1", "h1"):
            die("%s: a plain forward proxy takes HTTP/1.1 absolute-form requests only" % name)
        if self.client == "h3" and (self.mode, self.tls) != ("reverse", "tls"):
            die("%s: HTTP/3 clients reach a proxy only in reverse mode, over TLS (QUIC): "
                "reverse-tls-h3h1 or reverse-tls-h3h2" % name)

    @property
    def scheme(self):
        return "https" if self.tls == "tls" else "http"

    def systems(self):
        """The systems that can serve this arm, in the order used for the A of A B B A."""
        if self.client == "h3":
            # HTTP/3 reverse proxies only: the origin nginx 1.22, the nginx peer and mitmproxy 8
            # speak no HTTP/3, so there is no direct ceiling; Caddy's reverse_proxy is the peer.
            return ["loupe", "caddy"]
        s = ["direct"]
        if self.mode == "reverse" and self.origin == "h1":
            s.append("nginx")  # nginx 1.22 speaks HTTP/1.1 (only) to upstreams
        s.append("loupe")
        # mitmproxy 8: no h2c, and it picks its upstream protocol from the client's ALPN, so
        # it cannot serve an h1 client with an h2 origin.
        mitm_ok = not (self.tls == "clear" and "h2" in (self.client, self.origin))
        mitm_ok = mitm_ok and not (self.client == "h1" and self.origin == "h2")
        # ... and in regular mode it offers the origin only the client's ALPN list, so an
        # h2-only client meets an h1 origin with "no application protocol" (502).
        mitm_ok = mitm_ok and not (self.mode == "regular" and self.client == "h2" and self.origin == "h1")
        if mitm_ok:
            s.append("mitmdump")
        return s


WARMUP_CHUNK = 10.0


def warmup_plan(total, bodies, conc_list, warmup_conc):
    """The proxy warm-up as (body, connections, seconds) steps: `total` s split over the bodies, then
    over the concurrencies (`warmup_conc` when given, else every step of `conc_list`, the largest last),
    each in chunks of at most WARMUP_CHUNK s (at least 1 s)."""
    concs = [warmup_conc] if warmup_conc else sorted(set(conc_list))
    plan = []
    per_body = max(1.0, total / len(bodies))
    for body in bodies:
        per_conc = max(1.0, per_body / len(concs))
        for conc in concs:
            left = per_conc
            while left > 0:
                secs = min(WARMUP_CHUNK, left)
                if secs < 1.0 and plan:
                    break
                plan.append((body, conc, max(1.0, secs)))
                left -= secs
    return plan


def parse_bodies(text):
    out = []
    for b in text.split(","):
        b = b.strip().lower()
        if not b:
            continue
        b = BODY_ALIASES.get(b, b)
        if b not in BODIES:
            die("unknown body %r (known: %s)" % (b, ", ".join(BODIES)))
        out.append(b)
    return out


# ---------------------------------------------------------------------------------------------
# processes


def free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


class Proc:
    """A child process in its own process group, stopped by PID (TERM, then KILL)."""

    def __init__(self, name, argv, logdir, cpus=None, env=None):
        self.name = name
        if cpus:
            argv = ["taskset", "-c", cpus] + list(argv)
        self.out = open(logdir / ("%s.log" % name), "ab")
        self.p = subprocess.Popen(argv, stdout=self.out, stderr=subprocess.STDOUT,
                                  stdin=subprocess.DEVNULL, start_new_session=True, env=env)
        self.pid = self.p.pid

    def alive(self):
        return self.p.poll() is None

    def stop(self):
        if self.p.poll() is None:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.p.wait(10)
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                self.p.wait()
        self.out.close()


def proc_tree(pid):
    out = [pid]
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as f:
                for c in f.read().split():
                    out.extend(proc_tree(int(c)))
    except OSError:
        pass
    return out


def cpu_ticks(pids):
    t = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            t += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
        except (OSError, IndexError, ValueError):
            pass
    return t


def status_kib(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def reset_hwm(pids):
    """Resets VmHWM to the current RSS (Linux >= 4.0, needs to own the process)."""
    ok = True
    for p in pids:
        try:
            with open("/proc/%d/clear_refs" % p, "w") as f:
                f.write("5")
        except OSError:
            ok = False
    return ok


ALLOC_JFC = """<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="probe-alloc">
  <event name="jdk.ThreadAllocationStatistics">
    <setting name="enabled">true</setting>
    <setting name="period">everyChunk</setting>
  </event>
</configuration>
"""


def java_pid(pid):
    """The JVM in a proxy's process tree (the proxy may run under taskset), or None."""
    for p in proc_tree(pid):
        try:
            with open("/proc/%d/comm" % p) as f:
                if f.read().strip() == "java":
                    return p
        except OSError:
            pass
    return None


class AllocRecorder:
    """Bytes a JVM allocates over a window, from JFR's per-thread allocation counters
    (jdk.ThreadAllocationStatistics at the start and the end of a recording made with jcmd).
    Threads started inside the window count from zero. Returns (bytes, seconds) or None."""

    def __init__(self, pid, workdir):
        self.pid = java_pid(pid)
        self.jfc = workdir / "probe-alloc.jfc"
        if not self.jfc.exists():
            self.jfc.write_text(ALLOC_JFC)
        self.out = workdir / ("alloc-%d-%d.jfr" % (self.pid or 0, int(time.time() * 1000)))
        self.name = "probe-alloc-%d" % int(time.time() * 1000)

    def _jcmd(self, *args):
        return subprocess.run(["jcmd", str(self.pid)] + list(args), capture_output=True, text=True, timeout=60)

    def start(self):
        if self.pid:
            self._jcmd("JFR.start", "name=" + self.name, "settings=" + str(self.jfc))

    def stop(self):
        if self.pid:
            self._jcmd("JFR.stop", "name=" + self.name, "filename=" + str(self.out))

    def result(self):
        if not self.out.exists():
            return None
        r = subprocess.run(["jfr", "print", "--json", "--events", "jdk.ThreadAllocationStatistics", str(self.out)],
                           capture_output=True, text=True, timeout=120)
        try:
            events = json.loads(r.stdout)["recording"]["events"]
        except (ValueError, KeyError):
            return None
        if not events:
            return None
        def when(e):
            return datetime.datetime.fromisoformat(e["values"]["startTime"][:26].rstrip("Z"))
        t_first = min(when(e) for e in events)
        t_last = max(when(e) for e in events)
        # JFR writes one event per thread at each chunk's start and end, a few microseconds apart:
        # a thread whose first event is not near the start was started inside the window.
        near_start = datetime.timedelta(milliseconds=200)
        per = {}
        for e in sorted(events, key=when):
            tid = e["values"]["thread"]["javaThreadId"] if e["values"].get("thread") else None
            v = e["values"]["allocated"]
            if tid not in per:
                per[tid] = [v if when(e) - t_first <= near_start else 0, v]
            per[tid][1] = v
        total = sum(last - first for first, last in per.values())
        secs = (t_last - t_first).total_seconds()
        return (total, secs) if secs > 0 else None


class Sampler(threading.Thread):
    """Measures a proxy over the measured window [t0 + warm, t0 + warm + dur] of one step:
    CPU ticks (utime+stime, all processes of the proxy) and peak RSS (VmHWM after a reset at
    the window's start, plus VmRSS sampled every 100 ms; the larger wins). For nginx the
    master's and workers' figures are summed."""

    def __init__(self, pid, t0, warm, dur, alloc=None):
        super().__init__(daemon=True)
        self.pid, self.t0, self.warm, self.dur = pid, t0, warm, dur
        self.alloc = alloc  # an AllocRecorder started and stopped with the window, or None
        self.stop_ev = threading.Event()
        self.cpu_pct = float("nan")
        self.rss_mib = float("nan")

    def run(self):
        if self.stop_ev.wait(max(0.0, self.t0 + self.warm - time.time())):
            return
        if self.alloc:
            self.alloc.start()
        try:
            self._measure()
        finally:
            if self.alloc:
                self.alloc.stop()

    def _measure(self):
        pids = proc_tree(self.pid)
        c0, w0 = cpu_ticks(pids), time.time()
        reset_hwm(pids)
        peak = 0
        end = self.t0 + self.warm + self.dur
        while True:
            # processes started inside the window count from zero (a freshly launched nginx forks its
            # workers after its port already accepts: --first-seconds)
            pids = sorted(set(pids) | set(proc_tree(self.pid)))
            peak = max(peak, sum(status_kib(p, "VmRSS") for p in pids))
            if self.stop_ev.wait(min(0.1, max(0.0, end - time.time()))) or time.time() >= end:
                break
        c1, w1 = cpu_ticks(pids), time.time()
        peak = max(peak, sum(status_kib(p, "VmHWM") for p in pids))
        self.cpu_pct = 100.0 * (c1 - c0) / HZ / max(1e-3, w1 - w0)
        self.rss_mib = peak / 1024.0


# ---------------------------------------------------------------------------------------------
# environment: PKI, origin, peers


class Env:
    def __init__(self, args, work):
        self.args = args
        self.w = work
        self.logs = work / "logs"
        self.logs.mkdir(parents=True)
        self.procs = []
        (self.O_TLS, self.O_TLS1, self.O_CLR, self.O_H2C,
         self.N_TLS, self.N_CLR, self.N_H2C, self.LOUPE, self.MITM, self.CADDY, self.LOUPE_FULL,
         self.LOUPE_B) = free_ports(12)
        self.h3_ca = {}  # system -> CA file LoadGen trusts for its HTTP/3 listener
        self.nginx_bin = shutil.which("nginx") or "/usr/sbin/nginx"
        self.pin = parse_pin(args.pin)

    # -- PKI
    def make_pki(self):
        pki = self.w / "pki"
        pki.mkdir()
        q = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        subprocess.run(["openssl", "req", "-x509", "-new", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", pki / "ca-key.pem",
                        "-out", pki / "ca.pem", "-days", "30", "-subj", "/CN=probe origin CA",
                        "-addext", "basicConstraints=critical,CA:TRUE",
                        "-addext", "keyUsage=critical,keyCertSign,cRLSign"], **q)
        subprocess.run(["openssl", "req", "-new", "-newkey", "ec", "-pkeyopt",
                        "ec_paramgen_curve:P-256", "-nodes", "-keyout", pki / "leaf-key.pem",
                        "-out", pki / "leaf.csr", "-subj", "/CN=localhost"], **q)
        (pki / "leaf.ext").write_text(
            "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n"
            "extendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n")
        serial = "0x" + os.urandom(16).hex()
        subprocess.run(["openssl", "x509", "-req", "-in", pki / "leaf.csr", "-CA", pki / "ca.pem",
                        "-CAkey", pki / "ca-key.pem", "-set_serial", serial, "-days", "30",
                        "-extfile", pki / "leaf.ext", "-out", pki / "leaf.pem"], **q)
        self.ca = pki / "ca.pem"
        self.leaf, self.leaf_key = pki / "leaf.pem", pki / "leaf-key.pem"
        # bodies
        www = self.w / "www"
        www.mkdir()
        for name, size in (("13", 13), ("64k", 65536), ("1m", 1048576)):
            data = b"hello, world\n" if size == 13 else os.urandom(size)
            (www / name).write_bytes(data)
        self.www = www
        self.post_file = self.w / "post64k.bin"
        self.post_file.write_bytes(os.urandom(65536))

    # -- nginx configs
    def nginx_common(self, d, workers):
        user = "user root;" if os.getuid() == 0 else ""
        return f"""{user}
worker_processes {workers};
pid {d}/nginx.pid;
error_log {d}/error.log error;
events {{ worker_connections 8192; }}
http {{
    access_log off;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate {self.leaf};
    ssl_certificate_key {self.leaf_key};
    ssl_session_cache shared:SSL:10m;
    keepalive_requests 100000000;
    keepalive_timeout 300s;
    http2_max_concurrent_streams 256;
    client_max_body_size 2m;
    client_body_buffer_size 128k;
    sendfile on;
"""

    def start_origin(self):
        d = self.w / "origin"
        (d / "tmp").mkdir(parents=True)
        # POST /post: nginx reads the whole body (proxy request buffering), drops it, and
        # answers /13 fetched from itself over a keepalive connection. (`return 200` would
        # skip reading it, and nginx 1.22's discard path stalls HTTP/2 uploads at ~130 req/s.)
        locs = f"""
        root {self.www};
        default_type application/octet-stream;
        location = /post {{
            proxy_pass http://origin_self/13;
            proxy_method GET;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_http_version 1.1;
            proxy_set_header Connection "";
        }}
"""
        conf = self.nginx_common(d, self.args.origin_workers) + f"""
    upstream origin_self {{ server 127.0.0.1:{self.O_CLR}; keepalive 64; }}
    server {{ listen 127.0.0.1:{self.O_TLS} ssl http2; {locs} }}
    server {{ listen 127.0.0.1:{self.O_TLS1} ssl; {locs} }}
    server {{ listen 127.0.0.1:{self.O_CLR}; {locs} }}
    # sendfile off: nginx 1.22 h2c with sendfile answers a small file only every ~40 ms.
    server {{ listen 127.0.0.1:{self.O_H2C} http2; sendfile off; {locs} }}
}}
"""
        (d / "nginx.conf").write_text(conf)
        p = self.start("origin", [self.nginx_bin, "-p", str(d), "-c", str(d / "nginx.conf"),
                                  "-g", "daemon off;"], self.pin.get("origin"))
        self.wait_ready(p, "https://127.0.0.1:%d/13" % self.O_TLS)
        self.wait_ready(p, "http://127.0.0.1:%d/13" % self.O_CLR)
        self.check_post()
        return p

    def check_post(self):
        r = subprocess.run(["curl", "--noproxy", "*", "-sk", "--max-time", "5", "--data-binary",
                            "@%s" % self.post_file, "https://127.0.0.1:%d/post" % self.O_TLS],
                           capture_output=True, text=True)
        if r.stdout != "hello, world\n":
            die("origin POST /post answered %r" % r.stdout)

    def start_nginx_rp(self, wait=True):
        d = self.w / "nginx-rp"
        (d / "tmp").mkdir(parents=True, exist_ok=True)
        up = """
        proxy_http_version 1.1;
        proxy_set_header Connection "";
"""
        conf = self.nginx_common(d, self.args.nginx_workers) + f"""
    upstream origin_tls {{
        server 127.0.0.1:{self.O_TLS1};
        keepalive 1024; keepalive_requests 100000000; keepalive_timeout 300s;
    }}
    upstream origin_clear {{
        server 127.0.0.1:{self.O_CLR};
        keepalive 1024; keepalive_requests 100000000; keepalive_timeout 300s;
    }}
    server {{
        listen 127.0.0.1:{self.N_TLS} ssl http2;
        location / {{
            proxy_pass https://origin_tls; {up}
            proxy_ssl_session_reuse on;
            proxy_ssl_verify on;
            proxy_ssl_trusted_certificate {self.ca};
            proxy_ssl_name localhost;
            proxy_ssl_protocols TLSv1.2 TLSv1.3;
        }}
    }}
    server {{ listen 127.0.0.1:{self.N_CLR}; location / {{ proxy_pass http://origin_clear; {up} }} }}
    server {{ listen 127.0.0.1:{self.N_H2C} http2; location / {{ proxy_pass http://origin_clear; {up} }} }}
}}
"""
        (d / "nginx.conf").write_text(conf)
        p = self.start("nginx", [self.nginx_bin, "-p", str(d), "-c", str(d / "nginx.conf"),
                                 "-g", "daemon off;"], self.pin.get("proxy"))
        if wait:
            self.wait_ready(p, "https://127.0.0.1:%d/13" % self.N_TLS)
        return p

    def origin_port(self, arm, proto):
        if arm.tls == "tls":
            return self.O_TLS1 if proto == "h1" else self.O_TLS
        return self.O_CLR if proto == "h1" else self.O_H2C

    def loupe_command(self, b=False):
        """How a Loupe system is launched: --loupe-cmd / --loupe-b-cmd (e.g. the packaged launcher,
        installer/target/app-image/Loupe/bin/Loupe), else java LOUPE_JAVA_OPTS -jar JAR."""
        a = self.args
        cmd = a.loupe_b_cmd if b else a.loupe_cmd
        if cmd:
            return shlex.split(cmd)
        return ["java"] + a.loupe_java_opts.split() + ["-jar", (a.loupe_b_jar or a.loupe_jar) if b else a.loupe_jar]

    def start_loupe(self, arm, full=False, b=False, wait=True):
        a = self.args
        confdir = self.w / ("loupe-b-conf" if b else "loupe-conf")
        port = self.LOUPE_FULL if full else self.LOUPE_B if b else self.LOUPE
        name = "loupe-full" if full else "loupe-b" if b else "loupe"
        argv = self.loupe_command(b) + ["--headless", "-q",
            "--listen", "127.0.0.1:%d" % port,
            "--confdir", str(confdir), "--trust-ca", str(self.ca),
            "--upstream-protocol", arm.origin]
        if arm.mode == "reverse":
            argv += ["--mode", "reverse:%s://127.0.0.1:%d" % (arm.scheme, self.origin_port(arm, arm.origin))]
        elif arm.mode == "tunnel":
            argv += ["--ignore-hosts", r"^127\.0\.0\.1(:\d+)?$"]
        argv += a.loupe_args.split()
        env = None
        if b:
            argv += shlex.split(a.loupe_b_args)
            if a.loupe_b_lines:
                argv.remove("-q")  # the per-flow line on (into the probe's log file for this system)
            if a.loupe_b_window:
                # the desktop window (live flow table, session autosave) on a virtual display: the same
                # options, only without --headless; the window also prints no per-flow line with -q
                argv.remove("--headless")
                env = dict(os.environ, DISPLAY=self.window_display())
        if full:
            rules = self.w / "full-tier-rules.json"
            rules.write_text(FULL_TIER_RULES)
            argv += ["--rules", str(rules)]
        p = self.start(name + "-" + arm.name, argv, self.pin.get("proxy"), env=env)
        if not wait:
            return p
        self.wait_up(p, arm, port)
        if arm.client == "h3":
            # the CA that mints the HTTP/3 listener's certificates (LoadGen checks it and the host)
            jar = (a.loupe_b_jar or a.loupe_jar) if b else a.loupe_jar
            r = subprocess.run(["java", "-jar", jar, "ca", "path", "--confdir", str(confdir)],
                               capture_output=True, text=True, timeout=60)
            path = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
            if not path or not os.path.isfile(path):
                die("loupe ca path printed %r (stderr %r)" % (r.stdout, r.stderr[-300:]))
            self.h3_ca[name] = path
        return p

    def start_caddy(self, arm, wait=True):
        """Caddy as an HTTP/3 reverse proxy (it also serves h1/h2 over TCP on the same port, used
        for the readiness check) with the probe's leaf certificate, to the same origin as Loupe:
        TLS, origin CA trusted, host checked, keep-alive pool as large as the nginx peer's."""
        d = self.w / "caddy"
        d.mkdir(exist_ok=True)
        up = self.origin_port(arm, arm.origin)
        scheme = "https" if arm.tls == "tls" else "http"
        transport = ""
        if arm.tls == "tls":
            transport = f"""
		transport http {{
			tls_trusted_ca_certs {self.ca}
			tls_server_name localhost
			keepalive 300s
			keepalive_idle_conns 1024
			keepalive_idle_conns_per_host 1024{"" if arm.origin == "h1" else chr(10) + "			versions 2"}
		}}"""
        (d / "Caddyfile").write_text(f"""{{
	admin off
	auto_https off
	storage file_system {d}/data
	servers {{
		protocols h1 h2 h3
	}}
}}
https://127.0.0.1:{self.CADDY} {{
	bind 127.0.0.1
	tls {self.leaf} {self.leaf_key}
	reverse_proxy {scheme}://127.0.0.1:{up} {{{transport}
	}}
}}
""")
        env = dict(os.environ, XDG_DATA_HOME=str(d / "xdg"), XDG_CONFIG_HOME=str(d / "xdg"), HOME=str(d))
        p = self.start("caddy-" + arm.name, ["caddy", "run", "--config", d / "Caddyfile", "--adapter",
                                             "caddyfile"], self.pin.get("proxy"), env=env)
        if wait:
            self.wait_up(p, arm, self.CADDY)
        self.h3_ca["caddy"] = str(self.ca)
        return p

    def start_mitmdump(self, arm, wait=True):
        argv = ["mitmdump", "--listen-host", "127.0.0.1", "--listen-port", str(self.MITM),
                "--set", "confdir=%s" % (self.w / "mitm"), "-q", "--set", "flow_detail=0",
                "--set", "ssl_verify_upstream_trusted_ca=%s" % self.ca]
        if arm.mode == "reverse":
            argv += ["--mode", "reverse:%s://127.0.0.1:%d" % (arm.scheme, self.origin_port(arm, arm.origin)),
                     "--set", "connection_strategy=lazy"]
        else:
            argv += ["--mode", "regular"]
            if arm.mode == "tunnel":
                argv += ["--ignore-hosts", r"^127\.0\.0\.1(:\d+)?$"]
        p = self.start("mitmdump-" + arm.name, argv, self.pin.get("proxy"))
        if wait:
            self.wait_up(p, arm, self.MITM)
        return p

    def window_display(self):
        """A virtual X display (Xvfb) for --loupe-b-window, started once and stopped with the rest."""
        if getattr(self, "xvfb_display", None) is None:
            for n in range(90, 120):
                if not os.path.exists("/tmp/.X11-unix/X%d" % n) and not os.path.exists("/tmp/.X%d-lock" % n):
                    break
            self.start("xvfb", ["Xvfb", ":%d" % n, "-screen", "0", "1400x900x24", "-nolisten", "tcp"])
            deadline = time.time() + 20
            while not os.path.exists("/tmp/.X11-unix/X%d" % n):
                if time.time() > deadline:
                    die("Xvfb :%d did not start (log: %s/xvfb.log)" % (n, self.logs))
                time.sleep(0.1)
            self.xvfb_display = ":%d" % n
        return self.xvfb_display

    def start(self, name, argv, cpus=None, env=None):
        p = Proc(name, [str(x) for x in argv], self.logs, cpus, env)
        self.procs.append(p)
        return p

    def wait_up(self, p, arm, port):
        if arm.mode == "reverse":
            self.wait_ready(p, "%s://127.0.0.1:%d/13" % (arm.scheme, port))
        else:
            self.wait_ready(p, "%s://127.0.0.1:%d/13" % (arm.scheme, self.origin_port(arm, arm.origin)),
                            proxy="http://127.0.0.1:%d" % port)

    def wait_accepts(self, p, port, timeout=120):
        """Waits until 127.0.0.1:port accepts a TCP connection (polled every 5 ms; no request is
        sent, so the first request the proxy sees is the load's). Returns that moment (time.time())."""
        deadline = time.time() + timeout
        while True:
            s = socket.socket()
            try:
                s.settimeout(0.5)
                s.connect(("127.0.0.1", port))
                return time.time()
            except OSError:
                pass
            finally:
                s.close()
            if not p.alive():
                die("%s exited before it listened (log: %s/%s.log)" % (p.name, self.logs, p.name))
            if time.time() > deadline:
                die("%s not listening after %d s" % (p.name, timeout))
            time.sleep(0.005)

    def wait_ready(self, p, url, proxy=None, timeout=90):
        deadline = time.time() + timeout
        argv = ["curl", "-sk", "--max-time", "5", url]
        argv += ["--proxy", proxy, "--proxy-insecure"] if proxy else ["--noproxy", "*"]
        while True:
            r = subprocess.run(argv, capture_output=True, text=True)
            if r.stdout == "hello, world\n":
                return
            if not p.alive():
                die("%s exited before it was ready (log: %s/%s.log)" % (p.name, self.logs, p.name))
            if time.time() > deadline:
                die("%s not ready after %d s: %s" % (p.name, timeout, url))
            time.sleep(0.2)

    def stop(self, p):
        p.stop()
        if p in self.procs:
            self.procs.remove(p)

    def stop_all(self):
        for p in reversed(list(self.procs)):
            self.stop(p)


def parse_pin(spec):
    """--pin origin=0,proxy=1,gen=0 (taskset CPU lists); --pin auto picks a split."""
    if not spec:
        return {}
    if spec == "auto":
        n = os.cpu_count() or 1
        if n >= 4:
            return {"origin": "0", "gen": "1", "proxy": "2-%d" % (n - 1)}
        if n >= 2:
            return {"origin": "0", "gen": "0", "proxy": "1"}
        return {}
    out = {}
    for part in spec.split(";" if ";" in spec else " "):
        if part:
            k, _, v = part.partition("=")
            out[k.strip()] = v.strip()
    return out


# ---------------------------------------------------------------------------------------------
# load generators


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    return sorted_vals[min(len(sorted_vals) - 1, int(q * len(sorted_vals)))]


def run_h2load(env, url, proto, conc, body, warm, dur, tag, cpus):
    a = env.args
    method, _, _ = BODIES[body]
    logf = env.w / "h2load.log"
    if logf.exists():
        logf.unlink()
    argv = ["h2load", "-c", str(conc), "-t", str(min(conc, a.gen_threads)),
            "-D", "%dms" % ((warm + dur) * 1000), "--log-file", str(logf)]
    # No --warm-up-time: h2load 1.52 sometimes starts no request at all with it (seen with
    # --h1 -d). The warm-up is cut from the per-request log instead (last DUR s of starts).
    argv += ["--h1"] if proto == "h1" else ["-m", str(a.streams)]
    if method == "POST":
        argv += ["-d", str(env.post_file)]
    argv.append(url)
    if cpus:
        argv = ["taskset", "-c", cpus] + argv
    hung = False
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=warm + dur + 30)
        text = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        hung = True
        text = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
    (env.logs / "gen-last.txt").write_text(" ".join(argv) + "\n" + text)
    res = dict(requests=0, rps=0.0, p50_ms=float("nan"), p99_ms=float("nan"),
               max_ms=float("nan"), errors=0, error_detail="", hung=hung)
    m = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
                  r"(\d+) failed, (\d+) errored, (\d+) timeout", text)
    sc = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", text)
    failed = int(m.group(5)) if m else 0
    timeouts = int(m.group(7)) if m else 0
    non2xx = sum(int(sc.group(i)) for i in (2, 3, 4)) if sc else 0
    # h2load: "failed" counts every request that did not succeed (errored, i.e. stream/
    # connection errors, and non-2xx/3xx answers); 3xx is counted as non-2xx here.
    # Latency and req/s come from the per-request log, requests started in the last DUR s.
    rows = []
    try:
        with open(logf) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3:
                    rows.append((int(p[0]), int(p[1]), int(p[2])))
    except OSError:
        pass
    if rows:
        lo = min(r[0] for r in rows) + warm * 1e6
        rows = [r for r in rows if lo <= r[0] < lo + dur * 1e6]
    ok = sorted(r[2] / 1000.0 for r in rows if 200 <= r[1] < 300)
    bad = sum(1 for r in rows if not 200 <= r[1] < 300)
    # for --first-seconds: when each successful request started and ended (epoch microseconds)
    res["ok_times"] = [(r[0], r[0] + r[2]) for r in rows if 200 <= r[1] < 300]
    mr = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", text)
    res["rps"] = len(ok) / dur if rows else (float(mr.group(1)) if mr else 0.0)
    res["requests"] = len(ok)
    res["p50_ms"], res["p99_ms"] = pct(ok, 0.50), pct(ok, 0.99)
    res["max_ms"] = ok[-1] if ok else float("nan")
    errs = max(failed, bad) + timeouts
    if hung:
        errs = max(errs, conc)
    res["errors"] = errs
    detail = []
    if failed:
        detail.append("failed=%d" % failed)
    if non2xx:
        detail.append("non2xx=%d" % non2xx)
    if timeouts:
        detail.append("timeout=%d" % timeouts)
    if hung:
        detail.append("hung")
    res["error_detail"] = " ".join(detail)
    return res


class LoadGenServer:
    """One LoadGen JVM for the whole session (`--serve`: one run per stdin line, one JSON line
    out), so its JIT is warm for every step; restarted if a run hangs."""

    def __init__(self, env):
        self.env = env
        self.p = None

    def start(self):
        a, env = self.env.args, self.env
        argv = ["java"] + a.loadgen_java_opts.split() + ["-jar", str(a.loadgen_jar), "--serve"]
        cpus = env.pin.get("gen")
        if cpus:
            argv = ["taskset", "-c", cpus] + argv
        self.err = open(env.logs / "loadgen.log", "ab")
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=self.err, start_new_session=True, text=True, bufsize=1)

    def run(self, args, timeout):
        if self.p is None or self.p.poll() is not None:
            self.start()
        self.p.stdin.write(" ".join(args) + "\n")
        self.p.stdin.flush()
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            self.stop()
            return None
        return self.p.stdout.readline()

    def stop(self):
        if self.p is not None:
            try:
                self.p.stdin.close()
            except OSError:
                pass
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.p.pid, signal.SIGKILL)
                self.p.wait()
            self.err.close()
            self.p = None


def run_loadgen(env, url, proto, conc, body, warm, dur, tag, cpus, proxy=None, cacert=None):
    a = env.args
    method, _, size = BODIES[body]
    args = [url, "--" + proto, "-c", str(conc), "-m", str(a.streams if proto in ("h2", "h3") else 1),
            "-t", str(min(conc, a.h3_gen_threads if proto == "h3" else a.gen_threads)),
            "-D", str(dur), "--warmup", str(warm)]
    args += ["--cacert", str(cacert)] if cacert else ["--insecure"]
    if method == "POST":
        args += ["--method", "POST", "--body-size", str(size)]
    if proxy:
        args += ["--proxy", proxy]
    line = env.loadgen.run(args, warm + dur + 40)
    hung = line is None
    (env.logs / "gen-last.txt").write_text("loadgen " + " ".join(args) + "\n" + (line or "(hung)\n"))
    res = dict(requests=0, rps=0.0, p50_ms=float("nan"), p99_ms=float("nan"),
               max_ms=float("nan"), errors=conc if hung else 0, error_detail="hung" if hung else "",
               hung=hung)
    if hung:
        return res
    j = json.loads(line)
    if "error" in j:
        res["errors"] = max(1, conc)
        res["error_detail"] = "loadgen: " + j["error"][:200]
        return res
    res.update(requests=j["requests"], rps=j["rps"], p50_ms=j["p50_ms"], p99_ms=j["p99_ms"],
               max_ms=j["max_ms"], errors=j["errors_total"])
    res["error_detail"] = " ".join("%s=%d" % (k, v) for k, v in sorted(j["errors"].items()) if v)
    if j.get("first_error") and res["errors"]:
        res["error_detail"] += " (first: %s)" % j["first_error"][:160]
    return res


# ---------------------------------------------------------------------------------------------
# the run


CSV_FIELDS = ["run", "arm", "mode", "tls", "client", "origin", "system", "generator", "body",
              "method", "payload_bytes", "conc", "streams", "rep", "order", "duration_s",
              "requests", "rps", "mbps", "p50_ms", "p99_ms", "max_ms", "errors", "error_rate",
              "error_detail", "proxy_cpu_pct", "proxy_rss_mib", "load1", "started", "gen_cpu_pct",
              "alloc_kib_per_req", "first_s", "startup_ms", "rps_from_launch", "rps_per_s"]


class Probe:
    def __init__(self, args):
        self.args = args
        self.stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        self.rows = []
        self.notes = []

    def target_for(self, env, arm, system):
        """(URL, proxy or None, generator) for one system of one arm."""
        a = self.args
        if arm.client == "h3":
            # an IP literal: Netty's QUIC client sends no SNI for "localhost" (the listener then
            # answers with its default certificate); the certificates name 127.0.0.1 too
            port = {"loupe": env.LOUPE, "caddy": env.CADDY, "loupe-full": env.LOUPE_FULL, "loupe-b": env.LOUPE_B}[system]
            return "https://127.0.0.1:%d" % port, None, "loadgen"
        if system == "direct":
            port = env.origin_port(arm, arm.client)
            if arm.tls == "tls":
                port = env.O_TLS  # h1+h2 by ALPN
            url = "%s://127.0.0.1:%d" % (arm.scheme, port)
            gen = "loadgen" if arm.mode != "reverse" else "h2load"
            return url, None, gen
        if arm.mode == "reverse":
            port = {"nginx": {"tls": env.N_TLS, "clear": env.N_H2C if arm.client == "h2" else env.N_CLR}[arm.tls],
                    "loupe": env.LOUPE, "mitmdump": env.MITM, "loupe-full": env.LOUPE_FULL, "loupe-b": env.LOUPE_B}[system]
            return "%s://127.0.0.1:%d" % (arm.scheme, port), None, "h2load"
        url = "%s://127.0.0.1:%d" % (arm.scheme, env.origin_port(arm, arm.origin))
        port = {"loupe": env.LOUPE, "mitmdump": env.MITM, "loupe-full": env.LOUPE_FULL, "loupe-b": env.LOUPE_B}[system]
        return url, "127.0.0.1:%d" % port, "loadgen"

    def gen_for(self, gen):
        forced = self.args.gen
        return gen if forced == "auto" else forced

    def step(self, env, arm, system, proc, body, conc, rep, order, warm, dur, record=True, gen=None,
             first=None):
        """One load run against one system. first: (launch time, listening time) when the system was
        started fresh for this step (--first-seconds): the row then also gets the start-up time,
        req/s counted from the launch, and req/s in each second of the window."""
        a = self.args
        base, proxy, auto_gen = self.target_for(env, arm, system)
        gen = gen or (auto_gen if arm.client == "h3" else self.gen_for(auto_gen))
        url = base + BODIES[body][1]
        load1 = os.getloadavg()[0]
        t0 = time.time()
        sampler = None
        if proc is not None and record:
            alloc = AllocRecorder(proc.pid, env.w) if a.alloc and system.startswith("loupe") else None
            sampler = Sampler(proc.pid, t0, warm, dur, alloc)
            sampler.start()
        # LoadGen's CPU over the same window (one JVM for the session): is the generator the limit?
        gen_sampler = None
        lg = getattr(env, "loadgen", None)
        if record and gen != "h2load" and lg is not None and lg.p is not None and lg.p.poll() is None:
            gen_sampler = Sampler(lg.p.pid, t0, warm, dur)
            gen_sampler.start()
        if gen == "h2load":
            if proxy:
                die("h2load cannot drive an explicit proxy (arm %s)" % arm.name)
            res = run_h2load(env, url, arm.client, conc, body, warm, dur, system, env.pin.get("gen"))
        else:
            res = run_loadgen(env, url, arm.client, conc, body, warm, dur, system,
                              env.pin.get("gen"), proxy,
                              env.h3_ca.get(system) if arm.client == "h3" else None)
        if sampler:
            sampler.stop_ev.set()
            sampler.join()
        if gen_sampler:
            gen_sampler.stop_ev.set()
            gen_sampler.join()
        if not record:
            return res
        method, _, size = BODIES[body]
        total = res["requests"] + res["errors"]
        alloc_kb = ""
        if sampler and sampler.alloc:
            got = sampler.alloc.result()
            if got and res["rps"] > 0:
                alloc_kb = round(got[0] / (res["rps"] * got[1]) / 1024.0, 2)
        row = dict(run=self.stamp, arm=arm.name, mode=arm.mode, tls=arm.tls, client=arm.client,
                   origin=arm.origin, system=system, generator=gen, body=body, method=method,
                   payload_bytes=size, conc=conc, streams=a.streams if arm.client in ("h2", "h3") else 1,
                   rep=rep, order=order, duration_s=dur, requests=res["requests"],
                   rps=round(res["rps"], 1), mbps=round(res["rps"] * size / 1e6, 2),
                   p50_ms=round(res["p50_ms"], 3), p99_ms=round(res["p99_ms"], 3),
                   max_ms=round(res["max_ms"], 3), errors=res["errors"],
                   error_rate=round(res["errors"] / total, 5) if total else 1.0,
                   error_detail=res["error_detail"],
                   proxy_cpu_pct=round(sampler.cpu_pct, 1) if sampler else "",
                   proxy_rss_mib=round(sampler.rss_mib, 1) if sampler else "",
                   load1=round(load1, 2), started=datetime.datetime.fromtimestamp(t0).isoformat(timespec="seconds"),
                   gen_cpu_pct=round(gen_sampler.cpu_pct, 1) if gen_sampler else "",
                   alloc_kib_per_req=alloc_kb, first_s="", startup_ms="", rps_from_launch="", rps_per_s="")
        if first:
            t_launch, t_listen = first
            row["first_s"] = dur
            row["startup_ms"] = round((t_listen - t_launch) * 1000)
            times = res.get("ok_times")
            if times is not None:  # h2load: per-request times; LoadGen reports totals only
                end_launch = (t_launch + dur) * 1e6
                row["rps_from_launch"] = round(sum(1 for _, e in times if e <= end_launch) / dur, 1)
                lo = min((st for st, _ in times), default=0)
                per = [0] * max(1, int(round(dur)))
                for st, _ in times:
                    i = int((st - lo) // 1e6)
                    if 0 <= i < len(per):
                        per[i] += 1
                row["rps_per_s"] = "/".join(str(x) for x in per)
        self.rows.append(row)
        self.writer.writerow(row)
        self.csvf.flush()
        log("%-18s %-8s %-7s c=%-3d rep=%d %9.0f req/s p50 %7.2f p99 %8.2f ms err %d%s%s%s" % (
            arm.name, system, body, conc, rep, res["rps"], res["p50_ms"], res["p99_ms"],
            res["errors"], (" (%s)" % res["error_detail"]) if res["error_detail"] else "",
            (" cpu %.0f%% rss %.0f MiB" % (sampler.cpu_pct, sampler.rss_mib)) if sampler else "",
            (" alloc %.1f KiB/req" % alloc_kb) if alloc_kb != "" else ""))
        return res

    def run(self):
        a = self.args
        out_dir = Path(a.out)
        out_dir.mkdir(parents=True, exist_ok=True)
        self.csv_path = out_dir / (self.stamp + ".csv")
        self.md_path = out_dir / (self.stamp + ".md")
        work = Path(tempfile.mkdtemp(prefix="loupe-probe."))
        env = Env(a, work)
        self.env = env
        self.machine_before = machine_info()
        self.t_start = time.time()
        self.csvf = open(self.csv_path, "w", newline="")
        self.writer = csv.DictWriter(self.csvf, fieldnames=CSV_FIELDS)
        self.writer.writeheader()
        interrupted = False
        try:
            env.make_pki()
            env.start_origin()
            env.loadgen = LoadGenServer(env)
            if a.validate or a.gen == "loadgen" or any(arm.mode != "reverse" or arm.client == "h3"
                                                       for arm in a.arm_list):
                log("warming up the load generator JVM (unmeasured, against the origin)")
                for proto in ("h1", "h2", "h1", "h2"):
                    run_loadgen(env, "https://127.0.0.1:%d/13" % env.O_TLS, proto, 32, "13", 0, 4, "", None)
            log("origin nginx: TLS h1+h2 :%d, TLS h1 :%d, clear h1 :%d, h2c :%d; work dir %s" % (
                env.O_TLS, env.O_TLS1, env.O_CLR, env.O_H2C, work))
            nginx = None
            if not a.validate and not a.first_seconds and any("nginx" in self.systems(arm) for arm in a.arm_list):
                nginx = env.start_nginx_rp()
            if a.validate:
                self.run_validate(env)
            elif a.first_seconds:
                for arm in a.arm_list:
                    self.run_first(env, arm)
            else:
                for arm in a.arm_list:
                    self.run_arm(env, arm, nginx)
        except KeyboardInterrupt:
            interrupted = True
            log("interrupted: writing what was measured")
        finally:
            if getattr(env, "loadgen", None):
                env.loadgen.stop()
            env.stop_all()
            self.csvf.close()
            self.t_end = time.time()
            self.machine_after = machine_info()
            if self.rows and a.validate:
                self.md_path.write_text(self.header(interrupted) + "\n" + self.validate_summary())
                log("validation:\n" + self.validate_summary())
            elif self.rows and a.first_seconds:
                self.md_path.write_text(self.header(interrupted) + "\n" + self.first_summary())
                log("first seconds:\n" + self.first_summary())
                log("results: %s and %s" % (self.csv_path, self.md_path))
            elif self.rows:
                self.md_path.write_text(self.summary(interrupted))
                log("results: %s and %s" % (self.csv_path, self.md_path))
            if a.keep_work:
                log("work dir kept: %s" % work)
            else:
                shutil.rmtree(work, ignore_errors=True)
        return 130 if interrupted else 0

    def run_first(self, env, arm):
        """--first-seconds N: each system is launched fresh for each step, the load starts the
        moment its port accepts a TCP connection (no readiness request, no warm-up), and the first
        N seconds are measured. Reps alternate the system order (A B B A)."""
        a = self.args
        systems = [s for s in self.systems(arm) if s not in ("direct", "loupe-full")]
        log("first %g s after launch, arm %s: systems %s, bodies %s, conc %s, %d reps" % (
            a.first_seconds, arm.name, " ".join(systems), " ".join(arm.bodies), a.conc_list, a.reps))
        ports = {"nginx": None, "loupe": env.LOUPE, "loupe-b": env.LOUPE_B, "mitmdump": env.MITM,
                 "caddy": env.CADDY}
        for body in arm.bodies:
            for conc in a.conc_list:
                for rep in range(1, a.reps + 1):
                    order = systems if rep % 2 == 1 else list(reversed(systems))
                    for i, s in enumerate(order):
                        t_launch = time.time()
                        if s == "nginx":
                            p = env.start_nginx_rp(wait=False)
                            port = {"tls": env.N_TLS, "clear": env.N_H2C if arm.client == "h2" else env.N_CLR}[arm.tls]
                        elif s in ("loupe", "loupe-b"):
                            p = env.start_loupe(arm, b=(s == "loupe-b"), wait=False)
                            port = ports[s]
                        elif s == "mitmdump":
                            p = env.start_mitmdump(arm, wait=False)
                            port = ports[s]
                        else:
                            p = env.start_caddy(arm, wait=False)
                            port = ports[s]
                        try:
                            t_listen = env.wait_accepts(p, port)
                            self.step(env, arm, s, p, body, conc, rep, i + 1, 0, a.first_seconds,
                                      first=(t_launch, t_listen))
                        finally:
                            env.stop(p)

    def first_summary(self):
        """The --first-seconds table: medians over reps of each system's first N seconds."""
        a = self.args
        rows = [r for r in self.rows if r.get("first_s") not in ("", None)]
        if not rows:
            return ""
        n = float(rows[0]["first_s"])

        def med(vals):
            vals = [float(v) for v in vals if v not in ("", None)]
            return statistics.median(vals) if vals else float("nan")

        def f(x, fmt="%.0f"):
            return "–" if x != x else fmt % x

        out = ["## First %g s after launch (each system started fresh per step)\n" % n,
               "Load starts the moment the port accepts a TCP connection; nothing warms the system first. "
               "*from listening*: successful requests started in the first %g s of load ÷ %g; *from launch*: "
               "requests finished by launch + %g s ÷ %g (start-up time counts against it). Per-second column: "
               "medians over reps of the requests started in each second of the load. Target (issue 19): "
               "Loupe ≥ 0.8× nginx.\n" % (n, n, n, n),
               "| arm | body | c | system | launch → listening ms | req/s from listening | ÷ nginx | "
               "req/s from launch | ÷ nginx | req/s per second | CPU % | CPU µs per request | ÷ nginx | peak RSS MiB | "
               "per rep (from listening) |",
               "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        keys = []
        for r in rows:
            k = (r["arm"], r["body"], int(r["conc"]), r["system"])
            if k not in keys:
                keys.append(k)
        agg = {}
        for k in keys:
            rs = [r for r in rows if (r["arm"], r["body"], int(r["conc"]), r["system"]) == k]
            per_s = [[float(x) for x in str(r["rps_per_s"]).split("/")] for r in rs if r.get("rps_per_s")]
            series = [statistics.median(col) for col in zip(*per_s)] if per_s else []
            agg[k] = dict(startup=med(r["startup_ms"] for r in rs), rps=med(r["rps"] for r in rs),
                          launch=med(r["rps_from_launch"] for r in rs), series=series,
                          cpu=med(r["proxy_cpu_pct"] for r in rs),
                          # CPU per request: robust to a loaded machine, unlike req/s (the proxy's CPU
                          # over the window ÷ the requests it served in it; median over reps)
                          cpu_us=med(float(r["proxy_cpu_pct"]) * 1e4 / float(r["rps"]) for r in rs
                                     if r["proxy_cpu_pct"] != "" and float(r["rps"]) > 0),
                          rss=max([float(r["proxy_rss_mib"]) for r in rs if r["proxy_rss_mib"] != ""] or [float("nan")]),
                          per_rep=[float(r["rps"]) for r in rs])
        for k in keys:
            g = agg[k]
            ng = agg.get((k[0], k[1], k[2], "nginx"))
            r1 = g["rps"] / ng["rps"] if ng and ng["rps"] else float("nan")
            r2 = g["launch"] / ng["launch"] if ng and ng["launch"] else float("nan")
            r3 = g["cpu_us"] / ng["cpu_us"] if ng and ng["cpu_us"] else float("nan")
            out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                k[0], k[1], k[2], k[3], f(g["startup"]), f(g["rps"]),
                ("**%.2f×**" % r1) if k[3] != "nginx" and r1 == r1 else "–", f(g["launch"]),
                ("%.2f×" % r2) if k[3] != "nginx" and r2 == r2 else "–",
                " ".join("%.0f" % x for x in g["series"]) or "–", f(g["cpu"]), f(g["cpu_us"]),
                ("%.1f×" % r3) if k[3] != "nginx" and r3 == r3 else "–", f(g["rss"]),
                " / ".join("%.0f" % x for x in g["per_rep"])))
        return "\n".join(out) + "\n"

    def run_validate(self, env):
        """LoadGen against h2load on the arms both can run: direct TLS tiny GET, h2 and h1,
        each concurrency step, generators alternated (A B B A)."""
        a = self.args
        for proto in ("h2", "h1"):
            arm = Arm("reverse-tls-%s%s" % (proto, proto), ["13"])
            for conc in a.conc_list:
                for rep in range(1, a.reps + 1):
                    gens = ["h2load", "loadgen"] if rep % 2 else ["loadgen", "h2load"]
                    for i, g in enumerate(gens):
                        self.step(env, arm, "direct", None, "13", conc, rep, i + 1, a.warmup,
                                  a.duration, gen=g)

    def validate_summary(self):
        a = self.args
        out = ["## Generator validation: LoadGen vs h2load (direct to the origin, TLS, 13 B GET)\n",
               "| client | c | h2load req/s (median) | LoadGen req/s (median) | LoadGen ÷ h2load | "
               "h2load p50 / p99 ms | LoadGen p50 / p99 ms | per rep h2load | per rep LoadGen |",
               "|---|---|---|---|---|---|---|---|---|"]
        for proto in ("h2", "h1"):
            for conc in a.conc_list:
                rs = [r for r in self.rows if r["client"] == proto and r["conc"] == conc]
                if not rs:
                    continue
                by = {g: [r for r in rs if r["generator"] == g] for g in ("h2load", "loadgen")}
                med = {g: statistics.median([float(r["rps"]) for r in v]) if v else float("nan") for g, v in by.items()}
                lat = {g: "%.2f / %.2f" % (statistics.median([float(r["p50_ms"]) for r in v]),
                                           statistics.median([float(r["p99_ms"]) for r in v])) if v else "–"
                       for g, v in by.items()}
                out.append("| %s | %d | %.0f | %.0f | **%.2f** | %s | %s | %s | %s |" % (
                    proto, conc, med["h2load"], med["loadgen"],
                    med["loadgen"] / med["h2load"] if med["h2load"] else float("nan"),
                    lat["h2load"], lat["loadgen"],
                    " / ".join("%.0f" % float(r["rps"]) for r in by["h2load"]),
                    " / ".join("%.0f" % float(r["rps"]) for r in by["loadgen"])))
        return "\n".join(out) + "\n"

    def systems(self, arm):
        s = arm.systems()
        if self.args.systems:
            s = [x for x in s if x in self.args.systems]
            for second in ("loupe-full", "loupe-b"):
                if second in self.args.systems and "loupe" in arm.systems():
                    s.append(second)
        if not shutil.which("mitmdump") and "mitmdump" in s:
            s.remove("mitmdump")
        return s

    def run_arm(self, env, arm, nginx):
        a = self.args
        systems = self.systems(arm)
        procs = {"direct": None, "nginx": nginx}
        log("arm %s: systems %s, bodies %s, conc %s, %d reps" % (
            arm.name, " ".join(systems), " ".join(arm.bodies), a.conc_list, a.reps))
        try:
            if "loupe" in systems:
                procs["loupe"] = env.start_loupe(arm)
            if "loupe-full" in systems:
                procs["loupe-full"] = env.start_loupe(arm, full=True)
            if "loupe-b" in systems:
                procs["loupe-b"] = env.start_loupe(arm, b=True)
            if "mitmdump" in systems:
                procs["mitmdump"] = env.start_mitmdump(arm)
            if "caddy" in systems:
                procs["caddy"] = env.start_caddy(arm)
            # warm-up: unmeasured, every proxy, each body of the arm (JIT, pools, caches), at the
            # concurrencies the reps use (a JVM warmed at c=16 recompiles its relay when c=64 starts),
            # in chunks of at most WARMUP_CHUNK s: each chunk's connections close, so the close paths
            # are loaded and compiled too (loading them later deoptimised the warm relay: issue 19)
            if a.proxy_warmup > 0:
                for s in systems:
                    if s == "direct":
                        continue
                    for body, conc, secs in warmup_plan(a.proxy_warmup, arm.bodies, a.conc_list, a.warmup_conc):
                        w = self.step(env, arm, s, procs[s], body, conc, 0, 0, 0, secs, record=False)
                        if w["requests"] == 0 and w["errors"]:
                            log("warning: %s warm-up on %s %s: no response (%s)" % (
                                s, arm.name, body, w["error_detail"]))
            for body in arm.bodies:
                for conc in a.conc_list:
                    for rep in range(1, a.reps + 1):
                        order = systems if rep % 2 == 1 else list(reversed(systems))
                        for i, s in enumerate(order):
                            p = procs[s]
                            if p is not None and not p.alive():
                                die("%s died during arm %s (log in %s)" % (s, arm.name, env.logs))
                            self.step(env, arm, s, p, body, conc, rep, i + 1, a.warmup, a.duration)
        finally:
            for s in ("loupe", "mitmdump", "caddy", "loupe-full", "loupe-b"):
                if procs.get(s) is not None:
                    env.stop(procs[s])

    # -----------------------------------------------------------------------------------------
    # summary

    def summary(self, interrupted):
        a = self.args
        rows = self.rows
        slo = a.slo_ms
        med = {}  # (arm, system, body, conc) -> dict of medians
        keys = []
        for r in rows:
            k = (r["arm"], r["system"], r["body"], r["conc"])
            if k not in med:
                med[k] = []
                keys.append(k)
            med[k].append(r)

        def m(vals):
            vals = [float(v) for v in vals if v != "" and v == v]
            vals = [v for v in vals if v == v]
            return statistics.median(vals) if vals else float("nan")

        agg = {}
        for k in keys:
            rs = med[k]
            errs = sum(int(r["errors"]) for r in rs)
            reqs = sum(int(r["requests"]) for r in rs)
            agg[k] = dict(rps=m(r["rps"] for r in rs), p50=m(r["p50_ms"] for r in rs),
                          p99=m(r["p99_ms"] for r in rs), cpu=m(r["proxy_cpu_pct"] for r in rs),
                          rss=max([float(r["proxy_rss_mib"]) for r in rs if r["proxy_rss_mib"] != ""] or [float("nan")]),
                          err_rate=errs / (errs + reqs) if errs + reqs else 1.0, errors=errs,
                          mbps=m(r["mbps"] for r in rs), n=len(rs),
                          per_rep=[float(r["rps"]) for r in rs],
                          alloc=m(r.get("alloc_kib_per_req", "") for r in rs))

        def sustainable(arm, system, body):
            """Highest concurrency step (medians) with error rate <= 0.1% and p99 <= SLO."""
            best = None
            for c in a.conc_list:
                g = agg.get((arm, system, body, c))
                if g and g["err_rate"] <= 0.001 and g["p99"] == g["p99"] and g["p99"] <= slo and g["rps"] > 0:
                    best = (c, g)
            return best

        def sus_rps(arm, system, body):
            s = sustainable(arm, system, body)
            return s[1]["rps"] if s else 0.0

        def ratio(x, y):
            return x / y if y else float("nan")

        def f(x, fmt="%.0f"):
            return "–" if x != x else fmt % x

        out = [self.header(interrupted)]
        self._summary_body(out, agg, keys, sustainable, sus_rps, ratio, f)
        return "\n".join(out) + "\n"

    def header(self, interrupted):
        a = self.args
        rows = self.rows
        slo = a.slo_ms
        out = []
        mi = self.machine_before
        out.append("# Loupe load probe — %s%s\n" % (self.stamp, " (interrupted, partial)" if interrupted else ""))
        out.append("- Loupe commit: `%s`%s; jar `%s` (built %s)" % (
            git_commit(), " (working tree has uncommitted changes)" if git_dirty() else "",
            a.loupe_jar, jar_time(a.loupe_jar)))
        if getattr(a, "loupe_cmd", ""):
            out.append("- loupe launched with `%s`" % a.loupe_cmd)
        if getattr(a, "loupe_b_cmd", ""):
            out.append("- loupe-b launched with `%s`" % a.loupe_b_cmd)
        if a.loupe_b_jar:
            out.append("- loupe-b jar `%s` (built %s), args `%s`" % (
                a.loupe_b_jar, jar_time(a.loupe_b_jar), a.loupe_b_args))
        if a.loupe_b_lines:
            out.append("- loupe-b: prints its per-flow line (no `-q`), into its log file")
        if a.loupe_b_window:
            out.append("- loupe-b: the desktop window under Xvfb (flow table live), args `%s`" % a.loupe_b_args)
        out.append("- Date: %s → %s (%.1f min)" % (
            datetime.datetime.fromtimestamp(self.t_start).isoformat(timespec="seconds"),
            datetime.datetime.fromtimestamp(self.t_end).isoformat(timespec="seconds"),
            (self.t_end - self.t_start) / 60))
        out.append("- Machine: %s, nproc %s, %s; load average at start %s, at end %s; "
                   "1-min load per step %s–%s" % (
                       mi["cpu"], mi["nproc"], mi["mem"], mi["load"], self.machine_after["load"],
                       min(float(r["load1"]) for r in rows), max(float(r["load1"]) for r in rows)))
        out.append("- Tools: %s" % tool_versions())
        out.append("- Command: `bench/probe/run %s`" % " ".join(a.argv))
        if getattr(a, "first_seconds", 0) or any(r.get("first_s") for r in rows):
            out.append("- Settings: first-seconds mode: each system launched fresh per step, load from the moment "
                       "its port accepts, %d rep(s), order reversed every other rep (A B B A), medians; "
                       "generator threads %d; Loupe JVM options `%s` (unless a launch command is given); "
                       "origin nginx %d worker(s), nginx peer %s worker(s); pinning %s.\n" % (
                           a.reps, a.gen_threads, a.loupe_java_opts or "(JVM defaults)", a.origin_workers,
                           a.nginx_workers, a.pin or "off"))
            return "\n".join(out) + "\n"
        out.append("- Settings: %d rep(s) per step, order reversed every other rep (A B B A), "
                   "medians; %.1f s measured after %.1f s generator warm-up per step; each proxy "
                   "warmed up for %.0f s (%s, chunks of at most %.0f s, unmeasured) after start; h2/h3 streams per connection "
                   "%d; generator threads %d (HTTP/3 arms: %d); Loupe JVM options `%s`; origin nginx %d worker(s), "
                   "nginx peer %s worker(s); pinning %s." % (
                       a.reps, a.duration, a.warmup, a.proxy_warmup,
                       "c=%d" % a.warmup_conc if a.warmup_conc else "at each step's c",
                       WARMUP_CHUNK, a.streams,
                       a.gen_threads, getattr(a, "h3_gen_threads", 1), a.loupe_java_opts or "(JVM defaults)", a.origin_workers,
                       a.nginx_workers, a.pin or "off"))
        out.append("- **Sustainable RPS** = req/s (median) of the highest concurrency step whose "
                   "error rate is ≤ 0.1%% and whose p99 is ≤ **%g ms** (the SLO). `–` = no step "
                   "qualified. Ratios compare sustainable RPS (= throughput for a fixed body) in "
                   "this run.\n" % slo)
        return "\n".join(out) + "\n"

    def _summary_body(self, out, agg, keys, sustainable, sus_rps, ratio, f):
        a = self.args
        rows = self.rows
        slo = a.slo_ms
        # targets
        out.append("## Targets (issue 4)\n")
        out.append("| target | measured | verdict |")
        out.append("|---|---|---|")
        arms_run = dict.fromkeys(r["arm"] for r in rows)

        def verdict(ok):
            return "**met**" if ok else "**missed**"

        def tgt_ratio(label, arm, body, peer, need, at=None):
            if arm not in arms_run or not any(k[0] == arm and k[2] == body and k[1] == peer for k in keys) \
                    or not any(k[0] == arm and k[2] == body and k[1] == "loupe" for k in keys):
                out.append("| %s | not measured (arm %s, body %s, %s) | – |" % (label, arm, body, peer))
                return
            lo, pe = sus_rps(arm, "loupe", body), sus_rps(arm, peer, body)
            r = ratio(lo, pe)
            extra = ""
            if at:
                ga, gp = agg.get((arm, "loupe", body, at)), agg.get((arm, peer, body, at))
                if ga and gp:
                    extra = "; raw at c=%d: %.0f vs %.0f req/s = %.2f×" % (at, ga["rps"], gp["rps"], ratio(ga["rps"], gp["rps"]))
            out.append("| %s | %.2f× (Loupe %s vs %s %s sustainable req/s%s) | %s |" % (
                label, r, f(lo), peer, f(pe), extra,
                "figure (no target)" if need is None else verdict(r == r and r >= need)))

        top = max(a.conc_list)
        for cp in ("h1", "h2"):
            arm = "reverse-tls-%sh1" % cp
            tgt_ratio("reverse TLS %s→H1 tiny GET ≥ 1.0× nginx" % cp.upper(), arm, "13", "nginx", 1.0, top)
            tgt_ratio("reverse TLS %s→H1 tiny GET ≥ 20× mitmdump" % cp.upper(), arm, "13", "mitmdump", 20.0, top)
        for cp in ("h1", "h2"):
            arm = next((x for x in ("regular-tls-%sh1" % cp, "regular-tls-%sh2" % cp)
                        if any(k[0] == x and k[1] == "mitmdump" for k in keys)), "regular-tls-%sh1" % cp)
            tgt_ratio("regular (CONNECT + interception) %s client ≥ 20× mitmdump (%s)" % (cp.upper(), arm),
                      arm, "13", "mitmdump", 20.0, top)
        for arm in arms_run:
            if arm.startswith("reverse-tls-h3"):
                tgt_ratio("reverse TLS H3→%s tiny GET vs Caddy's HTTP/3 reverse proxy (issue 6's figure)"
                          % arm[-2:].upper(), arm, "13", "caddy", None, top)
        for cp in ("h1", "h2"):
            arm = "reverse-tls-%sh1" % cp
            for body, label in (("1m", "1 MiB GET"), ("post64k", "64 KiB POST")):
                if arm in arms_run and any(k[0] == arm and k[2] == body for k in keys):
                    tgt_ratio("%s %s→H1 ≥ 0.9× nginx throughput" % (label, cp.upper()), arm, body, "nginx", 0.9, top)
        for arm in arms_run:
            if not arm.startswith("tunnel-"):
                continue
            tgt_ratio("tunnel %s 1 MiB ≥ 0.9× direct" % arm, arm, "1m", "direct", 0.9, top)
        # memory
        for arm in arms_run:
            for body in dict.fromkeys(k[2] for k in keys if k[0] == arm):
                g64, g8 = agg.get((arm, "loupe", body, 64)), agg.get((arm, "loupe", body, 8))
                if not g64:
                    continue
                ok = g64["rss"] <= 256
                txt = "%.0f MiB at c=64" % g64["rss"]
                if g8:
                    ok = ok and g64["rss"] <= 1.5 * g8["rss"]
                    txt += ", %.0f MiB at c=8 (%.2f×)" % (g8["rss"], ratio(g64["rss"], g8["rss"]))
                out.append("| Loupe peak RSS %s %s ≤ 256 MiB and ≤ 1.5× c=8 | %s | %s |" % (arm, body, txt, verdict(ok)))
        out.append("")

        # per arm/body
        out.append("## Per arm and body\n")
        out.append("Sustainable RPS and the figures of that step (p50/p99 ms, proxy CPU % "
                   "(100 = one core), proxy peak RSS MiB over the step); MB/s = sustainable RPS × body. "
                   "Ratios: Loupe (or the row's system) ÷ nginx, ÷ mitmdump, ÷ direct (÷ caddy alone on "
                   "HTTP/3 arms, whose peers are Loupe and Caddy only).\n")
        for arm in arms_run:
            for body in dict.fromkeys(k[2] for k in keys if k[0] == arm):
                systems = list(dict.fromkeys(k[1] for k in keys if k[0] == arm and k[2] == body))
                out.append("### %s, %s %s\n" % (arm, BODIES[body][0], body))
                peers = ("caddy",) if "caddy" in systems else ("nginx", "mitmdump", "direct")
                if "loupe-full" in systems or "loupe-b" in systems:
                    peers += ("loupe",)  # the full tier (or the B side) ÷ the relay tier, same run
                out.append("| system | sustainable req/s | at c | MB/s | p50 ms | p99 ms | errors | CPU % | RSS MiB | "
                           + " | ".join("÷ " + p for p in peers) + " |")
                out.append("|---|---|---|---|---|---|---|---|---|" + "---|" * len(peers))
                sus = {s: sus_rps(arm, s, body) for s in systems}
                for s in systems:
                    st = sustainable(arm, s, body)
                    g = st[1] if st else None
                    rs = [ratio(sus[s], sus[p]) if p in sus and p != s else float("nan") for p in peers]
                    out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | " % (
                        "**%s**" % s if s == "loupe" else s, f(sus[s]) if st else "–",
                        st[0] if st else "–", f(sus[s] * BODIES[body][2] / 1e6, "%.1f") if st else "–",
                        f(g["p50"], "%.2f") if g else "–", f(g["p99"], "%.2f") if g else "–",
                        g["errors"] if g else "–",
                        f(g["cpu"]) if g and s != "direct" else "–",
                        f(g["rss"]) if g and s != "direct" else "–")
                               + " | ".join(f(x, "%.2f") for x in rs) + " |")
                out.append("")
                allocs = ["%s %.2f KiB" % (s, g["alloc"]) for s in systems
                          for st in [sustainable(arm, s, body)] for g in [st[1] if st else None]
                          if g and g["alloc"] == g["alloc"]]
                if allocs:
                    out.append("Allocated per request at that step (JFR thread counters, median of the reps): "
                               + "; ".join(allocs) + ".\n")
                # concurrency sweep: the shape test
                out.append("Concurrency sweep (median req/s; p99 ms; ✗ = step fails the SLO or error budget):\n")
                out.append("| system | " + " | ".join("c=%d" % c for c in a.conc_list) + " |")
                out.append("|---|" + "---|" * len(a.conc_list))
                for s in systems:
                    cells = []
                    for c in a.conc_list:
                        g = agg.get((arm, s, body, c))
                        if not g:
                            cells.append("")
                            continue
                        bad = not (g["err_rate"] <= 0.001 and g["p99"] == g["p99"] and g["p99"] <= slo)
                        cells.append("%s; %s%s%s" % (f(g["rps"]), f(g["p99"], "%.1f"), " ✗" if bad else "",
                                                     (" (%d err)" % g["errors"]) if g["errors"] else ""))
                    out.append("| %s | %s |" % (s, " | ".join(cells)))
                rsscells = []
                for c in a.conc_list:
                    g = agg.get((arm, "loupe", body, c))
                    rsscells.append("%s / %s" % (f(g["rss"]), f(g["cpu"])) if g else "")
                if any(rsscells):
                    out.append("| Loupe RSS MiB / CPU %% | %s |" % " | ".join(rsscells))
                for s in systems:
                    gcells = []
                    for c in a.conc_list:
                        v = [float(r["gen_cpu_pct"]) for r in rows if r["arm"] == arm and r["system"] == s
                             and r["body"] == body and int(r["conc"]) == c and r.get("gen_cpu_pct", "") not in ("", "nan")]
                        gcells.append(f(statistics.median(v)) if v else "")
                    if any(gcells):
                        out.append("| LoadGen CPU %% (vs %s) | %s |" % (s, " | ".join(gcells)))
                out.append("")
        out.append("Raw rows (every rep): `%s`.\n" % self.csv_path.relative_to(REPO) if str(self.csv_path).startswith(str(REPO)) else "Raw rows: `%s`.\n" % self.csv_path)
        if "h2load" in {r["generator"] for r in rows}:
            out.append("Generators: h2load for reverse and direct-reverse arms, Loupe's Netty "
                       "generator (`dev.loupe.bench.load.LoadGen`) for regular/tunnel arms and "
                       "their direct ceiling.\n")
        if any(r["client"] == "h3" for r in rows):
            out.append("HTTP/3 arms: LoadGen `--h3` (Netty QUIC, BoringSSL; c = QUIC connections, "
                       "each on its own UDP socket, %d request stream(s) each; certificate and host "
                       "checked against the system's CA) against Loupe's reverse-mode QUIC listener "
                       "and Caddy's HTTP/3 `reverse_proxy`, both to the same origin. nginx 1.22 and "
                       "mitmproxy 8 speak no HTTP/3, so these arms have no direct ceiling and no "
                       "nginx/mitmdump peer.\n" % a.streams)


# ---------------------------------------------------------------------------------------------
# facts about the machine and build


def sh(argv):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=20, cwd=REPO)
        return (r.stdout + r.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def git_commit():
    return sh(["git", "rev-parse", "--short=12", "HEAD"]) or "unknown"


def git_dirty():
    return bool(sh(["git", "status", "--porcelain", "--untracked-files=no"]))


def jar_time(path):
    try:
        return datetime.datetime.fromtimestamp(os.path.getmtime(path)).isoformat(timespec="seconds")
    except OSError:
        return "?"


def machine_info():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in open("/proc/meminfo"):
            if line.startswith("MemTotal"):
                mem = "%.0f GiB RAM" % (int(line.split()[1]) / 1024 / 1024)
    except OSError:
        pass
    return dict(cpu=cpu, nproc=os.cpu_count(), mem=mem,
                load=" ".join("%.2f" % x for x in os.getloadavg()))


def tool_versions():
    v = []
    j = sh(["java", "-version"]).splitlines()
    v.append("java %s" % (j[1] if len(j) > 1 else "?"))
    v.append(sh([shutil.which("nginx") or "/usr/sbin/nginx", "-v"]).replace("nginx version: ", ""))
    v.append(sh(["h2load", "--version"]).splitlines()[0] if shutil.which("h2load") else "h2load ?")
    if shutil.which("mitmdump"):
        v.append("mitmdump " + sh(["mitmdump", "--version"]).splitlines()[0].split()[-1])
    if shutil.which("caddy"):
        v.append("caddy " + (sh(["caddy", "version"]).split() or ["?"])[0])
    return ", ".join(v)


# ---------------------------------------------------------------------------------------------


def summarize(a):
    path = Path(a.summarize).resolve()
    rows = list(csv.DictReader(open(path, newline="")))
    if not rows:
        die("no rows in %s" % path)
    for r in rows:
        r["conc"] = int(r["conc"])
    a.conc_list = sorted({r["conc"] for r in rows})
    a.reps = max(int(r["rep"]) for r in rows)
    a.duration = float(rows[0]["duration_s"])
    p = Probe(a)
    p.stamp = rows[0]["run"]
    p.rows = rows
    p.csv_path = path
    p.md_path = path.with_suffix(".md")
    starts = [datetime.datetime.fromisoformat(r["started"]).timestamp() for r in rows]
    p.t_start, p.t_end = min(starts), max(starts) + float(rows[-1]["duration_s"])
    p.machine_before = p.machine_after = machine_info()
    p.machine_before["load"] = p.machine_after["load"] = "(not recorded; per-step load below)"
    if any(r.get("first_s") for r in rows):
        p.md_path.write_text(p.header(False) + "\n" + p.first_summary())
    else:
        p.md_path.write_text(p.summary(False))
    log("wrote %s" % p.md_path)
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="bench/probe/run", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arms", default=None,
                    help="comma-separated arms MODE-TLS-CLIENTORIGIN[:BODY+BODY...], e.g. "
                         "reverse-tls-h2h1:13+1m (default: %s)" % DEFAULT_ARMS)
    ap.add_argument("--bodies", default="13,64k,1m,post64k",
                    help="bodies for arms that name none: 13, 64k, 1m, post64k")
    ap.add_argument("--conc", default="1,8,16,32,64", help="concurrency steps (connections)")
    ap.add_argument("--reps", type=int, default=3, help="repetitions per step (median)")
    ap.add_argument("--duration", type=float, default=2.0, help="measured seconds per step")
    ap.add_argument("--warmup", type=float, default=0.5, help="generator warm-up seconds per step (unmeasured)")
    ap.add_argument("--proxy-warmup", type=float, default=8.0,
                    help="unmeasured load on each proxy after it starts, seconds (split over bodies)")
    ap.add_argument("--warmup-conc", type=int, default=0,
                    help="connections of the proxy warm-up (default: each --conc step, the largest last)")
    ap.add_argument("--streams", type=int, default=1, help="h2 streams per connection (-m)")
    ap.add_argument("--slo", dest="slo_ms", type=float, default=100.0, help="p99 SLO in ms")
    ap.add_argument("--systems", default="", help="only these systems (direct,nginx,loupe,mitmdump)")
    ap.add_argument("--gen", default="auto", choices=("auto", "loadgen", "h2load"),
                    help="auto: h2load where it fits, LoadGen for explicit-proxy arms")
    ap.add_argument("--gen-threads", type=int, default=max(1, (os.cpu_count() or 1) // 4),
                    help="generator threads (h2load -t, LoadGen -t)")
    ap.add_argument("--h3-gen-threads", type=int, default=2,
                    help="LoadGen -t on HTTP/3 arms (its QUIC driver is latency-bound on one loop)")
    ap.add_argument("--pin", default="", help="CPU pinning with taskset: 'auto' or "
                    "'origin=0 proxy=1 gen=0' (taskset CPU lists)")
    ap.add_argument("--origin-workers", type=int, default=1)
    ap.add_argument("--nginx-workers", default="1", help="nginx peer worker_processes (1 or auto)")
    ap.add_argument("--loupe-jar", default=os.environ.get("LOUPE_JAR", str(REPO / "app/target/loupe.jar")))
    ap.add_argument("--loupe-java-opts", default=os.environ.get("LOUPE_JAVA_OPTS", ""))
    ap.add_argument("--loupe-args", default="", help="extra Loupe options")
    ap.add_argument("--loupe-b-args", default="",
                    help="options of the second Loupe measured as system loupe-b (on top of --loupe-args), e.g."
                         " '--plugin plugins/flow-log/target/loupe-plugin-flow-log.jar --set flow-log.path=/dev/null'")
    ap.add_argument("--loupe-b-lines", action="store_true",
                    help="the loupe-b system prints its per-flow line (no -q; stdout goes to its log file):"
                         " line on vs quiet in one run (issue 19)")
    ap.add_argument("--loupe-b-window", action="store_true",
                    help="run the loupe-b system as the desktop window (flow table live, under Xvfb) instead of"
                         " headless: window vs headless in one run (issue 19)")
    ap.add_argument("--loupe-b-jar", default="",
                    help="jar of the loupe-b system (default: --loupe-jar), e.g. an older build for an"
                         " old-vs-new A/B in one run (its ÷ loupe column is then old ÷ new)")
    ap.add_argument("--loupe-cmd", default="",
                    help="launch command of the loupe system instead of `java LOUPE_JAVA_OPTS -jar JAR`, e.g. "
                         "the packaged launcher: installer/target/app-image/Loupe/bin/Loupe")
    ap.add_argument("--loupe-b-cmd", default="", help="launch command of the loupe-b system (like --loupe-cmd)")
    ap.add_argument("--first-seconds", type=float, default=0, metavar="N",
                    help="instead of the warm steps: launch each system fresh per step and measure the first N s"
                         " of load from the moment its port accepts (e.g. --first-seconds 10 --arms "
                         "reverse-tls-h1h1:13 --conc 64 --systems nginx,loupe)")
    ap.add_argument("--loadgen-jar", default=str(REPO / "bench/target/loadgen.jar"))
    ap.add_argument("--loadgen-java-opts", default="-Xms256m -Xmx256m -XX:+UseParallelGC")
    ap.add_argument("--out", default=str(REPO / "bench/results"))
    ap.add_argument("--keep-work", action="store_true", help="keep the temp dir (configs, logs)")
    ap.add_argument("--alloc", action="store_true",
                    help="Loupe systems: bytes allocated per request over each measured window "
                         "(JFR thread allocation counters via jcmd; column alloc_kib_per_req)")
    ap.add_argument("--summarize", metavar="CSV", help="rewrite the Markdown summary of an earlier "
                    "run from its CSV (next to it, same stamp) and exit")
    ap.add_argument("--validate", action="store_true",
                    help="check LoadGen against h2load: direct TLS 13 B GET, h2 and h1, at --conc")
    ap.add_argument("--quick", action="store_true",
                    help="smoke preset (~3 min): %s" % ", ".join("%s=%s" % kv for kv in QUICK.items()))
    a = ap.parse_args(argv)
    a.argv = argv
    if a.quick:
        given = {x.split("=")[0].lstrip("-").replace("-", "_") for x in argv if x.startswith("--")}
        for k, v in QUICK.items():
            if k not in given:
                setattr(a, k, v)
    if a.arms is None:
        a.arms = DEFAULT_ARMS
    if a.summarize:
        return summarize(a)
    default_bodies = parse_bodies(a.bodies)
    a.arm_list = [Arm(s.strip(), default_bodies) for s in a.arms.split(",") if s.strip()]
    a.conc_list = [int(x) for x in str(a.conc).split(",") if x.strip()]
    a.systems = [s.strip() for s in a.systems.split(",") if s.strip()]
    for s in a.systems:
        if s not in SYSTEMS:
            die("unknown system %r" % s)
    if any(s in ("loupe",) for arm in a.arm_list for s in arm.systems()) and \
            (not a.systems or "loupe" in a.systems) and not a.loupe_cmd and not os.path.isfile(a.loupe_jar):
        die("Loupe jar not found: %s (set LOUPE_JAR)" % a.loupe_jar)
    needs_loadgen = a.gen == "loadgen" or any(arm.mode != "reverse" or arm.client == "h3" for arm in a.arm_list)
    if needs_loadgen and not os.path.isfile(a.loadgen_jar):
        die("load generator not found: %s (mvn -B -o -pl bench package -DskipTests)" % a.loadgen_jar)
    for t in ("h2load", "curl", "openssl"):
        if not shutil.which(t):
            die("%s not found: run bench/probe/setup.sh" % t)
    if any("caddy" in arm.systems() for arm in a.arm_list) and (not a.systems or "caddy" in a.systems) \
            and not shutil.which("caddy"):
        die("caddy not found (the HTTP/3 peer): run bench/probe/setup.sh")
    return Probe(a).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
