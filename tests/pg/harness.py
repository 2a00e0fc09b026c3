"""What the scripts of tests/pg share: free ports, JSON-RPC calls, a fresh database on the
cluster of tests/pg/cluster.sh, `a2a-wire serve` processes, and several replicas on one
database behind the round-robin balancer (a2a-wire-balancer). Everything listens on
127.0.0.1; every process started here is killed when its context ends."""

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s.getsockname()[1]


def rpc(port, method, params, timeout=10, headers=None):
    """One JSON-RPC call (v1.0) to 127.0.0.1:port: the decoded answer."""
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/a2a/jsonrpc",
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "A2A-Version": "1.0", **(headers or {})},
    )
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.load(r)


def fresh_database(admin, name):
    """Drops and creates database `name` on the cluster of `admin` (a postgres:// URL): its URL."""
    env = dict(os.environ, PGOPTIONS="-c client_min_messages=warning")
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", admin, "-c", f"DROP DATABASE IF EXISTS {name}", "-c",
                    f"CREATE DATABASE {name}"], check=True, env=env)
    return admin.rsplit("/", 1)[0] + "/" + name


def serve(a2a, port, store, extra=(), log_path=None):
    """`a2a-wire serve` on 127.0.0.1:port over `store`, once it says it listens: (process, log)."""
    log = open(log_path or tempfile.mktemp(prefix="a2a-serve-", suffix=".log"), "w+")
    p = subprocess.Popen([a2a, "serve", "--addr", f"127.0.0.1:{port}", "--store", store, *extra], stdout=log, stderr=log)
    for _ in range(100):
        log.seek(0)
        if "echo agent on" in log.read():
            return p, log
        if p.poll() is not None:
            break
        time.sleep(0.1)
    p.kill()
    log.seek(0)
    sys.exit(f"a2a-wire serve on port {port} did not start:\n{log.read()[-2000:]}")


class Replicas:
    """`n` replicas of `a2a-wire serve` on database `db` of the cluster, behind the balancer,
    the card naming the balancer (`--public-url`). Attributes: lb (the balancer's port), ports
    (the replicas'), work (a folder for logs), card (the card as the first replica serves it).
    relayed() is the balancer's last count of connections per replica."""

    def __init__(self, a2a, balancer, admin, db, n=3, extra=()):
        self.a2a, self.balancer, self.n, self.extra = a2a, balancer, n, list(extra)
        self.store = fresh_database(admin, db)
        self.procs = []
        self.counts = None

    def __enter__(self):
        self.work = tempfile.mkdtemp(prefix="a2a-replicas-")
        self.lb = free_port()
        self.ports = []
        try:
            for n in range(self.n):
                port = free_port()
                p, _ = serve(self.a2a, port, self.store, ["--public-url", f"http://127.0.0.1:{self.lb}", *self.extra],
                             os.path.join(self.work, f"r{n}.log"))
                self.procs.append(p)
                self.ports.append(port)
            bal = subprocess.Popen([self.balancer, f"127.0.0.1:{self.lb}"] + [f"127.0.0.1:{p}" for p in self.ports],
                                   stdout=subprocess.PIPE, text=True)
            self.procs.append(bal)
            assert bal.stdout.readline().startswith("listening on"), "the balancer did not start"
            threading.Thread(target=self._read_counts, args=(bal,), daemon=True).start()
            self.card = json.load(urllib.request.urlopen(f"http://127.0.0.1:{self.ports[0]}/.well-known/agent-card.json",
                                                         timeout=10))
            urls = {i["url"] for i in self.card["supportedInterfaces"]}
            assert all(f"127.0.0.1:{self.lb}" in u for u in urls), f"the card names the replica, not the balancer: {urls}"
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _read_counts(self, bal):
        for line in bal.stdout:
            if line.startswith("relayed"):
                self.counts = [int(x) for x in line.split()[1:]]

    def relayed(self):
        time.sleep(0.3)
        return self.counts

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
        return False
