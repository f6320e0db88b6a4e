"""bench/summary.py turns the suites' JSON lines into the one `make bench`
table: a row per (workload, peer) with medians [min-max], the per-round
ratio, the zstd-1 ceiling row, and it refuses results it cannot read."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SUMMARY = ROOT / "bench" / "summary.py"
sys.path.insert(0, str(ROOT / "bench"))
import summary  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, str(SUMMARY), *map(str, args)], capture_output=True, text=True)


def write_lines(path, recs, extra=()):
    with open(path, "w") as f:
        for line in extra:
            f.write(line + "\n")
        for r in recs:
            f.write(json.dumps(r) + "\n")


def test_table_from_sample_lines(tmp_path):
    p = tmp_path / "results.jsonl"
    recs = [
        summary.record("append compaction, 1,000 files", "compact",
                       {"paimon-c": [1.0, 2.0, 1.5], "Java steady": [3.0, 8.0, 6.0], "Java cold": [10.0, 12.0, 11.0]},
                       ceiling_cpu_s=0.75, note="inputs written by Apache Paimon Java 1.4.2"),
        summary.record("Parquet read, 1,000,000 rows", "parquet", {"paimon-c": [0.5, 0.4], "pyarrow": [1.0, 1.2]}),
        summary.record("PK 2 M / 5 runs", "compact", {"paimon-c": [0.7], "Java cold": [9.1]},
                       note="inputs written by Apache Paimon Java 1.4.2"),
    ]
    # a suite's other JSON output (no workload) in the same file is skipped
    write_lines(p, recs, extra=['{"engine": "paimon-c", "cpu_ms": 3}'])
    r = run(p)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].split()[:2] == ["workload", "peer"]
    assert set(lines[2]) <= {"-", " "}
    body = lines[3:]
    steady = next(x for x in body if "Java steady" in x)
    # paimon-c 1.5 [1.0-2.0]; Java steady 6.0 [3.0-8.0]; per-round ratios 3, 4, 4 -> 4.0x [3.0x-4.0x]
    assert steady.startswith("append compaction, 1,000 files")
    assert "1.50 [1.00-2.00]" in steady and "6.00 [3.00-8.00]" in steady and "4.0x [3.0x-4.0x]" in steady
    cold = next(x for x in body if "Java cold" in x)
    assert not cold.startswith("append")  # the workload is named once
    assert "11.00 [10.00-12.00]" in cold and "7.3x [6.0x-10.0x]" in cold
    ceiling = next(x for x in body if "zstd-1 ceiling" in x)
    assert "0.75" in ceiling and "paimon-c at 50% of it" in ceiling
    arrow = next(x for x in body if "pyarrow" in x)
    assert arrow.startswith("Parquet read") and "2.5x [2.0x-3.0x]" in arrow
    # columns line up: every body row has its peer where the header has it
    col = lines[1].index("peer")
    assert all(x[col:].startswith(("Java", "zstd", "pyarrow")) for x in body if not x.startswith("  note"))
    # one note line per distinct note, naming every workload it applies to
    notes = [x.strip() for x in body if x.startswith("  note")]
    assert notes == ["note: inputs written by Apache Paimon Java 1.4.2: append compaction, 1,000 files; PK 2 M / 5 runs"]


def test_several_files_and_a_side_without_peer(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    summary.append(str(a), summary.record("PK 2 M / 5 runs", "compact", {"paimon-c": [0.7], "Java cold": [9.1]}))
    summary.append(str(b), summary.record("merge-on-read", "pk", {"paimon-c": [0.3, 0.5]}))
    summary.append("", summary.record("ignored", "x", {"paimon-c": [1]}))  # no file: nothing written
    r = run(a, b)
    assert r.returncode == 0, r.stderr
    assert "0.70 (1 run)" in r.stdout and "9.10 (1 run)" in r.stdout and "13.0x (1 run)" in r.stdout
    mor = next(x for x in r.stdout.splitlines() if x.startswith("merge-on-read"))
    assert "(no peer)" in mor and "0.40 [0.30-0.50]" in mor


def test_refuses_what_it_cannot_read(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    r = run(empty)
    assert r.returncode == 1 and "no benchmark results" in r.stderr
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"workload": "x", "sides": {"paimon-c": {"cpu_s": [1]}}}\n{not json\n')
    r = run(bad)
    assert r.returncode != 0 and "bad.jsonl:2" in r.stderr
    nobase = tmp_path / "nobase.jsonl"
    nobase.write_text('{"workload": "x", "base": "paimon-c", "sides": {"Java cold": {"cpu_s": [1]}}}\n')
    r = run(nobase)
    assert r.returncode != 0 and "no side 'paimon-c'" in r.stderr
    try:
        summary.record("x", "s", {"pyarrow": [1.0]})
    except ValueError as e:
        assert "no base side" in str(e)
    else:
        raise AssertionError("record() accepted a workload without paimon-c")
