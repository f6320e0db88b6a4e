"""The reader's batches are valid Arrow: read a pyarrow-written file through
libpaimon (ctypes: pm_pq_reader_open_memory / next_batch), export every
batch with pm_batch_export, import it into pyarrow, run full validation
(offsets, validity, child lengths of every nested level) and compare the
values with pyarrow's own reading of the file."""
import ctypes
import os
import pathlib

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from test_parquet_read_matrix import make_table
from test_parquet_read_render import first_difference, render_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIB_PATH = os.environ.get("PAIMON_LIB", str(ROOT / "build" / "libpaimon_testing.so"))


class ReaderOptions(ctypes.Structure):
    # mirrors pm_pq_reader_options (src/format/parquet/parquet_reader.h) field for field
    _fields_ = [("batch_rows", ctypes.c_int64), ("columns", ctypes.c_void_p), ("ncolumns", ctypes.c_size_t),
                ("column_ids", ctypes.c_void_p), ("ncolumn_ids", ctypes.c_size_t), ("filter", ctypes.c_void_p),
                ("filter_ctx", ctypes.c_void_p), ("max_page_bytes", ctypes.c_size_t),
                ("footer_only", ctypes.c_bool), ("dict_columns", ctypes.c_void_p), ("ndict_columns", ctypes.c_size_t),
                ("codec", ctypes.c_void_p), ("meta", ctypes.c_void_p), ("chunks_only", ctypes.c_bool),
                ("recycle", ctypes.c_void_p)]


@pytest.fixture(scope="module")
def lib():
    if not os.path.exists(LIB_PATH):
        pytest.fail(f"{LIB_PATH} not built (run `make build`)")
    lib = ctypes.CDLL(LIB_PATH)
    vp = ctypes.c_void_p
    lib.pm_pq_reader_open_memory.argtypes = [ctypes.POINTER(vp), ctypes.c_char_p, ctypes.c_size_t,
                                             ctypes.POINTER(ReaderOptions)]
    lib.pm_pq_reader_open_memory.restype = vp
    lib.pm_pq_reader_next_batch.argtypes = [vp, ctypes.POINTER(vp)]
    lib.pm_pq_reader_next_batch.restype = vp
    lib.pm_pq_reader_free.argtypes = [vp]
    lib.pm_batch_export.argtypes = [vp, vp, vp]
    lib.pm_batch_export.restype = vp
    lib.pm_error_format.argtypes = [vp]
    lib.pm_error_format.restype = ctypes.c_char_p
    return lib


def check(lib, err):
    if err:
        raise AssertionError(lib.pm_error_format(err).decode())


def read_batches(lib, data, batch_rows):
    opts = ReaderOptions(batch_rows=batch_rows)
    r = ctypes.c_void_p()
    check(lib, lib.pm_pq_reader_open_memory(ctypes.byref(r), data, len(data), ctypes.byref(opts)))
    out = []
    try:
        while True:
            b = ctypes.c_void_p()
            check(lib, lib.pm_pq_reader_next_batch(r, ctypes.byref(b)))
            if not b.value:
                break
            # ArrowSchema / ArrowArray are 72 / 80 bytes; pyarrow owns them after import
            schema = ctypes.create_string_buffer(128)
            array = ctypes.create_string_buffer(128)
            check(lib, lib.pm_batch_export(b, ctypes.addressof(schema), ctypes.addressof(array)))
            rb = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
            rb.validate(full=True)
            out.append(rb)
    finally:
        lib.pm_pq_reader_free(r)
    return out


@pytest.mark.parametrize("version,dictionary", [("1.0", True), ("2.0", False)])
def test_batches_are_valid_arrow(tmp_path, lib, version, dictionary):
    t = make_table(n=300, seed=11)
    path = tmp_path / "t.parquet"
    pq.write_table(t, str(path), data_page_version=version, use_dictionary=dictionary, row_group_size=120,
                   data_page_size=700)
    batches = read_batches(lib, path.read_bytes(), 50)
    assert sum(b.num_rows for b in batches) == 300
    assert max(b.num_rows for b in batches) <= 50
    ours = render_table(pa.Table.from_batches(batches))
    theirs = render_table(pq.ParquetFile(str(path)).read())
    diff = first_difference(ours, theirs)
    assert diff is None, diff
    # types survive the export: nested shapes and timezone-ness
    s = batches[0].schema
    assert pa.types.is_list(s.field("nested").type)
    assert pa.types.is_map(s.field("nested").type.value_type.field("m").type)
    assert s.field("ts_us_tz").type.tz is not None and s.field("ts_us").type.tz is None
