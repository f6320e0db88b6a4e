"""Dynamic-bucket primary-key tables against Apache Paimon Java 1.4.2:
Java writes (its HashBucketAssigner and index maintainer, TableGen
write-pk --bucket -1), we write into the table (keys placed from Java's
HASH index), Java writes again (from ours), we and Java compact; after
every step Java reads exactly what we read, every key lives in one bucket
of its partition, and Java's assigner (restoring our HASH files) leaves
every existing key where it was.
"""
import json

from test_java_oracle import _java_lines, _lines, _need, _paimon, java  # noqa: F401


def _key_buckets(path):
    where = {}
    for f in json.loads(_paimon("files", path, "--json")):
        d = path / f["partition"] / ("bucket-%d" % f["bucket"])
        for r in map(json.loads, _paimon("cat", d / f["file_name"]).splitlines()):
            key = (f["partition"], r["id"])
            assert where.setdefault(key, f["bucket"]) == f["bucket"], key
    return where


def _updates(lo, hi, tag):
    return "".join(json.dumps({"p": i % 2, "id": i, "k": i, "name": "%s-%d" % (tag, i), "price": 1.5, "qty": 2,
                               "ts": "2030-01-01T00:00:00", "note": tag}) + "\n" for i in range(lo, hi))


def test_dynamic_bucket_with_java(java, tmp_path):
    _need("write", "read", "compact", "cat")
    t = tmp_path / "wh" / "db.db" / "t"
    java.call_json("write-pk", t, "--rows", 600, "--runs", 3, "--bucket", -1, "--partitions", 2,
                   "--option", "dynamic-bucket.target-row-num=120")
    before = _key_buckets(t)
    assert len({b for (_, b) in before.items()}) >= 3
    steps = [("ours", lambda: _paimon("write", t, input=_updates(300, 1500, "c1"))),
             ("java", lambda: java.call_json("write-pk", t, "--rows", 400, "--runs", 2, "--bucket", -1,
                                             "--partitions", 2, "--seed", 9, "--append", "true")),
             ("compact", lambda: _paimon("compact", t)),
             ("ours", lambda: _paimon("write", t, input=_updates(1400, 1700, "c2"))),
             ("java-compact", lambda: java.call_json("compact-pk", t, "--full", "false"))]
    for name, step in steps:
        step()
        now = _key_buckets(t)
        for key, b in before.items():
            assert now[key] == b, (name, key)
        before = now
        ours = _lines(_paimon("read", t))
        assert ours == _java_lines(java, t), name
    assert len(before) >= 1700


def test_postpone_bucket_with_java(java, tmp_path):
    """Java writes a postpone-bucket table (its PostponeBucketWriter: files
    in bucket-postpone), we write too, `paimon compact` assigns real
    buckets; Java reads exactly what we read; again after Java appends."""
    _need("write", "read", "compact")
    t = tmp_path / "wh" / "db.db" / "t"
    java.call_json("write-pk", t, "--rows", 300, "--runs", 2, "--bucket", -2, "--partitions", 2,
                   "--delete-every", 9, "--option", "postpone.default-bucket-num=2")
    assert _java_lines(java, t) == []  # postponed rows are not visible to batch reads
    names = {f["file_name"] for f in json.loads(_paimon("files", t, "--json"))}
    assert all("-u-" in n and "-s-" in n and "-w-" in n for n in names)
    _paimon("write", t, input=_updates(200, 400, "ours"))
    for round_ in range(2):
        _paimon("compact", t)
        files = json.loads(_paimon("files", t, "--json"))
        assert files and all(0 <= f["bucket"] < 2 for f in files)
        ours = _lines(_paimon("read", t))
        assert len(ours) > 300
        assert ours == _java_lines(java, t), round_
        _key_buckets(t)
        java.call_json("write-pk", t, "--rows", 100, "--runs", 1, "--bucket", -2, "--partitions", 2,
                       "--seed", 5, "--append", "true")
