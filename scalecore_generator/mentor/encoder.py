"""The sentence encoder (all-MiniLM-L6-v2, int8 ONNX: build_tools/mentor_model.py): the passages
embedded at build with the same model the reader's browser runs on the question
(mentor-encoder.js), and the files it needs on the site."""

from __future__ import annotations

import json
import re
from pathlib import Path

from scalecore_generator.foundation.cache import user

ENCODER_FOLDER = Path(__file__).resolve().parents[1] / "vendor" / "mentor-model"
ENCODER_PIN = Path(__file__).resolve().parents[1] / "vendor" / "mentor-model.json"
ENCODER_SITE = "assets/scalecore/models/mentor-encoder"  # the model, its vocabulary and onnxruntime-web
MAX_TOKENS = 256  # the model's max_seq_length, [CLS] and [SEP] included
_CJK = ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F), (0x2B740, 0x2B81F),
        (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F))


def word_pieces(text: str, ids: dict[str, int]) -> list[int]:
    """BERT's uncased tokenizer (as all-MiniLM-L6-v2's tokenizer.json sets it: clean text, CJK
    characters apart, accents stripped, lower case; split at white space and punctuation; WordPiece,
    longest match first, a word over 100 characters unknown), "[CLS] ... [SEP]", at most 256 ids.
    mentor-encoder.js does the same, character for character (tests/test_mentor_encoder.py)."""
    import unicodedata

    out, chars = [], []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD:
            continue
        category = unicodedata.category(ch)
        if ch in "\t\n\r" or category == "Zs":
            chars.append(" ")
        elif category.startswith("C"):
            continue
        elif any(low <= cp <= high for low, high in _CJK):
            chars.append(f" {ch} ")
        else:
            chars.append(ch)
    clean = "".join(c for c in unicodedata.normalize("NFD", "".join(chars)) if unicodedata.category(c) != "Mn").lower()
    words: list[str] = []
    for chunk in clean.split():
        word = ""
        for ch in chunk:
            cp = ord(ch)
            if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or unicodedata.category(ch).startswith("P"):
                if word:
                    words.append(word)
                words.append(ch)
                word = ""
            else:
                word += ch
        if word:
            words.append(word)
    unknown = ids["[UNK]"]
    for word in words:
        if len(word) > 100:
            out.append(unknown)
            continue
        found, start = [], 0
        while start < len(word):
            end = len(word)
            while end > start and ((("##" if start else "") + word[start:end]) not in ids):
                end -= 1
            if end == start:
                found = [unknown]
                break
            found.append(ids[("##" if start else "") + word[start:end]])
            start = end
        out.extend(found)
    return [ids["[CLS]"]] + out[:MAX_TOKENS - 2] + [ids["[SEP]"]]


class Encoder:
    """The int8 model in onnxruntime (the same file the browser runs): a text -> its unit vector.
    A module's vectors are made with its script, which the build's memo keeps (Collector._remembered):
    a warm build, or a module whose pages did not change, embeds nothing."""

    def __init__(self):
        import onnxruntime  # a build dependency where the mentor is on (pyproject.toml)

        pin = json.loads(ENCODER_PIN.read_text(encoding="utf-8"))
        self.key = pin["files"]["model.onnx"]
        vocab = (ENCODER_FOLDER / "vocab.txt").read_text(encoding="utf-8").split("\n")
        self.ids = {piece: i for i, piece in enumerate(vocab) if piece}
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the browser's wasm runs one thread too: the same sums in the same order
        self.session = onnxruntime.InferenceSession(str(ENCODER_FOLDER / "model.onnx"), options,
                                                    providers=["CPUExecutionProvider"])
        self.seen: dict[str, list[float]] = {}

    def __call__(self, text: str) -> list[float]:
        import numpy as np

        if text not in self.seen:
            ids = np.array([word_pieces(text, self.ids)], dtype=np.int64)
            self.seen[text] = [float(v) for v in self.session.run(["embedding"], {"input_ids": ids})[0][0]]
        return self.seen[text]


_ENCODER: list = []


def encoder() -> Encoder:
    if not _ENCODER:
        _ENCODER.append(Encoder())
    return _ENCODER[0]


def plain_text(sentence: list, math: list[dict]) -> str:
    """A sentence's plain text, formulas as their text: mentor-core.js's plain(), the same string."""
    text = "".join(part if isinstance(part, str) else (math[part["m"]]["text"] if part["m"] < len(math) else "")
                   for part in sentence)
    return re.sub(r"\s+", " ", text).strip()


def packed_rows(vectors: list[list[float]]) -> bytes:
    """Unit vectors packed: each row's float32 scale (its largest magnitude / 127), then the rows
    as int8 (cosine to the float vector above 0.9999)."""
    import struct

    scales, rows = [], []
    for v in vectors:
        scale = max(abs(x) for x in v) / 127 or 1.0
        scales.append(struct.pack("<f", scale))
        rows.append(bytes(max(-127, min(127, round(x / scale))) & 0xFF for x in v))
    return b"".join(scales) + b"".join(rows)


def pack(vectors: list[list[float]]) -> str:
    """Unit vectors packed (packed_rows), as base64."""
    import base64

    return base64.b64encode(packed_rows(vectors)).decode("ascii")


def encode_passages(passages: list[dict], math: list[dict], binary: bytearray | None = None) -> dict:
    """Each passage's vectors, made at build with the model the browser runs on the question:
    the passage's own (its section, label and sentences: mentor-core.js's Mentor.meaning), each
    sentence's, and a self-check's question; with where the browser finds the model. With
    ``binary``, each passage's packed rows are appended to it, the passage saying how many
    ("rows"): one binary file the page fetches with the model (script.vectors_path); without it,
    they travel in the passage, base64 ("vectors")."""
    model = encoder()
    for passage in passages:
        texts = [plain_text(sentence, math) for sentence in passage["sentences"]] if passage.get("sentences") \
            else [re.sub(r"\s+", " ", passage.get("text", "")).strip()]
        rows = [(passage.get("section") or "") + ". " + (passage.get("label") or "") + ". " + " ".join(texts)] + texts
        if (passage.get("parts") or {}).get("question"):
            rows.append(passage["parts"]["question"])
        vectors = [model(text) for text in rows]
        if binary is None:
            passage["vectors"] = pack(vectors)
        else:
            passage["rows"] = len(vectors)
            binary += packed_rows(vectors)
    return {"sha256": model.key, "dims": 384, "model": f"{ENCODER_SITE}/model.onnx.gz", "vocab": f"{ENCODER_SITE}/vocab.txt",
            "runtime": f"{ENCODER_SITE}/ort.wasm.min.js", "module": f"{ENCODER_SITE}/ort-wasm-simd-threaded.js",
            "wasm": f"{ENCODER_SITE}/ort-wasm-simd-threaded.wasm.gz", "max_tokens": MAX_TOKENS}


# The two big files are published gzip-compressed only (model.onnx 23.4 MB -> 18.3 MB, the wasm
# 14.2 MB -> 3.7 MB): a host that does not compress sends the .gz as it is, and the page decodes
# it (mentor-encoder.js, DecompressionStream, as the full stack's parts are); one that decodes it
# itself sends the raw bytes, which the page takes as they are. No raw copy is published.
PACKED = ("model.onnx", "ort-wasm-simd-threaded.wasm")


def encoder_assets(node_modules: Path, cache: Path | None = None, digest=None) -> dict:
    """Site path -> file of the sentence encoder and of onnxruntime-web's wasm backend, served
    under assets/scalecore/models/ (fetched by the mentor only when the reader reaches the
    question box; offline copies only when asked, like the other models). The PACKED files are
    their gzip copies, made once per machine in the user cache (foundation/cache/user.py: the same
    for every site, and never a change to a site's cache by a build that then fails) under their
    sha256; ``cache``: the build's cache folder (None: no build, no encoder);
    ``digest(path)``: a file's sha256 (the build's ledger, which knows it without reading it)."""
    ort = node_modules / "onnxruntime-web" / "dist"
    files = {f"{ENCODER_SITE}/model.onnx": ENCODER_FOLDER / "model.onnx", f"{ENCODER_SITE}/vocab.txt": ENCODER_FOLDER / "vocab.txt",
             f"{ENCODER_SITE}/ort.wasm.min.js": ort / "ort.wasm.min.js",
             f"{ENCODER_SITE}/ort-wasm-simd-threaded.js": ort / "ort-wasm-simd-threaded.mjs",  # an ES module, served as .js
             f"{ENCODER_SITE}/ort-wasm-simd-threaded.wasm": ort / "ort-wasm-simd-threaded.wasm",
             f"{ENCODER_SITE}/LICENSE-onnxruntime-web.txt": ENCODER_FOLDER.parent / "LICENSES" / "MIT-onnxruntime.txt",
             f"{ENCODER_SITE}/LICENSE-all-MiniLM-L6-v2.txt": ENCODER_FOLDER.parent / "LICENSES" / "Apache-2.0.txt"}
    if cache is None or not encoder_available() or not all(path.is_file() for path in files.values()):
        return {}
    for name in PACKED:
        site_path = f"{ENCODER_SITE}/{name}"
        files[site_path + ".gz"] = packed(files.pop(site_path), user.folder() / "mentor-encoder", digest)
    return files


def packed(source: Path, folder: Path, digest=None) -> Path:
    """``source`` gzip-compressed (deterministic: runtime/fullstack.py's), kept in ``folder`` under
    its sha256 and compressed once: a warm build reads neither the source (its digest comes from
    the build's ledger: 37 MB hashed on every build otherwise) nor the copy."""
    import hashlib

    from scalecore_generator.runtime.fullstack import _gzip

    data = None
    if digest is None:
        data = source.read_bytes()
        sha = hashlib.sha256(data).hexdigest()
    else:
        sha = digest(source)
    target = folder / f"{sha[:16]}-{source.name}.gz"
    if not target.is_file():
        user.write_atomically(target, _gzip(source.read_bytes() if data is None else data))
    return target


def encoder_available() -> bool:
    """Whether the build can embed passages: onnxruntime installed and the model vendored. Found,
    not imported: a warm build embeds nothing (its passages' vectors are in the memo), and
    importing onnxruntime cost it 87 ms."""
    import importlib.util

    return importlib.util.find_spec("onnxruntime") is not None and (ENCODER_FOLDER / "model.onnx").is_file() \
        and ENCODER_PIN.is_file()
