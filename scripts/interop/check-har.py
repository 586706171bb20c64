#!/usr/bin/env python3
"""HAR checks for scripts/interop.sh.

usage: check-har.py SESSION.har REQUESTS.tsv

REQUESTS.tsv has one line per request sent through Loupe:
    METHOD<TAB>URL<TAB>STATUS_SEEN_BY_CURL<TAB>REQ_BODY_BYTES<TAB>RESP_BODY_BYTES<TAB>X_LOUPE_ERROR[<TAB>HTTP_VERSION]
(-1 where a size is not checked; X_LOUPE_ERROR is "-" when the response had none;
HTTP_VERSION is curl's %{http_version} -- "2", "1.1", or "0" when unknown -- and
the entry's request.httpVersion must say the same: "HTTP/2", "HTTP/1.1").
A flow Loupe answered with its own error page (X-Loupe-Error: tls-verify, ...)
must appear as HarWriter documents it: stub response with status 0, _error and
_errorKind (TLS_VERIFY, ...).

Prints one line per check: PASS|FAIL<TAB>name<TAB>detail
Exit status is 0 even when checks fail (the caller counts FAIL lines);
2 on usage errors.
"""
import json
import re
import sys
from collections import Counter

ISO8601 = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
TIMING_KEYS = ("blocked", "dns", "connect", "send", "wait", "receive", "ssl")


def out(ok, name, detail=""):
    print("%s\t%s\t%s" % ("PASS" if ok else "FAIL", name, detail))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    har_path, req_path = sys.argv[1], sys.argv[2]

    expected = []
    with open(req_path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            fields = line.split("\t")
            method, url, status, req_size, resp_size, loupe_err = fields[:6]
            version = fields[6] if len(fields) > 6 else "0"
            expected.append((method, url, int(status), int(req_size), int(resp_size), loupe_err, version))

    try:
        with open(har_path, "rb") as f:
            har = json.load(f)
    except (OSError, ValueError) as e:
        out(False, "HAR is valid JSON", str(e))
        return 0
    entries = har.get("log", {}).get("entries") if isinstance(har, dict) else None
    if not isinstance(entries, list):
        out(False, "HAR is valid JSON", "no log.entries array")
        return 0
    out(True, "HAR is valid JSON", "%d entries, version %s, creator %s" % (
        len(entries), har["log"].get("version"), json.dumps(har["log"].get("creator"))))

    # --- one entry per request -------------------------------------------------
    def key(e):
        req = e.get("request", {})
        return (req.get("method"), req.get("url"))

    got = Counter(key(e) for e in entries)
    connects = sum(n for (m, _), n in got.items() if m == "CONNECT")
    want = Counter((m, u) for m, u, _, _, _, _, _ in expected)
    missing = want - got
    extra = Counter({k: n for k, n in (got - want).items() if k[0] != "CONNECT"})
    detail = "%d requests sent, %d entries" % (sum(want.values()), len(entries))
    if connects:
        detail += " (%d CONNECT entries ignored)" % connects
    if missing:
        detail += "; missing: " + ", ".join("%s %s x%d" % (m, u, n) for (m, u), n in missing.items())
    if extra:
        detail += "; unexpected: " + ", ".join("%s %s x%d" % (m, u, n) for (m, u), n in extra.items())
    out(not missing and not extra, "HAR has one entry per request", detail)

    # --- statuses and sizes match what curl saw ---------------------------------
    by_key = {}
    for e in entries:
        by_key.setdefault(key(e), []).append(e)
    problems = []
    versions = Counter()
    for method, url, status, req_size, resp_size, loupe_err, version in expected:
        cands = by_key.get((method, url)) or []
        if not cands:
            continue  # already reported above
        e = cands.pop(0)
        if version not in ("", "0"):
            want_v = "HTTP/" + version
            got_v = e.get("request", {}).get("httpVersion")
            versions[want_v] += 1
            if got_v != want_v:
                problems.append("%s %s: request.httpVersion %r, curl spoke %s" % (method, url, got_v, want_v))
        st = e.get("response", {}).get("status")
        if loupe_err != "-":
            kind = loupe_err.upper().replace("-", "_")
            if st != 0 or e.get("_errorKind") != kind or not e.get("_error"):
                problems.append("%s %s: Loupe error %s: want status 0, _errorKind %s and _error; got %r, %r, %r"
                                % (method, url, loupe_err, kind, st, e.get("_errorKind"), e.get("_error")))
            continue
        if st != status:
            problems.append("%s %s: status %r, curl saw %d" % (method, url, st, status))
        if req_size >= 0:
            bs = e.get("request", {}).get("bodySize")
            pd = e.get("request", {}).get("postData") or {}
            if bs != req_size:
                problems.append("%s %s: request.bodySize %r, sent %d" % (method, url, bs, req_size))
            if req_size > 0 and not pd:
                problems.append("%s %s: no request.postData" % (method, url))
        if resp_size >= 0:
            cs = e.get("response", {}).get("content", {}).get("size")
            if cs != resp_size:
                problems.append("%s %s: response.content.size %r, received %d" % (method, url, cs, resp_size))
    out(not problems, "HAR statuses, body sizes and HTTP versions match the traffic",
        "; ".join(problems) if problems else "%d entries checked (httpVersion: %s)" % (
            len(expected), ", ".join("%s x%d" % kv for kv in sorted(versions.items())) or "not checked"))

    # --- what the HAR schema leaves out ----------------------------------------
    problems = []
    for i, e in enumerate(entries):
        tag = "entry %d (%s %s)" % (i, e.get("request", {}).get("method"), e.get("request", {}).get("url"))
        url = e.get("request", {}).get("url", "")
        if not re.match(r"^[a-z][a-z0-9+.-]*://[^/]+", url) and e.get("request", {}).get("method") != "CONNECT":
            problems.append("%s: URL not absolute" % tag)
        sdt = e.get("startedDateTime", "")
        if not isinstance(sdt, str) or not ISO8601.match(sdt):
            problems.append("%s: startedDateTime %r not ISO 8601 with zone" % (tag, sdt))
        t = e.get("timings", {})
        if not isinstance(t, dict):
            problems.append("%s: no timings" % tag)
            continue
        parts = [t.get(k, -1) for k in ("blocked", "dns", "connect", "send", "wait", "receive")]
        if any(not isinstance(p, (int, float)) for p in parts):
            problems.append("%s: non-numeric timings %r" % (tag, t))
            continue
        total = sum(p for p in parts if p != -1)
        if not isinstance(e.get("time"), (int, float)) or abs(e["time"] - total) > 1.0:
            problems.append("%s: time %r != sum of timings %.3f" % (tag, e.get("time"), total))
        for k in TIMING_KEYS:
            v = t.get(k, -1)
            if isinstance(v, (int, float)) and v < 0 and v != -1:
                problems.append("%s: timings.%s = %r" % (tag, k, v))
        ssl, connect = t.get("ssl", -1), t.get("connect", -1)
        if isinstance(ssl, (int, float)) and ssl not in (-1,) and (connect == -1 or ssl > connect + 0.001):
            problems.append("%s: ssl %r not included in connect %r" % (tag, ssl, connect))
    out(not problems, "HAR timings, dates and URLs consistent",
        "; ".join(problems[:8]) + (" ..." if len(problems) > 8 else "") if problems
        else "%d entries" % len(entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
