"""A `paimon serve` process for tests: started on 127.0.0.1 with a free
port, JSON requests over HTTP, clean stop (SIGTERM, exit 0) or kill -9."""
import http.client
import json
import os
import select
import signal
import subprocess
import time

from conftest import paimon_bin


class Service:
    def __init__(self, warehouse, *options, listen="127.0.0.1:0", env=None, extra_args=()):
        args = [paimon_bin(), "serve", str(warehouse), "--listen", listen, *extra_args]
        for o in options:
            args += ["--option", o]
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env)
        line = self._read_line(20)
        if not line.startswith("listening on http://"):
            err = self.proc.stderr.read().decode() if self.proc.poll() is not None else ""
            raise AssertionError(f"paimon serve did not start: {line!r} {err}")
        hostport = line[len("listening on http://"):].strip()
        self.host, _, port = hostport.rpartition(":")
        self.port = int(port)
        self.url = f"http://{hostport}"

    def _read_line(self, timeout):
        end = time.time() + timeout
        buf = b""
        while time.time() < end:
            r, _, _ = select.select([self.proc.stdout], [], [], 0.2)
            if r:
                ch = os.read(self.proc.stdout.fileno(), 1)
                if not ch:
                    break
                if ch == b"\n":
                    return buf.decode()
                buf += ch
            elif self.proc.poll() is not None:
                break
        return buf.decode()

    def request(self, method, path, body=None, headers=None, raw=None, timeout=120):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        c.request(method, path, body=data, headers=headers or {})
        r = c.getresponse()
        text = r.read().decode()
        c.close()
        ctype = r.getheader("Content-Type", "")
        return r.status, (json.loads(text) if ctype.startswith("application/json") else text)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, body=None, **kw):
        return self.request("POST", path, body=body, **kw)

    def jobs(self, **query):
        q = "&".join(f"{k}={v}" for k, v in query.items())
        st, body = self.get("/v1/jobs" + (f"?{q}" if q else ""))
        assert st == 200, body
        return body["jobs"]

    def table(self, name):
        st, body = self.get(f"/v1/tables/{name}")
        assert st == 200, body
        return body

    def wait_idle(self, timeout=60, tables=None):
        """Until no job is queued or running."""
        end = time.time() + timeout
        while time.time() < end:
            if not [j for j in self.jobs(limit=1000) if j["state"] in ("queued", "running")
                    and (tables is None or j["table"] in tables)]:
                return
            time.sleep(0.1)
        raise AssertionError(f"jobs still active after {timeout} s: {self.jobs(limit=20)}")

    def wait_job(self, job_id, states=("succeeded", "failed", "cancelled"), timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            st, j = self.get(f"/v1/jobs/{job_id}")
            if st == 200 and j["state"] in states:
                return j
            time.sleep(0.05)
        raise AssertionError(f"job {job_id} not in {states} after {timeout} s")

    def stop(self, timeout=120):
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=timeout)
        err = self.proc.stderr.read().decode()
        assert rc == 0, f"paimon serve exited {rc}: {err}"
        return err

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=30)
        self.proc.stderr.read()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        for f in (self.proc.stdout, self.proc.stderr):
            f.close()
