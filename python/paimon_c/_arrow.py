"""Arrow data across the binding, by the Arrow PyCapsule interface.

Outputs: the extension hands out ``arrow_array_stream`` / ``arrow_schema``
capsules; :class:`CapsuleStream` and :func:`schema_of` turn them into
pyarrow objects without copying.  Inputs: :func:`as_arrow` accepts pyarrow
tables, record batches and readers, pandas data frames, and any object
with ``__arrow_c_stream__`` or ``__arrow_c_array__`` (polars, duckdb,
nanoarrow ...), imported by pyarrow without copying; only columns of
Arrow types libpaimon's import does not take (view, dictionary and
run-end encoded types) are cast to their plain equivalents.
"""

import pyarrow as pa


class CapsuleStream:
    """A one-shot holder of an ``arrow_array_stream`` capsule, for any
    consumer of the Arrow PyCapsule interface.  A ``requested_schema`` is
    not applied (the stream has the table's types; the interface lets a
    producer decline it): consumers cast afterwards."""

    __slots__ = ("_capsule",)

    def __init__(self, capsule):
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema=None):
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise ValueError("this Arrow stream was already consumed")
        return capsule


class _CapsuleSchema:
    __slots__ = ("_capsule",)

    def __init__(self, capsule):
        self._capsule = capsule

    def __arrow_c_schema__(self):
        return self._capsule


def schema_of(capsule) -> pa.Schema:
    """A pyarrow schema from an ``arrow_schema`` capsule (consumed)."""
    return pa.schema(_CapsuleSchema(capsule))


def reader_of(capsule) -> pa.RecordBatchReader:
    """A pyarrow reader from an ``arrow_array_stream`` capsule (consumed)."""
    return pa.RecordBatchReader.from_stream(CapsuleStream(capsule))


def _plain_type(t: pa.DataType) -> pa.DataType:
    """t with every type libpaimon's Arrow import refuses replaced by the
    plain type of the same values."""
    if pa.types.is_dictionary(t):
        return _plain_type(t.value_type)
    if pa.types.is_run_end_encoded(t):
        return _plain_type(t.value_type)
    if t == pa.string_view():
        return pa.string()
    if t == pa.binary_view():
        return pa.binary()
    if pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        return pa.list_(_plain_field(t.value_field))
    if pa.types.is_list(t):
        return pa.list_(_plain_field(t.value_field))
    if pa.types.is_large_list(t):
        return pa.large_list(_plain_field(t.value_field))
    if pa.types.is_fixed_size_list(t):
        return pa.list_(_plain_field(t.value_field))
    if pa.types.is_map(t):
        return pa.map_(_plain_field(t.key_field), _plain_field(t.item_field), t.keys_sorted)
    if pa.types.is_struct(t):
        return pa.struct([_plain_field(t.field(i)) for i in range(t.num_fields)])
    return t


def _plain_field(f: pa.Field) -> pa.Field:
    return f.with_type(_plain_type(f.type))


def _plain_schema(s: pa.Schema) -> pa.Schema:
    return pa.schema([_plain_field(f) for f in s], metadata=s.metadata)


def as_arrow(data):
    """data as a pyarrow Table, RecordBatch or RecordBatchReader whose
    types libpaimon imports."""
    if isinstance(data, (pa.Table, pa.RecordBatch, pa.RecordBatchReader)):
        obj = data
    elif type(data).__module__.startswith("pandas") and type(data).__name__ == "DataFrame":
        obj = pa.Table.from_pandas(data, preserve_index=False)
    elif hasattr(data, "__arrow_c_stream__"):
        obj = pa.RecordBatchReader.from_stream(data)
    elif hasattr(data, "__arrow_c_array__"):
        obj = pa.record_batch(data)
    else:
        raise TypeError("expected Arrow data (pyarrow Table/RecordBatch/RecordBatchReader, a pandas "
                        "DataFrame, or an object with __arrow_c_stream__ or __arrow_c_array__), got %s"
                        % type(data).__name__)
    plain = _plain_schema(obj.schema)
    if plain.equals(obj.schema, check_metadata=False):
        return obj
    if isinstance(obj, pa.RecordBatchReader):
        src = obj
        return pa.RecordBatchReader.from_batches(plain, (b.cast(plain) for b in src))
    return obj.cast(plain)
