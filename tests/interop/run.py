#!/usr/bin/env python3
"""The interop matrix: a2a-wire against the official A2A SDKs, both directions.

    python3 tests/interop/run.py [--target-dir target] [--only LINE]...

An SDK line is one release of one official SDK (LINES below: a2a-sdk 1.3.0, 1.0.3 and
0.3.24; @a2a-js/sdk 1.3.0, 1.0.0-beta.0 and 0.3.14; a2a-go v2.3.1 and v0.3.15). Starts, on
127.0.0.1 only, our demo agent (`a2a-wire serve --store memory --allow-private-webhooks`)
and each line's server (tests/interop/<line>/their_server.*, the same agent behaviour:
tests/interop/CHECKS.md). Then runs, a few at a time:

- each line's client against our server (their_client.*), and
- our client (`a2a-wire-interop`) against each line's server,

over every binding (JSON-RPC, HTTP+JSON, gRPC) and version (1.0, 0.3) the release has, and
again over TLS with a CA made for the run (TLS_ROWS): the Python and JS SDK clients against
our server, our client against the Python SDK's server. Each check prints a JSON line; this
script prints the matrix and fails on any failure or missing row that
tests/interop/quirks.json does not list (the documented SDK quirks; INTEROP.md explains
them). Every process is bounded by a timeout and killed at the end.

The Python and JS SDKs are installed by the caller (`make interop-deps`: a venv per Python
line under the target dir, `npm ci` in each JS line's directory). The Go programs are built
here into <target-dir>/interop-go*/ (`go build`, modules pinned by each go.sum and fetched
from the Go module proxy on first use).
"""

import argparse
import concurrent.futures
import json
import os
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BINDINGS = ["JSONRPC", "HTTP+JSON", "GRPC"]
VERSIONS = ["1.0", "0.3"]
CHECKS = ["card", "send", "get", "stream", "input_required", "cancel_completed", "get_unknown", "list", "message_only",
          "file", "push", "resubscribe"]
RUN_TIMEOUT = 300
GO_BUILD_TIMEOUT = 600
# Client runs at once (each mostly waits on the agents' streams and webhooks).
PARALLEL = 4


class Line:
    """One SDK release: where its programs are, what it speaks, how our client talks to it."""

    def __init__(self, name, release, versions, bindings, program, ours=()):
        self.name = name
        self.release = release
        self.versions = versions
        self.bindings = bindings
        # program(target, "server"|"client") -> the command without its arguments.
        self.program = program
        # Extra options of our client against this line's server.
        self.ours = list(ours)


def python_line(venv, directory):
    return lambda target, role: [str(target / venv / "bin" / "python"), str(HERE / directory / f"their_{role}.py")]


def js_line(directory):
    return lambda target, role: ["node", str(HERE / directory / f"their_{role}.mjs")]


def go_line(out):
    return lambda target, role: [str((target / out).resolve() / f"their_{role}")]


# Our client writes v0.3 gRPC and HTTP+JSON file bytes raw to the servers that read them raw
# (@a2a-js/sdk 0.3.14 and 1.3.0, a2a-go v2.3.1's v0.3 layer); INTEROP.md, "File bytes in v0.3".
RAW_FILES = ["--v03-file-bytes", "raw"]
LINES = [
    Line("python", "a2a-sdk 1.3.0", VERSIONS, BINDINGS, python_line("interop-py-venv", "python")),
    Line("python-1.0", "a2a-sdk 1.0.3", VERSIONS, BINDINGS, python_line("interop-py-1.0-venv", "python")),
    Line("python-0.3", "a2a-sdk 0.3.24", ["0.3"], BINDINGS, python_line("interop-py-0.3-venv", "python-0.3")),
    Line("js", "@a2a-js/sdk 1.3.0", VERSIONS, BINDINGS, js_line("js"), RAW_FILES),
    Line("js-1.0", "@a2a-js/sdk 1.0.0-beta.0", VERSIONS, BINDINGS, js_line("js-1.0")),
    Line("js-0.3", "@a2a-js/sdk 0.3.14", ["0.3"], BINDINGS, js_line("js-0.3"), RAW_FILES),
    Line("go", "a2a-go v2.3.1", VERSIONS, BINDINGS, go_line("interop-go"), RAW_FILES),
    # a2a-go v0.3.15 has no HTTP+JSON (no REST transport or handler in the module).
    Line("go-0.3", "a2a-go v0.3.15", ["0.3"], ["JSONRPC", "GRPC"], go_line("interop-go-0.3")),
]
BY_NAME = {line.name: line for line in LINES}
# What a two-hop chain (their client -> a2a-wire's Python agent -> their agent) is judged on:
# the checks whose answer the far agent makes (the rest are the middle agent's own).
CHAIN_CHECKS = ["send", "stream", "file"]
GO_BUILDS = {"go": ("go", "interop-go"), "go-0.3": ("go-0.3", "interop-go-0.3")}
# The TLS rows (client, server) of each SDK: its client against our server with a test
# certificate, and, for Python, our client against its uvicorn + grpcio server with one.
TLS_ROWS = {"python": [("python", "a2a-wire-tls"), ("a2a-wire", "python-tls")], "js": [("js", "a2a-wire-tls")]}


def free_port(n=1):
    """A port p with p..p+n-1 free (best effort: bind, note, release)."""
    for _ in range(50):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        p = s.getsockname()[1]
        s.close()
        ok = True
        for k in range(1, n):
            t = socket.socket()
            try:
                t.bind(("127.0.0.1", p + k))
            except OSError:
                ok = False
            finally:
                t.close()
        if ok:
            return p
    raise RuntimeError("no free port")


def wait_port(port, proc, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing listens on {port} after {timeout} s")


def start(cmd, port, log, tls_ca=None):
    """Starts a server and waits for its card (over TLS, verified against `tls_ca`, if given)."""
    f = open(log, "w")
    proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
    wait_port(port, proc)
    # A card answer means the app is up, not only the socket.
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            if tls_ca is not None:
                s = ssl.create_default_context(cafile=str(tls_ca)).wrap_socket(s, server_hostname="127.0.0.1")
            s.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n")
            if s.recv(12).startswith(b"HTTP/1.1 200"):
                s.close()
                return proc
            s.close()
        except OSError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"{cmd[0]}: no card on {port}")


def run_client(cmd, label, log, env=None):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=RUN_TIMEOUT, cwd=ROOT, env=env)
    except subprocess.TimeoutExpired as e:
        Path(log).write_text(f"timed out after {RUN_TIMEOUT} s\n{e.stdout or ''}\n{e.stderr or ''}")
        return []
    Path(log).write_text(out.stdout + "\n--- stderr ---\n" + out.stderr)
    rows = []
    for line in out.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    if not rows:
        print(f"{label}: no results (exit {out.returncode}); see {log}", file=sys.stderr)
    return rows


def build_go(target, line, log):
    """Builds a Go line's their_server and their_client into <target>/<out>/; False if it failed."""
    directory, out = GO_BUILDS[line]
    out_dir = (target / out).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = ["go", "build", "-o", str(out_dir) + os.sep, "./cmd/..."]
    try:
        out = subprocess.run(cmd, cwd=HERE / directory, capture_output=True, text=True, timeout=GO_BUILD_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        Path(log).write_text(f"{' '.join(cmd)}: {e}\n")
        print(f"go build failed: {e}; see {log}", file=sys.stderr)
        return False
    Path(log).write_text(f"{' '.join(cmd)} (exit {out.returncode})\n{out.stdout}\n{out.stderr}")
    if out.returncode != 0:
        print(f"go build failed (exit {out.returncode}); see {log}", file=sys.stderr)
        return False
    return True


def quirk_for(quirks, r):
    for q in quirks:
        if all(q.get(k) in ("*", r[k]) for k in ("client", "server", "binding", "version", "check")):
            return q
    return None


SIGNING = ROOT / "tests" / "vectors" / "signing" / "payloads.json"


def signing_checks(target, py, logs, sdks):
    """Agent Card signatures across the SDKs (spec 8.4): keys made now by the Python SDK's
    stack; each SDK's own signing function signs the vector cards and a2a-wire verifies
    them, a2a-wire signs and each SDK's own verifier checks; EdDSA signatures, being
    deterministic, must be the same bytes from all three; tampered cards fail; and the card
    with a scope-less security requirement shows the documented payload difference
    (INTEROP.md, "Agent Card signatures"). Returns (check, ok, detail) rows."""
    work = (target / "interop-signing").resolve()
    work.mkdir(parents=True, exist_ok=True)
    ours = str((target / "debug" / "a2a-wire").resolve())
    rows = []

    def run(cmd, cwd=None):
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
        with open(logs / "signing.log", "a") as log:
            log.write(f"$ {' '.join(map(str, cmd))}\n{p.stdout}{p.stderr}exit {p.returncode}\n")
        return p.returncode == 0, (p.stdout + p.stderr).strip().splitlines()[-1:] or [""]

    def check(name, ok, detail=""):
        rows.append((name, ok, detail))

    # A refusal counts only when it is the verdict itself (not a crash of the tool).
    def refused(ok, out, ours_tool):
        said = out[0]
        return not ok and (("no signature of the agent card verifies" in said) if ours_tool else said.startswith("not verified"))

    pysign = [str(py), str(HERE / "python" / "signing.py")]
    jssign = ["node", str(HERE / "js" / "signing.mjs")]
    ok, out = run(pysign + ["gen-keys", str(work)])
    check("python gen-keys", ok, out[0])
    if not ok:
        return rows
    jwks = str(work / "jwks.json")
    signers = {"python": pysign, "js": jssign}
    cards = json.loads(SIGNING.read_text())["cards"]
    for card in ["card", "card-empty-scopes"]:
        src = str(work / f"{card}.json")
        (work / f"{card}.json").write_text(json.dumps(cards[card], ensure_ascii=False))
        for alg in ["es256", "eddsa"]:
            key = str(work / f"{alg}.jwk")
            made = {}
            for sdk, cmd in signers.items():
                if sdk not in sdks:
                    continue
                out_file = work / f"{sdk}-{card}-{alg}.json"
                ok, out = run(cmd + ["sign", key, src, str(out_file)], cwd=HERE / "js" if sdk == "js" else None)
                check(f"{sdk} signs {card} {alg}", ok, out[0])
                if not ok:
                    continue
                made[sdk] = out_file
                ok, out = run([ours, "verify-card", "--card-keys", jwks, str(out_file)])
                check(f"a2a-wire verifies {sdk}'s {card} {alg}", ok, out[0])
                if card == "card-empty-scopes":
                    # Only over the SDKs' payload (empty values removed), not over the spec's.
                    ok, out = run([ours, "verify-card", "--card-keys", jwks, "--spec-form-only", str(out_file)])
                    check(f"a2a-wire --spec-form-only refuses {sdk}'s {card} {alg}", refused(ok, out, True), out[0])
                tampered = json.loads(out_file.read_text())
                tampered["description"] += " (changed)"
                bad = work / f"{sdk}-{card}-{alg}-tampered.json"
                bad.write_text(json.dumps(tampered))
                ok, out = run([ours, "verify-card", "--card-keys", jwks, str(bad)])
                check(f"a2a-wire refuses {sdk}'s tampered {card} {alg}", refused(ok, out, True), out[0])
            mine = work / f"a2a-wire-{card}-{alg}.json"
            p = subprocess.run([ours, "sign-card", "--card-key", key, src], capture_output=True, text=True, timeout=60)
            check(f"a2a-wire signs {card} {alg}", p.returncode == 0, p.stderr.strip()[-200:])
            if p.returncode != 0:
                continue
            mine.write_text(p.stdout)
            for sdk, cmd in signers.items():
                if sdk not in sdks:
                    continue
                ok, out = run(cmd + ["verify", jwks, str(mine)], cwd=HERE / "js" if sdk == "js" else None)
                if card == "card-empty-scopes":
                    # The SDKs sign and verify without the scope-less requirement: ours, which
                    # keeps it as 8.4.1 says, does not verify there (INTEROP.md).
                    check(f"{sdk} does not verify a2a-wire's {card} {alg} (documented)", refused(ok, out, False), out[0])
                else:
                    check(f"{sdk} verifies a2a-wire's {card} {alg}", ok, out[0])
            if alg == "eddsa" and card == "card":
                sigs = {name: json.loads(f.read_text())["signatures"][0] for name, f in [("a2a-wire", mine)] + list(made.items())}
                same = len({json.dumps(v, sort_keys=True) for v in sigs.values()}) == 1
                check(f"EdDSA signatures of {card} are the same bytes ({', '.join(sigs)})", same, "" if same else json.dumps(sigs))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target-dir", default=str(ROOT / "target"))
    ap.add_argument("--only", action="append", choices=list(BY_NAME), help="run these SDK lines only")
    ap.add_argument("--chains", metavar="PYTHON",
                    help="also run the two-hop chains (their client -> tests/interop/chain_agent.py on a2a-wire's "
                         "Python package, run by PYTHON -> their agent), judged on CHAIN_CHECKS")
    args = ap.parse_args()
    target = Path(args.target_dir)
    logs = target / "interop-logs"
    logs.mkdir(parents=True, exist_ok=True)
    py = target / "interop-py-venv" / "bin" / "python"
    lines = [line for line in LINES if not args.only or line.name in args.only]
    sdks = [line.name for line in lines]
    # A line that could not be set up is not run; its rows then show as MISS.
    runnable = [line for line in lines if line.name not in GO_BUILDS or build_go(target, line.name, logs / f"{line.name}-build.log")]
    ours_bin = str(target / "debug" / "a2a-wire")
    ours_client = str(target / "debug" / "a2a-wire-interop")

    ours_port = free_port()
    procs = []
    results = []
    try:
        procs.append(start([ours_bin, "serve", "--addr", f"127.0.0.1:{ours_port}", "--store", "memory", "--allow-private-webhooks"],
                           ours_port, logs / "ours.log"))
        ours = f"http://127.0.0.1:{ours_port}"
        servers = {}
        for line in runnable:
            port = free_port(2)
            procs.append(start(line.program(target, "server") + ["--port", str(port)], port, logs / f"{line.name}-server.log"))
            servers[line.name] = f"http://127.0.0.1:{port}"
        # TLS: a throwaway CA made now; our server with its certificate against the SDK
        # clients, and our client against the Python SDK's server (uvicorn and grpcio) with it.
        tls_dir = target / "interop-tls"
        subprocess.run([str(target / "debug" / "a2a-wire-testca"), str(tls_dir)], check=True, timeout=60)
        ca, cert, key = tls_dir / "ca.pem", tls_dir / "server.pem", tls_dir / "server.key"
        tls_port = free_port()
        procs.append(start([ours_bin, "serve", "--addr", f"127.0.0.1:{tls_port}", "--store", "memory", "--allow-private-webhooks",
                            "--tls-cert", str(cert), "--tls-key", str(key)], tls_port, logs / "ours-tls.log", tls_ca=ca))
        ours_tls = f"https://127.0.0.1:{tls_port}"
        runs = []  # (cmd, client, server, log, env)
        if args.chains:
            for line in runnable:
                port = free_port()
                procs.append(start([args.chains, str(HERE / "chain_agent.py"), "--port", str(port), "--downstream", servers[line.name]],
                                   port, logs / f"chain-{line.name}.log"))
                runs.append((line.program(target, "client") + ["--url", f"http://127.0.0.1:{port}"], line.name, f"chain-{line.name}",
                             logs / f"{line.name}-client-chain.log", None))
        for line in runnable:
            runs.append((line.program(target, "client") + ["--url", ours], line.name, "a2a-wire", logs / f"{line.name}-client.log", None))
            runs.append(([ours_client, "--url", servers[line.name], "--server", line.name] + line.ours, "a2a-wire", line.name,
                         logs / f"ours-vs-{line.name}.log", None))
        if any(line.name == "python" for line in runnable):
            runs.append(([str(py), str(HERE / "python" / "their_client.py"), "--url", ours_tls, "--ca-file", str(ca)],
                         "python", "a2a-wire-tls", logs / "python-client-tls.log", None))
            port = free_port(2)
            procs.append(start([str(py), str(HERE / "python" / "their_server.py"), "--port", str(port), "--tls-cert", str(cert),
                                "--tls-key", str(key)], port, logs / "python-server-tls.log", tls_ca=ca))
            runs.append(([ours_client, "--url", f"https://127.0.0.1:{port}", "--server", "python-tls", "--ca-file", str(ca)],
                         "a2a-wire", "python-tls", logs / "ours-vs-python-tls.log", None))
        if any(line.name == "js" for line in runnable):
            runs.append((["node", str(HERE / "js" / "their_client.mjs"), "--url", ours_tls, "--ca-file", str(ca)],
                         "js", "a2a-wire-tls", logs / "js-client-tls.log", {**os.environ, "NODE_EXTRA_CA_CERTS": str(ca)}))

        def one(run):
            cmd, client, server, log, env = run
            started = time.time()
            rows = run_client(cmd, f"{client} client vs {server}", log, env)
            for r in rows:
                r["client"], r["server"] = client, server
            print(f"  {client} -> {server}: {len(rows)} results in {time.time() - started:.0f} s", flush=True)
            return rows

        with concurrent.futures.ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            for rows in pool.map(one, runs):
                results.extend(rows)
    finally:
        for p in procs:
            p.kill()
            p.wait()

    signing = signing_checks(target, py, logs, [line.name for line in runnable if line.name in ("python", "js")])
    quirks = json.loads((HERE / "quirks.json").read_text())["quirks"]
    by_key = {(r["client"], r["server"], r["binding"], r["version"], r["check"]): r for r in results}
    unexpected = []
    fixed_quirks = []
    lines = []
    header = f"{'client -> server':<26} {'binding':<10} {'ver':<4} " + " ".join(f"{c[:6]:<6}" for c in CHECKS)
    lines.append(header)
    lines.append("-" * len(header))
    for sdk in sdks:
        line = BY_NAME[sdk]
        lines.append(f"{line.release} ({sdk})")
        chain = [(sdk, f"chain-{sdk}")] if args.chains else []
        for client, server in [(sdk, "a2a-wire"), ("a2a-wire", sdk)] + TLS_ROWS.get(sdk, []) + chain:
            for b in BINDINGS:
                for v in VERSIONS:
                    if v not in line.versions or b not in line.bindings:
                        continue
                    cells = []
                    for c in CHECKS:
                        key = (client, server, b, v, c)
                        if (c == "list" and v == "0.3") or (server.startswith("chain-") and c not in CHAIN_CHECKS):
                            cells.append("n/a" if c == "list" and v == "0.3" else "-")
                            continue
                        r = by_key.get(key)
                        probe = {"client": client, "server": server, "binding": b, "version": v, "check": c}
                        q = quirk_for(quirks, probe)
                        if r is None:
                            cells.append("quirk" if q else "MISS")
                            if not q:
                                unexpected.append((probe, "not run"))
                        elif r["ok"]:
                            cells.append("ok")
                            if q:
                                fixed_quirks.append((probe, q["why"]))
                        else:
                            cells.append("quirk" if q else "FAIL")
                            if not q:
                                unexpected.append((probe, r.get("detail", "")))
                    lines.append(f"{client + ' -> ' + server:<26} {b:<10} {v:<4} " + " ".join(f"{x:<6}" for x in cells))
    print("\nInterop matrix (ok = passed, quirk = documented SDK quirk, see INTEROP.md)\n")
    print("\n".join(lines))
    if fixed_quirks:
        print("\nListed as quirks but passed (the SDK may have been fixed):")
        for p, why in fixed_quirks:
            print(f"  {p['client']} -> {p['server']} {p['binding']} {p['version']} {p['check']}: {why}")
    print("\nAgent Card signatures (spec 8.4; INTEROP.md)\n")
    for name, ok, detail in signing:
        print(f"  {'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"))
    signing_failures = [r for r in signing if not r[1]]
    (logs / "results.json").write_text(json.dumps(results, indent=1))
    if signing_failures:
        print(f"\n{len(signing_failures)} signature check(s) failed; logs: {logs / 'signing.log'}")
        return 1
    if unexpected:
        print(f"\n{len(unexpected)} unexpected failure(s):")
        for p, d in unexpected:
            print(f"  {p['client']} -> {p['server']} {p['binding']} {p['version']} {p['check']}: {d}")
        print(f"logs: {logs}")
        return 1
    print("\ninterop: every check passed or is a documented quirk")
    return 0


if __name__ == "__main__":
    sys.exit(main())
