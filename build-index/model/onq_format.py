#!/usr/bin/env python3
"""Writer and reader for the two artefacts (all integers/floats little-endian).

query-model.onq
  b"ONRQMODL", u32 version=1, u32 dims, u32 vocab_len, u32 n_rows
  vocab_len x (u8 byte_len, UTF-8 bytes)            -- token-id order (vocab.txt)
  n_rows x (u32 token_id, f32 scale, dims x i8)     -- ascending token_id;
                                                       row = scale * i8 values
  u32 crc32 (zlib) of all preceding bytes

doc-projection.bin
  b"ONRQPROJ", u32 version=1, u32 in_dims=384, u32 out_dims
  in_dims x f32 mean, in_dims x out_dims f32 P (row-major: in x out)
  u32 crc32 of all preceding bytes
  y = normalise((x - mean) @ P)

Run as a script to check files:  python onq_format.py query-model.onq doc-projection.bin
"""
import struct
import sys
import zlib

import numpy as np

QMAGIC, PMAGIC, VERSION = b"ONRQMODL", b"ONRQPROJ", 1


def quantize_rows(rows, grid=1):
    """Symmetric per-row int8: scale = max|v|/127, q = round(v/scale).

    grid > 1 rounds q to multiples of `grid` (clipped to +-127) instead: still an
    ordinary int8 row for any reader, but with fewer distinct values, so gzip
    compresses it better (grid 8 ~ 5-bit precision)."""
    rows = np.asarray(rows, np.float32)
    scale = (np.abs(rows).max(1) / np.float32(127.0)).astype(np.float32)
    safe = np.where(scale > 0, scale, np.float32(1.0))
    q = np.clip(grid * np.rint(rows / safe[:, None] / grid), -127, 127).astype(np.int8)
    return scale, q


def encode_query_model(vocab, ids, rows, grid=1):
    """vocab: list of token strings in id order; ids: ascending token ids; rows: float [n, d]."""
    ids = np.asarray(ids, np.int64)
    assert np.all(np.diff(ids) > 0), "token ids must be strictly ascending"
    rows = np.asarray(rows, np.float32)
    d = rows.shape[1]
    scale, q = quantize_rows(rows, grid)
    out = bytearray(QMAGIC + struct.pack("<IIII", VERSION, d, len(vocab), len(ids)))
    for tok in vocab:
        b = tok.encode("utf-8")
        assert len(b) <= 255, tok
        out += struct.pack("<B", len(b)) + b
    rec = np.zeros(len(ids), dtype=np.dtype([("id", "<u4"), ("scale", "<f4"), ("q", "i1", (d,))]))
    rec["id"], rec["scale"], rec["q"] = ids, scale, q
    out += rec.tobytes()
    out += struct.pack("<I", zlib.crc32(bytes(out)) & 0xFFFFFFFF)
    return bytes(out)


def decode_query_model(data):
    """Returns dict(dims, vocab, ids, scale, q, rows). Raises ValueError on a bad file."""
    if len(data) < 28 or data[:8] != QMAGIC:
        raise ValueError("bad magic")
    (crc,) = struct.unpack("<I", data[-4:])
    if zlib.crc32(data[:-4]) & 0xFFFFFFFF != crc:
        raise ValueError("CRC mismatch")
    version, d, vocab_len, n_rows = struct.unpack("<IIII", data[8:24])
    if version != VERSION:
        raise ValueError(f"unsupported version {version}")
    pos, vocab = 24, []
    for _ in range(vocab_len):
        n = data[pos]
        vocab.append(data[pos + 1:pos + 1 + n].decode("utf-8"))
        pos += 1 + n
    dt = np.dtype([("id", "<u4"), ("scale", "<f4"), ("q", "i1", (d,))])
    if pos + n_rows * dt.itemsize != len(data) - 4:
        raise ValueError("length mismatch")
    rec = np.frombuffer(data, dt, n_rows, pos)
    ids = rec["id"].astype(np.int64)
    if np.any(np.diff(ids) <= 0) or (n_rows and ids[-1] >= vocab_len):
        raise ValueError("row ids not ascending / out of range")
    rows = rec["scale"][:, None] * rec["q"].astype(np.float32)
    return dict(dims=d, vocab=vocab, ids=ids, scale=rec["scale"].copy(), q=rec["q"].copy(), rows=rows)


def encode_projection(mean, P):
    mean = np.asarray(mean, "<f4")
    P = np.asarray(P, "<f4")
    assert mean.shape == (P.shape[0],)
    out = bytearray(PMAGIC + struct.pack("<III", VERSION, P.shape[0], P.shape[1]))
    out += mean.tobytes() + np.ascontiguousarray(P).tobytes()
    out += struct.pack("<I", zlib.crc32(bytes(out)) & 0xFFFFFFFF)
    return bytes(out)


def decode_projection(data):
    if len(data) < 24 or data[:8] != PMAGIC:
        raise ValueError("bad magic")
    (crc,) = struct.unpack("<I", data[-4:])
    if zlib.crc32(data[:-4]) & 0xFFFFFFFF != crc:
        raise ValueError("CRC mismatch")
    version, din, dout = struct.unpack("<III", data[8:20])
    if version != VERSION:
        raise ValueError(f"unsupported version {version}")
    if len(data) != 20 + 4 * din + 4 * din * dout + 4:
        raise ValueError("length mismatch")
    mean = np.frombuffer(data, "<f4", din, 20)
    P = np.frombuffer(data, "<f4", din * dout, 20 + 4 * din).reshape(din, dout)
    return dict(in_dims=din, out_dims=dout, mean=mean, P=P)


def embed_query(model, token_ids):
    """Reference static embedding: sum of rows of the given WordPiece ids, L2-normalised."""
    index = {int(t): i for i, t in enumerate(model["ids"])}
    v = np.zeros(model["dims"], np.float32)
    for t in token_ids:
        i = index.get(int(t))
        if i is not None:
            v += model["rows"][i]
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


if __name__ == "__main__":
    q = decode_query_model(open(sys.argv[1], "rb").read())
    print(f"{sys.argv[1]}: CRC ok, dims={q['dims']} vocab={len(q['vocab'])} rows={len(q['ids'])}")
    if len(sys.argv) > 2:
        p = decode_projection(open(sys.argv[2], "rb").read())
        print(f"{sys.argv[2]}: CRC ok, {p['in_dims']} -> {p['out_dims']}")
        assert p["out_dims"] == q["dims"], "dims of the two artefacts differ"
