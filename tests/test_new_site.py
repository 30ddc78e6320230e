"""An author outside the repository: the release wheel installed in a fresh virtualenv (the
repository not on sys.path, no node or npm on PATH), ``scalecore new``, a strict build, and the
site working in Chromium: the built-in panel, the site's own kind switching from baked data and
computing live, the console running the site's own package, the module page with its
self-checks, every page from file://, and not one request to another host.

The commands are read from the guide "Start a new site" (docs/guide/new-site.md) and run as
written (the wheel's name replaced by the path of the one built here), so the guide cannot rot.
"""

import json
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from browser import PYODIDE_TIMEOUT_MS, StaticServer, wait_hydrated

REPO = Path(__file__).resolve().parents[1]
GUIDE = REPO / "docs" / "guide" / "new-site.md"
WHEEL_NAME = "scalecore-0.1.0-py3-none-any.whl"


def guide_commands() -> list[str]:
    """The lines of the guide's bash block."""
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    return [line.strip() for line in block.splitlines() if line.strip()]


def run(command, **options):
    done = subprocess.run(command, capture_output=True, text=True, **options)
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel as `bash build_tools/dev.sh release` builds it (vendored files included)."""
    out = tmp_path_factory.mktemp("dist")
    # as the release does: setuptools packs what build/lib holds, and a file removed from the
    # sources since the last wheel (an old theme template) would still be in it
    shutil.rmtree(REPO / "build" / "lib", ignore_errors=True)
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps",
         "--no-build-isolation", "--wheel-dir", str(out), str(REPO)], cwd=out)
    [found] = out.glob("scalecore-*-py3-none-any.whl")
    return found


@pytest.fixture(scope="module")
def author(tmp_path_factory, wheel):
    """A fresh virtualenv (an author's Python with pip), and a PATH with no node or npm: the
    virtualenv's scripts and Chromium alone."""
    home = tmp_path_factory.mktemp("author")
    venv = home / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    tools = home / "tools"
    tools.mkdir()
    if shutil.which("chromium"):
        (tools / "chromium").symlink_to(shutil.which("chromium"))
    env = {"HOME": str(home), "PATH": f"{venv / 'bin'}{os.pathsep}{tools}", "NO_MKDOCS_2_WARNING": "1",
           "SOURCE_DATE_EPOCH": "1700000000", "LANG": "C.UTF-8", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    assert run([str(venv / "bin" / "python"), "-c", "import shutil; print(shutil.which('node'), shutil.which('npm'))"],
               env=env).stdout.split() == ["None", "None"]
    return home, venv, env


@pytest.fixture(scope="module")
def new_site(author, wheel):
    """The guide's commands, run in order: ``cd`` changes the folder of the ones after it."""
    home, venv, env = author
    commands = guide_commands()
    assert commands[0] == f"pip install '{WHEEL_NAME}[site]'", "the guide's install line changed"
    where, outputs = home, []
    for command in commands:
        words = shlex.split(command.replace(WHEEL_NAME, str(wheel)))
        if words[0] == "cd":
            where = where / words[1]
            continue
        outputs.append(run(words, cwd=where, env=env))
    return where, outputs[-1]


def test_the_wheel_carries_what_the_build_runs_and_no_generic_package_name(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"scalecore", "scalecore_generator"}
    for needed in ("scalecore_generator/vendor/node_modules/pyodide/pyodide.asm.wasm",
                   "scalecore_generator/vendor/node_modules/esbuild-wasm/esbuild.wasm",
                   "scalecore_generator/vendor/node_modules/katex/LICENSE",
                   "scalecore_generator/vendor/LICENSES/MPL-2.0.txt",
                   "scalecore_generator/vendor/npm.json",
                   "scalecore_generator/scaffold/mkdocs.yml",
                   "scalecore_generator/scaffold_bare/mkdocs.yml",  # scalecore new --template bare
                   "scalecore_generator/scaffold_bare/.gitignore",
                   "scalecore_generator/scaffold_kind/panel.js",  # scalecore new --template kind
                   "scalecore_generator/guide/new-site.md",  # scalecore guide (issue 47.2)
                   "scalecore/corpora/demo/text.txt"):
        assert needed in names, needed
    assert any(name.startswith("scalecore_generator/vendor/wheels/sympy-") for name in names)
    assert not any("__pycache__" in name for name in names)


def test_the_installed_wheel_carries_the_guides(author, new_site):
    """Issue 47.2: the guides travel with the package, and the messages name them by the command
    that prints them; every quoted file and table is made from the installed package."""
    home, venv, env = author
    scalecore = str(venv / "bin" / "scalecore")
    names = sorted(path.stem for path in (REPO / "docs" / "guide").glob("*.md"))
    listed = run([scalecore, "guide"], cwd=home, env=env).stdout
    assert all(f"\n  {name} " in listed for name in names), listed
    kinds = run([scalecore, "guide", "kinds"], cwd=home, env=env).stdout
    assert kinds.startswith("Write your own interactive: scalecore guide kinds\n") and "--8<--" not in kinds
    assert (REPO / "scalecore_generator" / "scaffold" / "kinds" / "temperature" / "kind.py").read_text(
        encoding="utf-8").strip() in kinds
    assert "| `cache_dir` | text |" in run([scalecore, "guide", "options"], cwd=home, env=env).stdout
    run([scalecore, "guide", "--html", str(home / "guides")], cwd=home, env=env)
    assert sorted(path.stem for path in (home / "guides").glob("*.html")) == sorted(names + ["index"])
    assert "'scalecore guide engines'" in " ".join(run([scalecore, "build", "--help"], cwd=home, env=env).stdout.split())


def test_the_installed_vendored_files_match_their_pins(author):
    home, venv, env = author
    run([str(venv / "bin" / "python"), "-c", "from scalecore_generator import vendor; vendor.check()"], env=env)


def test_a_new_site_builds_strictly_outside_the_repository_without_node(new_site):
    site, built = new_site
    assert (site / "site" / "index.html").is_file() and (site / "site" / "lessons" / "temperature.html").is_file()
    assert "Traceback" not in built.stderr
    assert "WARNING" not in built.stderr, built.stderr
    assert not (site / "corpora").exists()
    # The console's full stack is opt-in (console_full_stack): a new site ships none of its files.
    assert not (site / "site" / "assets" / "fullstack").exists()
    assert not any((site / "site" / "assets" / "scalecore" / name).exists()
                   for name in ("worker-fullstack.js", "fullstack-python.js"))
    assert (site / "site" / "assets" / "scalecore" / "fullstack.js").is_file()  # console.js's import: says "none here"
    assert not any(key.startswith("fullstack_") for key in
                   json.loads((site / "site" / "api" / "index.json").read_text(encoding="utf-8"))["runtime"])
    assert not list((site / ".cache" / "scalecore").glob("**/embeddings*")), "a site with no corpus kind learned tables"


def test_after_a_build_git_sees_the_sources_only(new_site):
    """What the build made (site/, .cache/, the lock and digest ledger beside the site) is ignored by
    the scaffold's .gitignore: an author's first commit holds what they write, nothing built."""
    site, _ = new_site
    assert (site / ".site.digests.json").is_file() and (site / ".cache").is_dir()
    run(["git", "init", "-q"], cwd=site)
    listed = run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=site).stdout.splitlines()
    scaffold = REPO / "scalecore_generator" / "scaffold"
    sources = sorted(p.relative_to(scaffold).as_posix() for p in scaffold.rglob("*")
                     if p.is_file() and "__pycache__" not in p.parts)
    assert sorted(line[3:] for line in listed) == sources


def test_scalecore_new_refuses_a_folder_that_is_not_empty(author, new_site):
    home, venv, env = author
    done = subprocess.run(["scalecore", "new", "my-site"], cwd=home, env=env, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith(f"scalecore: error: my-site already exists and is not empty: nothing was written.")


@pytest.fixture(scope="module")
def served(new_site):
    server = StaticServer(new_site[0] / "site")
    yield server
    server.close()


def test_the_new_site_works_in_chromium_with_no_request_elsewhere(visit, served):
    page, watch = visit(served.url + "lessons/temperature.html")
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--temperature")
    panel.get_by_label("Temperature", exact=True).select_option(label="2")
    assert panel.locator(".temperature-bars").get_attribute("data-temperature") == "2"
    panel.get_by_role("button", name="Compute live").click()  # opens the live form (u.liveForm)
    panel.get_by_label("Any temperature").fill("3")
    panel.locator("form").get_by_role("button", name="Compute", exact=True).click()
    page.wait_for_function("el => el.getAttribute('data-temperature-live') === '3'", arg=panel.element_handle(),
                           timeout=PYODIDE_TIMEOUT_MS)
    assert page.locator("details.scalecore-selfcheck").count() == 2
    assert page.locator(".scalecore-module").count() == 1, "no module header"

    home, watch_home = visit(served.url + "index.html")
    wait_hydrated(home)
    assert home.locator(".scalecore-panel--softmax").count() == 1
    assert home.locator("math").count() >= 1, "the formula was not typeset"
    assert home.locator(".admonition.note").count() == 1


def test_the_new_site_opens_from_disk(visit, new_site):
    site = new_site[0] / "site"
    page, watch = visit((site / "lessons" / "temperature.html").as_uri())
    wait_hydrated(page)
    panel = page.locator(".scalecore-panel--temperature")
    panel.get_by_label("Temperature", exact=True).select_option(label="2")
    assert panel.locator(".temperature-bars").get_attribute("data-temperature") == "2"
