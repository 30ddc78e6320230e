"""A warm build into a new output folder (a CI job with a restored cache) against plain Material,
measured in one run: ``.venv/bin/python -m benchmarks.new_folder``.

The repository's site with its own warm cache, built three times into folders that do not exist
yet, alternating with plain mkdocs-material builds of the same pages (benchmarks/build.py: the
plugin removed, the author blocks stripped), each also into a new folder, and with warm builds
into the same folder; medians of three, wall and CPU (the build and every process it started).
Prints numbers; asserts nothing.
"""

import statistics
import tempfile
from pathlib import Path

from benchmarks.build import ROOT, _quiet_build, plain_docs, plugin_entry, read_config, write_config


def main() -> None:
    config = read_config()
    index, options = plugin_entry(config)
    with tempfile.TemporaryDirectory(prefix="scalecore-new-folder-") as folder:
        work = Path(folder)
        for name in ("docs", "scalecore", "scalecore_generator", "tests"):
            (work / name).symlink_to(ROOT / name, target_is_directory=True)
        changed = dict(config, plugins=list(config["plugins"]))
        changed["plugins"][index] = {"scalecore": dict(options, cache_dir=str(ROOT / ".cache" / "scalecore"))}
        ours = write_config(changed, work / "ours.yml")
        plain = dict(config, plugins=[p for i, p in enumerate(config["plugins"]) if i != index],
                     docs_dir=str(plain_docs(ROOT / "docs", work / "plain-docs")), strict=False)
        plain_file = write_config(plain, work / "plain.yml")
        _quiet_build(ours, work / "same")  # the cache and the folder warm
        _quiet_build(plain_file, work / "plain-warm")
        rounds = [(_quiet_build(ours, work / f"new-{i}"), _quiet_build(plain_file, work / f"plain-{i}"),
                   _quiet_build(ours, work / "same")) for i in range(3)]

    def median(column: int, field: int) -> float:
        return statistics.median(row[column][field] for row in rounds)

    plain_s, plain_cpu = median(1, 0), median(1, 1)
    for label, column in (("warm, a new output folder", 0), ("warm, the same folder", 2)):
        seconds, cpu = median(column, 0), median(column, 1)
        print(f"{label:27} {seconds:5.2f} s (CPU {cpu:.2f} s) / plain {plain_s:.2f} s (CPU {plain_cpu:.2f} s) = "
              f"{seconds / plain_s:.2f}x (CPU {cpu / plain_cpu:.2f}x)")


if __name__ == "__main__":
    main()
