"""Truncated and mutated Parquet files: `paimon cat` and `paimon meta` end
with a clear error (exit 1, "paimon cat: error [E...]: ..." on stderr) or,
for a mutation that keeps the file valid, succeed — never crash, hang or
print garbage with exit 0 after an error."""
import random
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import run_paimon
from test_parquet_read_matrix import make_table

ERR = re.compile(r"^paimon (cat|meta): error \[E[A-Z]+\]: .+", re.M)


def _check(proc):
    assert proc.returncode in (0, 1), f"exit {proc.returncode}: {proc.stderr[-2000:]}"
    if proc.returncode == 1:
        assert ERR.search(proc.stderr), proc.stderr[-2000:]
    else:
        assert proc.stderr == ""


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("corrupt")
    t = make_table(n=120, seed=3)
    out = {}
    for name, kw in {
        "v1_dict_snappy": dict(compression="snappy", data_page_version="1.0"),
        "v2_plain_none": dict(compression="none", data_page_version="2.0", use_dictionary=False),
        "v2_zstd_checksum": dict(compression="zstd", data_page_version="2.0", write_page_checksum=True),
    }.items():
        p = d / f"{name}.parquet"
        pq.write_table(t, str(p), row_group_size=50, data_page_size=1024, **kw)
        out[name] = p
    return out


@pytest.mark.parametrize("name", ["v1_dict_snappy", "v2_plain_none", "v2_zstd_checksum"])
def test_truncated(tmp_path, files, name):
    data = files[name].read_bytes()
    rng = random.Random(1)
    cuts = sorted(set([0, 1, 4, 7, 8, 11, 12, len(data) - 1, len(data) - 4, len(data) - 8]
                      + [rng.randrange(len(data)) for _ in range(25)]))
    bad = tmp_path / "bad.parquet"
    for cut in cuts:
        bad.write_bytes(data[:cut])
        for cmd in ("cat", "meta"):
            proc = run_paimon(cmd, bad, check=False)
            assert proc.returncode == 1, f"cut {cut}: {cmd} exit {proc.returncode}"
            assert ERR.search(proc.stderr), proc.stderr


@pytest.mark.parametrize("name", ["v1_dict_snappy", "v2_plain_none", "v2_zstd_checksum"])
def test_mutated(tmp_path, files, name):
    data = files[name].read_bytes()
    rng = random.Random(hash(name) & 0xffff)
    bad = tmp_path / "bad.parquet"
    footer_start = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    for i in range(60):
        b = bytearray(data)
        # half of the mutations hit the footer, half the pages
        if i % 2:
            pos = rng.randrange(footer_start, len(data) - 8)
        else:
            pos = rng.randrange(4, footer_start)
        for _ in range(rng.choice([1, 1, 2, 4])):
            b[min(pos + rng.randrange(8), len(b) - 9)] ^= rng.choice([1, 0x80, 0xff, rng.randrange(1, 256)])
        bad.write_bytes(bytes(b))
        _check(run_paimon("cat", bad, check=False))
        _check(run_paimon("meta", bad, check=False))


def test_checksum_mismatch_is_reported(tmp_path):
    t = pa.table({"a": list(range(1000))})
    p = tmp_path / "c.parquet"
    pq.write_table(t, str(p), compression="none", write_page_checksum=True, use_dictionary=False)
    data = bytearray(p.read_bytes())
    # flip a value byte inside the first data page (after the page header)
    data[100] ^= 0x01
    p.write_bytes(bytes(data))
    proc = run_paimon("cat", p, check=False)
    assert proc.returncode == 1 and "checksum mismatch" in proc.stderr and "ECORRUPT" in proc.stderr


def test_not_parquet_and_missing(tmp_path):
    p = tmp_path / "x.parquet"
    p.write_bytes(b"hello world, not a parquet file")
    proc = run_paimon("cat", p, check=False)
    assert proc.returncode == 1 and "unknown data file format" in proc.stderr
    proc = run_paimon("meta", p, check=False)
    assert proc.returncode == 1 and "PAR1" in proc.stderr
    proc = run_paimon("cat", tmp_path / "missing.parquet", check=False)
    assert proc.returncode == 1 and "ENOTFOUND" in proc.stderr
    proc = run_paimon("cat", check=False)
    assert proc.returncode == 2 and "missing FILE" in proc.stderr
    assert run_paimon("cat", "--help").stdout.startswith("usage: paimon cat")
    assert run_paimon("meta", "--help").stdout.startswith("usage: paimon meta")
