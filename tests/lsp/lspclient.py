"""A small Language Server Protocol client over stdio, for the tests (Python
standard library only). It frames messages with Content-Length, reads the
server's messages on a thread into a queue, and offers helpers to wait for a
response or a notification."""

import json
import os
import queue
import subprocess
import threading
import time

# Multiplies every timeout: a server under valgrind is many times slower.
TIMEOUT_SCALE = float(os.environ.get("TORCHLINT_TIMEOUT_SCALE", "1"))


class Client:
    # initializationOptions sent when a test names none (None: send none).
    default_options = None

    def __init__(self, argv, cwd=None, env=None, stderr=None):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr if stderr is not None else subprocess.DEVNULL,
                                     cwd=cwd, env=env)
        self.messages = queue.Queue()
        self.pending = []  # messages read but not yet claimed by a wait
        self.next_id = 1
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    # ---- transport --------------------------------------------------------------------
    def _read(self):
        out = self.proc.stdout
        while True:
            headers = {}
            while True:
                line = out.readline()
                if not line:
                    self.messages.put(None)
                    return
                line = line.decode("ascii").rstrip("\r\n")
                if not line:
                    break
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            body = out.read(int(headers["content-length"]))
            self.messages.put(json.loads(body.decode("utf-8")))

    def send_raw(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, msg):
        body = json.dumps(msg).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method, params=None):
        rid = self.next_id
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return rid

    def notify(self, method, params=None):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)

    # ---- waiting ------------------------------------------------------------------------
    def wait(self, pred, timeout=10.0):
        """The first message (old or new) for which pred is true; raises on timeout."""
        for i, m in enumerate(self.pending):
            if pred(m):
                return self.pending.pop(i)
        timeout *= TIMEOUT_SCALE
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message within %.1f s" % timeout)
            try:
                m = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if m is None:
                raise EOFError("the server closed its output")
            if pred(m):
                return m
            self.pending.append(m)

    def response(self, rid, timeout=10.0):
        return self.wait(lambda m: m.get("id") == rid and "method" not in m, timeout)

    def call(self, method, params=None, timeout=10.0):
        return self.response(self.request(method, params), timeout)

    def diagnostics(self, uri, timeout=10.0, version=None):
        def match(m):
            if m.get("method") != "textDocument/publishDiagnostics":
                return False
            p = m["params"]
            return p["uri"] == uri and (version is None or p.get("version") == version)
        return self.wait(match, timeout)["params"]["diagnostics"]

    def drain(self):
        """Forgets every message received so far."""
        self.pending = []
        while True:
            try:
                if self.messages.get_nowait() is None:
                    self.messages.put(None)
                    return
            except queue.Empty:
                return

    def initialize(self, root_uri=None, options=None, capabilities=None):
        params = {"processId": os.getpid(), "rootUri": root_uri,
                  "capabilities": capabilities if capabilities is not None else {
                      "textDocument": {"hover": {"contentFormat": ["markdown", "plaintext"]}}}}
        if options is None:
            options = self.default_options
        if options is not None:
            params["initializationOptions"] = options
        r = self.call("initialize", params)
        self.notify("initialized", {})
        return r

    def close(self, timeout=10.0):
        """shutdown + exit; returns the exit status."""
        r = self.call("shutdown")
        assert r.get("result", "missing") is None, r
        self.notify("exit")
        return self.proc.wait(timeout)
