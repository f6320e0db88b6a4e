"""Python client of the Apache Paimon Java oracle (bench/java, PaimonOracle).

    from paimon_oracle import build, JavaOracle
    run_sh = build()                 # scripts/java-oracle.sh; raises BuildError
    with JavaOracle(run_sh) as j:    # one JVM, many commands (`run.sh serve`)
        rows = j.read("/wh/db.db/t", snapshot=2, columns=["id", "v"])
        snaps = j.snapshots("/wh/db.db/t")
        metrics = j.call_json("compact", "/wh/db.db/t")

Protocol (see PaimonOracle.java): one command per stdin line, arguments
separated by TAB; output lines follow, then "\\0OK" or "\\0ERR <message>".
The JVM's stderr goes to a temporary file whose tail is attached to errors.
"""
import json
import os
import pathlib
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "java-oracle.sh"


class BuildError(RuntimeError):
    """scripts/java-oracle.sh failed; .returncode 3 means Maven could not download."""

    def __init__(self, returncode, message):
        super().__init__(message)
        self.returncode = returncode


class OracleError(RuntimeError):
    pass


def build():
    """Build the oracle if needed; return the path of bench/java/run.sh."""
    p = subprocess.run([str(SETUP)], capture_output=True, text=True)
    if p.returncode != 0:
        raise BuildError(p.returncode, f"scripts/java-oracle.sh failed ({p.returncode}):\n{p.stderr}")
    return p.stdout.strip().splitlines()[-1]


class JavaOracle:
    def __init__(self, run_sh, java_opts=None):
        self._err = tempfile.NamedTemporaryFile(prefix="paimon-oracle-", suffix=".log", delete=False)
        env = dict(os.environ)
        if java_opts is not None:
            env["JAVA_OPTS"] = java_opts
        self._p = subprocess.Popen([run_sh, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=self._err, env=env)

    def _stderr_tail(self, n=4000):
        try:
            with open(self._err.name, "rb") as f:
                f.seek(0, 2)
                f.seek(max(0, f.tell() - n))
                return f.read().decode("utf-8", "replace")
        except OSError:
            return ""

    def call(self, *args):
        """Run one command; return its output lines (str). Raises OracleError."""
        args = [str(a) for a in args]
        for a in args:
            if "\t" in a or "\n" in a:
                raise ValueError(f"argument {a!r} holds a TAB or newline")
        if self._p.poll() is not None:
            raise OracleError(f"Java oracle exited ({self._p.returncode}):\n{self._stderr_tail()}")
        self._p.stdin.write(("\t".join(args) + "\n").encode())
        self._p.stdin.flush()
        lines = []
        while True:
            raw = self._p.stdout.readline()
            if not raw:
                raise OracleError(f"Java oracle died during {args}:\n{self._stderr_tail()}")
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("\0OK"):
                return lines
            if line.startswith("\0ERR"):
                raise OracleError(f"Java oracle {' '.join(args)}: {line[5:]}")
            lines.append(line)

    def call_json(self, *args):
        """A command printing one JSON object (metrics)."""
        lines = self.call(*args)
        assert len(lines) == 1, lines
        return json.loads(lines[0])

    def read(self, table, snapshot=None, columns=None):
        args = ["read", table]
        if snapshot is not None:
            args += ["--snapshot", snapshot]
        if columns:
            args += ["--columns", ",".join(columns)]
        return [json.loads(line) for line in self.call(*args)]

    def snapshots(self, table):
        return [json.loads(line) for line in self.call("snapshots", table)]

    def files(self, table, snapshot=None):
        args = ["files", table] + (["--snapshot", snapshot] if snapshot is not None else [])
        return [json.loads(line) for line in self.call(*args)]

    def close(self):
        if self._p.poll() is None:
            self._p.stdin.close()
            try:
                self._p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._p.kill()
                self._p.wait()
        self._err.close()
        os.unlink(self._err.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
