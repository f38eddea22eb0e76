"""A run's traces as the core hands them over, and as numpy arrays.

`atmsim._core.run` returns each trace column as (numpy dtype, little-endian
bytes, labels or None): a few bytes a row, where Python lists took 30 to 40
(a port log holds millions of rows) and seconds to build. `decode` makes
numpy arrays of them, as `np.asarray` made of the lists the core once
returned (integers as int64, coded columns as their labels), so every
reader sees the same values and types. `spill` keeps a traced run's
columns in a folder instead of memory, read back table by table on demand
(`SpilledTraces`): a reproduction holds the traces of dozens of runs until
its figures are made.
"""
from __future__ import annotations

import pickle
from collections.abc import Mapping
from pathlib import Path


def _rows(col) -> int:
    import numpy as np

    return len(col[1]) // np.dtype(col[0]).itemsize if isinstance(col, tuple) else len(col)


def _array(col, start: int = 0, stop=None):
    """The column (rows start:stop) as a numpy array."""
    import numpy as np

    if not isinstance(col, tuple):
        return np.asarray(col)[start:stop]  # already decoded (a list or an array)
    dtype, data, labels = col
    if not data:
        return np.asarray([])  # what an empty list gave: no rows, float64
    size = np.dtype(dtype).itemsize
    n = len(data) // size
    stop = n if stop is None else min(stop, n)
    a = np.frombuffer(data, dtype=dtype, count=max(stop - start, 0), offset=start * size)
    if labels is not None:
        return np.asarray(labels)[a]
    if a.dtype.kind in "ui":
        return a.astype(np.int64)  # Python ints made int64 arrays
    return a.copy()  # writable, and free of the bytes


def decode_table(cols: Mapping, start: int = 0, stop=None) -> dict:
    """One table's columns (rows start:stop) as numpy arrays."""
    return {k: _array(v, start, stop) for k, v in cols.items()}


def decode(raw: Mapping) -> dict:
    """Every table of `raw` (the core's traces, or already decoded) as numpy
    arrays; `names` (the flow, port and VC names) as it is."""
    return {t: (cols if t == "names" else decode_table(cols)) for t, cols in raw.items()}


def _named(labels, codes):
    """labels[codes], a name per row. Where pandas keeps strings in arrow arrays (its default from 3.0), the
    column is made as one arrow `take`, the very array pandas would build from the Python strings one by
    one (a port log's million rows took 45 of jain96 tail-drop's 120 s that way)."""
    import numpy as np
    import pandas as pd

    dtype = pd.Series(["x"]).dtype
    if not len(codes) or not (isinstance(dtype, pd.StringDtype) and dtype.storage == "pyarrow"):
        return labels[codes]  # (no rows: an object column, as pandas makes of an empty one)
    import pyarrow as pa

    return pd.array(pa.array(list(labels), type=pa.large_string()).take(pa.array(np.asarray(codes, dtype=np.int64))), dtype=dtype)


def _frame(table: str, cols: Mapping, names: dict, start: int = 0, stop=None):
    """One table (rows start:stop) as a DataFrame, index columns replaced by the names they stand for."""
    import numpy as np
    import pandas as pd

    def columns():
        for k, v in decode_table(cols, start, stop).items():
            codes = v.astype(np.intp) if k in ("flow", "port", "vc", "node") else None
            if k == "flow":
                yield k, _named(names["flow"], codes)
            elif k == "port" and table == "queue":
                yield k, _named(names["port"], codes)
            elif k == "node" and table == "fabric":
                yield k, _named(names["fabric_node"], codes)
            elif k == "vc" and table == "port":
                yield "flow", _named(names["vc_flow"], codes)
                yield "direction", _named(names["vc_direction"], codes)
            else:
                yield k, v

    return pd.DataFrame(dict(columns()))


class TraceFrames(Mapping):
    """`atmsim.trace_frames`: table name -> DataFrame, each made on first
    read and kept."""

    def __init__(self, raw: Mapping):
        self._raw, self._tables, self._frames, self._names = raw, [t for t in raw if t != "names"], {}, None

    def __getitem__(self, table: str):
        if table not in self._frames:
            self._frames[table] = _frame(table, self._columns(table), self._index_names())
        return self._frames[table]

    def _columns(self, table: str) -> Mapping:
        if table not in self._tables:
            raise KeyError(table)
        return self._raw[table]

    def _index_names(self) -> dict:
        if self._names is None:
            import numpy as np

            self._names = {k: np.asarray(v, dtype=object) for k, v in self._raw.get("names", {}).items()}
        return self._names

    def rows(self, table: str) -> int:
        """Rows of `table`, without making its DataFrame."""
        cols = self._columns(table)
        return _rows(next(iter(cols.values()))) if cols else 0

    def chunks(self, table: str, size: int = 1_000_000):
        """`table` as DataFrames of `size` consecutive rows (at least one, maybe empty): a writer of a long
        port log holds one chunk, not the whole table, and none is kept here."""
        if table in self._frames:
            yield self._frames[table]
            return
        cols, n = self._columns(table), self.rows(table)
        for start in range(0, max(n, 1), size):
            yield _frame(table, cols, self._index_names(), start, start + size)

    def __iter__(self):
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        return f"TraceFrames({', '.join(self._tables)})"


class SpilledTraces(Mapping):
    """A traced run's columns kept in a folder, one file per table, decoded
    each time a table is read: a reader holds only the tables it is using."""

    def __init__(self, folder: Path, tables: list[str]):
        self._folder, self._tables = Path(folder), tables

    def __getitem__(self, table: str):
        if table not in self._tables:
            raise KeyError(table)
        with open(self._folder / f"{table}.pickle", "rb") as f:
            cols = pickle.load(f)
        return cols if table == "names" else decode_table(cols)

    def __iter__(self):
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)


def spill(folder: Path, raw: Mapping) -> SpilledTraces:
    """Writes `raw`'s tables into `folder` (made) and returns them as SpilledTraces."""
    folder = Path(folder)
    folder.mkdir(parents=True)
    for table, cols in raw.items():
        with open(folder / f"{table}.pickle", "wb") as f:
            pickle.dump(cols, f, protocol=pickle.HIGHEST_PROTOCOL)
    return SpilledTraces(folder, list(raw))
