"""``simfleet.read``: any results file the coordinator writes, as a polars DataFrame."""

from __future__ import annotations

import io
import os

import polars as pl

from ._native import msgpack_to_json_lines

_FORMATS = (".jsonl", ".csv", ".msgpack", ".parquet")


def read(path: str | os.PathLike) -> pl.DataFrame:
    """The rows of a records or summary file, in any of the four formats, by its extension.

    JSON Lines, CSV and Parquet are read by polars as written; MessagePack (maps, concatenated)
    is decoded by the native module into JSON Lines first. Nested values (a record's ``stats``,
    its ``agent_rewards``) stay nested in JSON Lines and MessagePack, and are the flat columns the
    coordinator writes in CSV and Parquet.
    """
    p = os.fspath(path)
    ext = os.path.splitext(p)[1].lower()
    if ext == ".jsonl":
        return pl.read_ndjson(p, infer_schema_length=None)
    if ext == ".csv":
        return pl.read_csv(p, infer_schema_length=None)
    if ext == ".parquet":
        return pl.read_parquet(p)
    if ext == ".msgpack":
        with open(p, "rb") as f:
            lines = msgpack_to_json_lines(f.read())
        if not lines:
            return pl.DataFrame()
        return pl.read_ndjson(io.BytesIO(lines), infer_schema_length=None)
    raise ValueError(f"{p}: unknown results format {ext!r} (one of {', '.join(_FORMATS)})")
