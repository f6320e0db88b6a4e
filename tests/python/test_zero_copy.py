"""The batches a read hands to pyarrow are libpaimon's buffers, not copies.

The test takes the Arrow C stream from the capsule itself (ctypes), reads
one ArrowArray, records the addresses of its children's buffers as the C
side exported them, imports that array into pyarrow, and checks pyarrow's
buffers sit at exactly those addresses.  to_arrow() is checked too: pyarrow
allocates (almost) nothing from its pool while importing a large read.
"""
import ctypes

import pyarrow as pa

from paimon_c import Schema, _native

from conftest import SCHEMA, data


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_void_p),
                        ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                        ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
                        ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                        ("private_data", ctypes.c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                       ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                       ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                       ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
                       ("dictionary", ctypes.c_void_p), ("release", ctypes.c_void_p),
                       ("private_data", ctypes.c_void_p)]


class ArrowArrayStream(ctypes.Structure):
    pass


GET_SCHEMA = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))
GET_NEXT = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))
RELEASE = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
ArrowArrayStream._fields_ = [("get_schema", GET_SCHEMA), ("get_next", GET_NEXT), ("get_last_error", ctypes.c_void_p),
                             ("release", RELEASE), ("private_data", ctypes.c_void_p)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def make_table(catalog, rows=50_000):
    catalog.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA), False)
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(data(0, rows, parts=1))
    wb.new_commit().commit(w.prepare_commit())
    return t


def test_pyarrow_sees_the_exported_buffers(catalog):
    t = make_table(catalog, rows=10_000)
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    cap = _native.reader_stream(t._h, [s._h for s in splits], None, -1, 0, 0)
    stream = ArrowArrayStream.from_address(_get_pointer(cap, b"arrow_array_stream"))
    schema, array = ArrowSchema(), ArrowArray()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    assert stream.get_next(ctypes.byref(stream), ctypes.byref(array)) == 0
    assert array.release and array.length > 0 and array.n_children == 3
    exported = []
    for c in range(array.n_children):
        child = array.children[c].contents
        exported.append([child.buffers[b] for b in range(child.n_buffers)])
    batch = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
    for c, col in enumerate(batch.columns):
        for b, buf in enumerate(col.buffers()):
            if buf is not None and exported[c][b]:
                assert buf.address == exported[c][b], "column %d buffer %d was copied" % (c, b)
    assert batch.column(0)[0].as_py() == 0
    del batch
    stream.release(ctypes.byref(stream))  # the capsule's destructor then finds it released
    del cap


def test_to_arrow_allocates_no_copies(catalog):
    t = make_table(catalog, rows=200_000)
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    before = pa.total_allocated_bytes()
    got = rb.new_read().to_arrow(splits)
    assert got.num_rows == 200_000
    assert got.nbytes > 2_000_000
    # the columns live in libpaimon's buffers, not in pyarrow's pool
    assert pa.total_allocated_bytes() - before < got.nbytes // 20
    # and the buffers outlive the reader, the table handle and the split objects
    del rb, splits, t
    import gc
    gc.collect()
    assert got.column("id")[199_999].as_py() == 199_999
