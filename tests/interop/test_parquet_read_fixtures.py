"""Every Parquet file written by Apache Paimon Java (shared fixtures) reads
with `paimon cat` exactly as pyarrow reads it, value for value."""
import pathlib

import pyarrow.parquet as pq
import pytest

from conftest import FIXTURES, run_paimon
from test_parquet_read_render import first_difference, parse_lines, render_table

FILES = sorted(str(p) for p in (FIXTURES / "java-written").rglob("*.parquet"))


def test_fixture_files_exist():
    assert len(FILES) >= 100


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(pathlib.Path(p).relative_to(FIXTURES)))
def test_java_written_file_matches_pyarrow(path):
    ours = parse_lines(run_paimon("cat", path).stdout)
    theirs = render_table(pq.ParquetFile(path).read())
    diff = first_difference(ours, theirs)
    assert diff is None, diff
