"""The mentor's sentence encoder (issue 43, round 4): the build and the reader's browser embed the same way.

- the model and its vocabulary are the files build_tools/mentor_model.py makes (sha256 pinned in
  scalecore_generator/vendor/mentor-model.json), served with onnxruntime-web's wasm by the site;
- the word pieces of mentor-encoder.js (in Node) are those of mentor/encoder.py's word_pieces, id for id,
  on the module's own text and on text made to trip a tokenizer (accents, CJK, symbols, long words);
- the question's vector from mentor-encoder.js in onnxruntime-web (Node, the page's own files) is
  the build's vector of the same text from Python onnxruntime: the same within 1e-5 for most texts,
  and within a cosine of 0.99 for every one (dynamic int8 quantisation rounds activations at run
  time, where x86's and wasm's float kernels may differ in the last bit); the vectors the module's
  data carries (int8 rows) are the browser's within a cosine of 0.99;
- tests/mentor/answer.js answers on the encoder where the site has it;
- in Chromium, under the page's own Content-Security-Policy: the mentor loads the encoder when the
  reader reaches the box (not the static table), answers with it, and falls back to the table when
  the model cannot be fetched.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

pytest.register_assert_rewrite("browser")
from browser import page_url  # noqa: E402
from scalecore_generator import mentor  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
MODULE = "modules/softmax-range.html"
ENCODER_JS = REPO / "scalecore_generator" / "theme" / "assets" / "scalecore-module" / "mentor-encoder.js"
ORT = REPO / "scalecore_generator" / "vendor" / "node_modules" / "onnxruntime-web" / "dist"

TRICKY = [
    "why does the atention go all to one word when i use the big corpus?",
    "What is the difference between one head of width 32 and 8 heads of width 4 in cost and number of parameters?",
    "Naïve café, Ångström, ÉCOLE: accents go; 日本語の文 and 中文 stand apart.",
    "√8 · σ² ≈ 0.5, E[x^2] = 1/d_k; q·k/√d_k — «quoted» “curly” ‘single’ … and ½.",
    "tab\there\nnew line\r\u00a0no-break\u2003em space\u200bzero width\ufeffbom",
    "x" * 120 + " after a word of 120 letters",
    "emoji 🙂 and 𝑥 (mathematical italic) and İstanbul",
    "LayerNorm's pre-LN post-LN QK-norm (Dehghani et al., 2023) #hash @at $dollar %per ^caret `tick` |pipe| ~tilde",
]


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node is not installed")
    if not (ORT / "ort.wasm.min.js").is_file():
        pytest.skip("onnxruntime-web is not vendored (build_tools/vendor.py)")
    if not mentor.encoder_available():
        pytest.skip("onnxruntime (Python) is not installed")
    return node


def _in_node(texts: list[str], tmp_path: Path) -> list[dict]:
    """mentor-encoder.js in Node, with the vendored onnxruntime-web: each text's pieces and vector."""
    script = tmp_path / "encode.js"
    script.write_text(f"""
const fs = require("fs"), url = require("url");
const ort = require({json.dumps(str(ORT / "ort.wasm.min.js"))});
const {{ Encoder }} = require({json.dumps(str(ENCODER_JS))});
const texts = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
Encoder.create(ort, fs.readFileSync({json.dumps(str(mentor.ENCODER_FOLDER / "model.onnx"))}),
  fs.readFileSync({json.dumps(str(mentor.ENCODER_FOLDER / "vocab.txt"))}, "utf8"),
  {{ paths: {{ mjs: url.pathToFileURL({json.dumps(str(ORT / "ort-wasm-simd-threaded.mjs"))}).href,
             wasm: url.pathToFileURL({json.dumps(str(ORT / "ort-wasm-simd-threaded.wasm"))}).href }} }})
  .then(async (encoder) => {{
    const out = [];
    for (const text of texts) out.push({{ pieces: encoder.pieces(text), vector: Array.from(await encoder.embed(text)) }});
    process.stdout.write(JSON.stringify(out));
  }}).catch((e) => {{ console.error(e); process.exit(1); }});
""", encoding="utf-8")
    (tmp_path / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    done = subprocess.run([_node(), str(script), str(tmp_path / "texts.json")], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _data(site: Path, page: str) -> dict:
    text = (site / mentor.script_path(page)).read_text(encoding="utf-8")
    return json.loads(text.split("]=", 1)[1].rstrip(";\n"))


def test_the_model_is_the_pinned_file_and_the_site_serves_it_with_its_runtime(built_site):
    pin = json.loads(mentor.ENCODER_PIN.read_text(encoding="utf-8"))
    for name, sha in pin["files"].items():
        assert hashlib.sha256((mentor.ENCODER_FOLDER / name).read_bytes()).hexdigest() == sha
    if not mentor.encoder_available():
        pytest.skip("onnxruntime (Python) is not installed: the site ships the table alone")
    served = built_site / mentor.ENCODER_SITE
    fetched = ("model.onnx.gz", "vocab.txt", "ort.wasm.min.js", "ort-wasm-simd-threaded.js", "ort-wasm-simd-threaded.wasm.gz")
    for name in (*fetched, "LICENSE-onnxruntime-web.txt", "LICENSE-all-MiniLM-L6-v2.txt"):
        assert (served / name).is_file(), name
    # the big two published gzip-compressed only (any host sends them as they are; the page decodes them)
    assert not (served / "model.onnx").exists() and not (served / "ort-wasm-simd-threaded.wasm").exists()
    assert gzip.decompress((served / "model.onnx.gz").read_bytes()) == (mentor.ENCODER_FOLDER / "model.onnx").read_bytes()
    ort_wasm = ORT / "ort-wasm-simd-threaded.wasm"
    assert gzip.decompress((served / "ort-wasm-simd-threaded.wasm.gz").read_bytes()) == ort_wasm.read_bytes()
    assert max((served / name).stat().st_size for name in fetched) < 25 * 2**20  # a static host's limit for one file
    total = sum((served / name).stat().st_size for name in fetched)
    assert total < 23 * 10**6  # 22.3 MB sent by a host that does not compress (was 38 MB raw)
    data = _data(built_site, MODULE)
    assert data["encoder"]["sha256"] == pin["files"]["model.onnx"]
    # the passages' vectors in one binary file beside the script: int8 rows of 384 and a float32 scale each
    assert all(p.get("rows") and "vectors" not in p for p in data["passages"])
    vectors = built_site / data["encoder"]["vectors"]
    assert vectors.stat().st_size == sum(p["rows"] for p in data["passages"]) * (4 + 384)


def test_the_browser_cuts_words_into_the_same_pieces_as_the_build(tmp_path, built_site):
    data = _data(built_site, MODULE)
    texts = TRICKY + [mentor.plain_text(s, data["math"]) for p in data["passages"][:40] for s in p["sentences"]]
    ids = {piece: i for i, piece in enumerate((mentor.ENCODER_FOLDER / "vocab.txt").read_text(encoding="utf-8").split("\n")) if piece}
    browser = _in_node(texts, tmp_path)
    for text, got in zip(texts, browser):
        assert got["pieces"] == mentor.word_pieces(text, ids), text
    assert len(mentor.word_pieces("word " * 400, ids)) == mentor.MAX_TOKENS


def test_the_browser_embeds_a_question_as_the_build_embeds_it(tmp_path, built_site):
    data = _data(built_site, MODULE)
    sentences = [mentor.plain_text(s, data["math"]) for p in data["passages"][:12] for s in p["sentences"]]
    texts = TRICKY + sentences
    browser = _in_node(texts, tmp_path)
    build = mentor.Encoder()
    same, cosines = 0, []
    for text, got in zip(texts, browser):
        want = build(text)
        assert len(got["vector"]) == len(want) == 384
        assert abs(sum(a * a for a in got["vector"]) - 1) < 1e-4
        cosines.append(sum(a * b for a, b in zip(got["vector"], want)))
        same += max(abs(a - b) for a, b in zip(got["vector"], want)) <= 1e-5
    # Dynamic int8 quantisation rounds the activations at run time: where the float kernels of x86
    # and of wasm differ in the last bit, a rounding can flip and move a vector a little (measured:
    # 40 of 126 texts, cosine 0.994 at worst; each as near the float model's as the other).
    assert min(cosines) > 0.99 and sum(cosines) / len(cosines) > 0.998
    assert same >= len(texts) / 2
    # the module's vectors file: each passage's rows in turn, its own row, then each sentence's (int8, a scale each)
    import struct

    by_text = dict(zip(texts, browser))
    checked = 0
    packed, at = (built_site / data["encoder"]["vectors"]).read_bytes(), 0
    for passage in data["passages"][:12]:
        n = passage["rows"]
        raw, at = packed[at:at + n * (4 + 384)], at + n * (4 + 384)
        scales = struct.unpack(f"<{n}f", raw[:4 * n])
        rows = [[(b - 256 if b > 127 else b) * scales[i] for b in raw[4 * n + 384 * i:4 * n + 384 * (i + 1)]] for i in range(n)]
        for i, sentence in enumerate(passage["sentences"]):
            text = mentor.plain_text(sentence, data["math"])
            row, vector = rows[i + 1], by_text[text]["vector"]
            cosine = sum(a * b for a, b in zip(row, vector)) / sum(a * a for a in row) ** 0.5
            assert cosine > 0.99, text
            checked += 1
    assert checked >= 12


def test_a_published_gz_file_is_decoded_and_one_a_host_decoded_is_taken_as_it_is(tmp_path):
    """mentor-encoder.js's gunzip, as the page runs it on model.onnx.gz: gzip's bytes are decoded
    (DecompressionStream), and the raw bytes a host sends when it decoded the file itself
    (Content-Encoding: gzip) are taken as they are."""
    raw = bytes(range(256)) * 64
    (tmp_path / "packed.gz").write_bytes(gzip.compress(raw))
    (tmp_path / "raw.bin").write_bytes(raw)
    script = f"""
const fs = require("fs");
const {{ gunzip }} = require({json.dumps(str(ENCODER_JS))});
const read = (name) => {{ const b = fs.readFileSync(name); return b.buffer.slice(b.byteOffset, b.byteOffset + b.length); }};
Promise.all([gunzip(read({json.dumps(str(tmp_path / "packed.gz"))})), gunzip(read({json.dumps(str(tmp_path / "raw.bin"))}))])
  .then((got) => process.stdout.write(JSON.stringify(got.map((b) => Buffer.from(b).toString("base64")))));
"""
    done = subprocess.run([_node(), "-e", script], capture_output=True, text=True, check=True)
    import base64

    assert [base64.b64decode(b) for b in json.loads(done.stdout)] == [raw, raw]


def test_the_benchmarks_answers_run_on_the_encoder(built_site, tmp_path):
    _node()
    asked = tmp_path / "q.json"
    asked.write_text(json.dumps([{"question": "how come the bigger text collection makes the weights so extreme?"},
                                 {"question": "What is the capital of France?"}]), encoding="utf-8")
    done = subprocess.run([_node(), str(REPO / "tests" / "mentor" / "answer.js"), str(built_site), MODULE, str(asked)],
                          capture_output=True, text=True, check=True)
    out = json.loads(done.stdout)
    assert out["embeddings"] == "model"
    corpus, france = (a["answer"] for a in out["answers"])
    assert corpus["found"] and corpus["support"]["meaning"] > 0.3
    assert not france["found"]


# --------------------------------------------------------------------------------------------
# In Chromium
# --------------------------------------------------------------------------------------------

def _wait(page, script: str, timeout: float = 90.0):
    """Polls without wait_for_function (whose predicate the page's CSP forbids to evaluate)."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        value = page.evaluate(script)
        if value:
            return value
        page.wait_for_timeout(100)
    raise AssertionError(f"timed out waiting for {script}")


def _ask(page, question: str) -> str:
    page.evaluate("document.querySelector('[data-scalecore-mentor-status]').textContent = ''")
    box = page.get_by_role("textbox", name="Your question")
    box.fill(question)
    box.press("Control+Enter")
    return _wait(page, "(() => { const t = document.querySelector('[data-scalecore-mentor-status]').textContent;"
                       " return /Answered|Nothing in this module|reads English only/.test(t) && t; })()")


@pytest.mark.browser
def test_the_page_loads_the_encoder_at_the_box_and_answers_with_it_under_its_csp(visit, site_server):
    if not (site_server.directory / mentor.ENCODER_SITE / "model.onnx.gz").is_file():
        pytest.skip("the site has no encoder (onnxruntime not installed at build)")
    mark = len(site_server.paths)
    page, watch = visit(site_server.url + page_url(MODULE), bypass_csp=False)
    page.wait_for_timeout(300)
    assert not [p for p in site_server.paths[mark:] if "mentor-encoder" in p or "model.onnx" in p]  # not before the box
    page.get_by_role("textbox", name="Your question").focus()
    assert _wait(page, "document.querySelector('[data-scalecore-mentor]').getAttribute('data-scalecore-mentor-meaning')") == "encoder"
    status = _ask(page, "why does the atention go all to one word when i use the big corpus?")
    assert status.startswith("Answered")
    fetched = site_server.paths[mark:]
    assert [p for p in fetched if p.endswith("/model.onnx.gz")] and [p for p in fetched if p.endswith(".wasm.gz")]
    assert not [p for p in fetched if p.endswith((".onnx", ".wasm"))]  # onnxruntime got the bytes: it fetched no raw copy
    assert not [p for p in fetched if p.endswith("mentor-embeddings.js")]  # the table stays on the server
    assert _ask(page, "What is the capital of France?").startswith("Nothing in this module")
    watch.check()


@pytest.mark.browser
def test_without_the_model_the_mentor_falls_back_to_the_table(visit, site_server):
    page, watch = visit(site_server.url + page_url(MODULE))
    page.route("**/model.onnx.gz", lambda route: route.abort())
    page.get_by_role("textbox", name="Your question").focus()
    assert _wait(page, "document.querySelector('[data-scalecore-mentor]').getAttribute('data-scalecore-mentor-meaning')") == "table"
    assert _ask(page, "What does the scale guard do?").startswith("Answered")
    watch.problems = lambda: [p for p in type(watch).problems(watch) if "model.onnx" not in p]  # the refused fetch, on purpose
    watch.check()
