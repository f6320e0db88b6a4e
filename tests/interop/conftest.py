"""Shared pytest fixtures for interop tests.

Interop tests run our CLI (`PAIMON_BIN`, default build/paimon) and library
against real peers (pyarrow, duckdb, fastavro, pypaimon) on the same files.
"""
import json
import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(os.environ.get("PAIMON_FIXTURES", ROOT / ".." / "shared" / "fixtures")).resolve()


def paimon_bin():
    return os.environ.get("PAIMON_BIN", str(ROOT / "build" / "paimon"))


def paimon_dev_bin():
    """The developer tool (write-parquet, dv) built beside the CLI."""
    return os.environ.get("PAIMON_DEV_BIN", str(pathlib.Path(paimon_bin()).parent / "paimon-dev"))


def _run(binary, args, check, input):
    proc = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"{os.path.basename(binary)} {' '.join(map(str, args))} failed "
                             f"({proc.returncode}):\n{proc.stderr}")
    return proc


def run_paimon(*args, check=True, input=None):
    """Run the CLI; return CompletedProcess (text mode)."""
    return _run(paimon_bin(), args, check, input)


def run_paimon_dev(*args, check=True, input=None):
    """Run the developer tool paimon-dev; return CompletedProcess (text mode)."""
    return _run(paimon_dev_bin(), args, check, input)


def run_paimon_jsonl(*args):
    out = run_paimon(*args).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def run_paimon_dev_jsonl(*args):
    out = run_paimon_dev(*args).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture
def paimon():
    return run_paimon


@pytest.fixture
def fixtures_dir():
    return FIXTURES


@pytest.fixture
def copy_table(tmp_path):
    """Copy a fixture table (read-only originals) into tmp_path and return the copy."""
    def _copy(src):
        dst = tmp_path / pathlib.Path(src).name
        shutil.copytree(src, dst)
        return dst
    return _copy
