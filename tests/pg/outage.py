"""The database stopped and started again under load (make pg-test).

`a2a-wire serve` on a PostgreSQL cluster of its own (tests/pg/cluster.sh); four clients send
messages without pause. The cluster is stopped at once (as a crash would stop it) for 13 s and
started again. While it is down every call fails with the A2A `Unavailable` error
(its ErrorInfo reason UNAVAILABLE) and none is answered with success;
once it is back the same server, never restarted, answers again; and every message that was
acknowledged is in the database.

usage: outage.py A2A_BINARY
"""

import json
import os
import subprocess
import sys
import tempfile
import threading
import time

A2A = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
CLUSTER = os.path.join(HERE, "cluster.sh")
sys.path.insert(0, HERE)
from harness import free_port, rpc, serve  # noqa: E402


def reason(answer):
    """The ErrorInfo reason of a JSON-RPC error answer."""
    for d in answer.get("error", {}).get("data", []) or []:
        if isinstance(d, dict) and d.get("reason"):
            return d["reason"]
    return None


def main():
    work = tempfile.mkdtemp(prefix="a2a-outage-")
    os.chmod(work, 0o755)  # the cluster runs as the postgres user
    cluster = os.path.join(work, "pg")
    subprocess.run([CLUSTER, "start", cluster], check=True, stdout=subprocess.DEVNULL)
    server = None
    try:
        url = open(os.path.join(cluster, "url")).read().strip()
        port = free_port()
        server, _ = serve(A2A, port, url, log_path=os.path.join(work, "serve.log"))

        phase = {"now": "up"}
        acked = []  # (phase, task id)
        errors = []  # (phase, reason or text)
        lock = threading.Lock()
        stop = threading.Event()

        def client(n):
            i = 0
            while not stop.is_set() and i < 100_000:
                i += 1
                p = phase["now"]
                msg = {"messageId": f"c{n}-{i}", "role": "ROLE_USER", "parts": [{"text": f"hello {n} {i}"}]}
                try:
                    a = rpc(port, "SendMessage", {"message": msg}, timeout=30)
                except Exception as e:  # a refused connection, a timeout
                    with lock:
                        errors.append((p, f"transport: {e}"))
                    time.sleep(0.05)
                    continue
                with lock:
                    # A call made while the database was down may be answered once it is
                    # back (its write waited for a connection): judge it when answered, and
                    # only when it was also made while down.
                    p = p if phase["now"] == p else "mixed"
                    if "result" in a:
                        acked.append((p, a["result"]["task"]["id"]))
                    else:
                        errors.append((p, reason(a) or json.dumps(a)))
                if "result" not in a:
                    time.sleep(0.05)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        time.sleep(2)
        subprocess.run([CLUSTER, "pause", cluster], check=True)
        with lock:
            phase["now"] = "down"
        # Calls in flight when it stopped may still be answered either way; judge the calls
        # made once it is down (their write or read cannot reach it).
        time.sleep(1)
        with lock:
            phase["now"] = "down-settled"
        # Longer than the store's wait for a connection (ACQUIRE_TIMEOUT, 5 s): calls made
        # now fail within it.
        time.sleep(12)
        with lock:
            phase["now"] = "restarting"
        subprocess.run([CLUSTER, "resume", cluster], check=True)
        back = time.time()
        recovered = None
        while time.time() - back < 30:
            with lock:
                ok = [x for x in acked if x[0] in ("restarting", "mixed", "back")]
            if ok:
                recovered = time.time() - back
                break
            time.sleep(0.1)
        with lock:
            phase["now"] = "back"
        time.sleep(2)
        stop.set()
        for t in threads:
            t.join(60)

        down = [r for p, r in errors if p == "down-settled"]
        down_acked = [i for p, i in acked if p == "down-settled"]
        assert not down_acked, f"answered with success while the database was down: {down_acked[:3]}"
        assert down, "no call failed while the database was down"
        assert all(r == "UNAVAILABLE" for r in down), f"errors while down: {sorted(set(down))[:5]}"
        assert recovered is not None, "the server did not answer again after the database came back"
        assert server.poll() is None, "the server exited"
        # Every acknowledged message is in the database, completed.
        missing = []
        for _, task_id in acked:
            a = rpc(port, "GetTask", {"id": task_id}, timeout=30)
            if a.get("result", {}).get("status", {}).get("state") != "TASK_STATE_COMPLETED":
                missing.append((task_id, a))
        assert not missing, f"{len(missing)} acknowledged tasks lost: {missing[:2]}"
        print(
            f"database down and up under load: {len(acked)} acknowledged, none lost; {len(down)} calls while down, "
            f"all Unavailable; answering again {recovered:.1f} s after the database was back, without a restart"
        )
    finally:
        if server is not None:
            server.kill()
            server.wait()
        subprocess.run([CLUSTER, "stop", cluster])


main()
