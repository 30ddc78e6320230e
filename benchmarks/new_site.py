"""An author's first site, measured in one run: ``.venv/bin/python -m benchmarks.new_site``.

- the release wheel: its size, and what the vendored files take of it;
- the site ``scalecore new`` writes: a cold build (empty cache: its kind baked, its wheel built,
  Pyodide's memory snapshot made when Chromium is there), warm builds, and a plain
  mkdocs-material build of the same pages (the plugin removed, the blocks stripped, the Markdown
  extensions the plugin would add listed by hand so both render the same callouts and math),
  as times and the ratios warm/plain and cold/plain;
- minifying the generator's own scripts and styles with esbuild-wasm on an empty cache (what the
  portable minifier costs a cold build; a warm build takes every result from the cache).

Prints numbers; asserts nothing.
"""

import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from benchmarks.build import ROOT, _quiet_build, plain_docs, read_config, seed_bytecode, build_env, write_config


def wheel_report(folder: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
                    "--no-build-isolation", "--wheel-dir", str(folder), str(ROOT)], check=True, capture_output=True)
    [wheel] = folder.glob("scalecore-*.whl")
    entries = zipfile.ZipFile(wheel).infolist()
    vendored = [e for e in entries if e.filename.startswith("scalecore_generator/vendor/")]
    print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB ({len(entries)} files, "
          f"{sum(e.file_size for e in entries) / 1e6:.1f} MB unpacked); vendored files "
          f"{sum(e.compress_size for e in vendored) / 1e6:.1f} MB of it ({len(vendored)} files)")


def minify_report() -> None:
    from scalecore_generator.pages import frontend
    from scalecore_generator.pages.assets import OWN, THEME

    sources = {str(p): p.read_bytes() for folder in (OWN, THEME) for p in sorted(folder.rglob("*"))
               if p.suffix in frontend.MINIFIED}
    with tempfile.TemporaryDirectory() as cache:
        minifier = frontend.Minifier(Path(cache))
        started = time.perf_counter()
        minifier.minify(sources)
        seconds = time.perf_counter() - started
        minifier.discard()
    print(f"esbuild-wasm {frontend.version()}: {len(sources)} scripts and styles ({sum(map(len, sources.values())) / 1e3:.0f} kB) "
          f"minified in {seconds:.2f} s on an empty cache (one Node process)")


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="scalecore-new-site-") as folder:
        work = Path(folder)
        wheel_report(work / "dist")
        minify_report()
        site = work / "my-site"
        subprocess.run([sys.executable, "-m", "scalecore_generator", "new", str(site)], check=True, capture_output=True)
        ours = site / "mkdocs.yml"
        config = __import__("yaml").safe_load(ours.read_text(encoding="utf-8"))
        from scalecore_generator.adapters.mkdocs.features import EXTENSIONS

        plain = dict(config, plugins=["search"], strict=False,
                     docs_dir=str(plain_docs(site / "docs", work / "plain-docs")),
                     markdown_extensions=[{name: options} if options else name for name, options in EXTENSIONS.items()],
                     theme=dict(config["theme"], font=False))
        plain_file = write_config(plain, site / "plain.yml")
        seed_bytecode(Path(build_env(ours)["PYTHONPYCACHEPREFIX"]))
        cold, cold_cpu, _ = _quiet_build(ours, work / "site-cold")
        rounds = [(_quiet_build(ours, work / f"site-warm-{i}"), _quiet_build(plain_file, work / f"site-plain-{i}"))
                  for i in range(5)]
        pages = ", ".join(sorted(p.relative_to(site / "docs").as_posix() for p in (site / "docs").rglob("*.md")))
        warm = statistics.median(r[0][0] for r in rounds)
        plain_time = statistics.median(r[1][0] for r in rounds)
    print(f"\nthe site scalecore new writes ({pages}):")
    print(f"  plain mkdocs-material build   {plain_time:6.2f} s   (median of 5)")
    print(f"  scalecore, warm cache         {warm:6.2f} s   (median of 5)")
    print(f"  scalecore, cold cache         {cold:6.2f} s   (CPU {cold_cpu:.2f} s)")
    print(f"\n  warm / plain   {warm / plain_time:6.2f}")
    print(f"  cold / plain   {cold / plain_time:6.2f}")


if __name__ == "__main__":
    main()
