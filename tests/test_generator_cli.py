"""The generator's command line (``scalecore``, scalecore_generator/cli.py): its version, the
templates of ``scalecore new`` (a lesson site, a bare site, one kind's folder), ``scalecore
bundle``, and the commands that run MkDocs for an author without Material's end-of-life notice.
The templates are built here and the kind's folder works in Chromium: baked switches and its
live form (``u.liveForm``). The lesson template is tests/test_new_site.py's and
tests/test_kinds_tutorial.py's."""

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from browser import PYODIDE_TIMEOUT_MS, StaticServer, wait_hydrated
from scalecore_generator import cli
from sites import build, copy_site, edit, line_of

GENERATOR = Path(cli.__file__).resolve().parent


def scalecore(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "scalecore_generator", *args], capture_output=True, text=True,
                          cwd=cwd)


def test_version_prints_the_installed_version():
    from importlib import metadata

    done = scalecore("--version")
    assert (done.returncode, done.stdout, done.stderr) == (0, f"scalecore {metadata.version('scalecore')}\n", "")


def test_new_writes_each_template(tmp_path):
    done = scalecore("new", str(tmp_path / "lesson"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "lesson" / "kinds" / "temperature" / "kind.py").is_file()
    done = scalecore("new", "--template", "bare", str(tmp_path / "bare"))
    assert done.returncode == 0, done.stderr
    assert sorted(p.relative_to(tmp_path / "bare").as_posix() for p in (tmp_path / "bare").rglob("*")
                  if p.is_file()) == [".gitignore", "docs/index.md", "mkdocs.yml"]
    kind = tmp_path / "bare" / "kinds" / "my-scores"
    done = scalecore("new", "--template", "kind", str(kind))
    assert done.returncode == 0, done.stderr
    assert "/// my-scores" in done.stdout
    assert sorted(p.name for p in kind.iterdir()) == ["kind.py", "panel.js", "schema.json", "style.css", "template.html"]
    for path in kind.iterdir():
        text = path.read_text(encoding="utf-8")
        assert cli.KIND_PLACEHOLDER not in text, path
    assert 'var KIND = "my-scores";' in (kind / "panel.js").read_text(encoding="utf-8")
    assert "u.liveForm(" in (kind / "panel.js").read_text(encoding="utf-8")


def test_new_refuses_a_kind_folder_whose_name_is_no_kind_name(tmp_path):
    done = scalecore("new", "--template", "kind", str(tmp_path / "kinds" / "My_Kind"))
    assert done.returncode == 2 and not (tmp_path / "kinds").exists()
    assert done.stderr == ("scalecore: error: 'My_Kind' is not a kind name: the folder's name is the kind's name "
                           "(authors write it after '///'), lower-case letters, digits and '-', starting with a "
                           "letter. Fix: e.g. scalecore new --template kind kinds/my-kind\n")


def test_new_into_a_kind_folder_that_exists_names_the_kind_command(tmp_path):
    """A fresh author's finding: the refusal's example was 'scalecore new my-site' for a kind."""
    target = tmp_path / "kinds" / "my-kind"
    assert scalecore("new", "--template", "kind", str(target)).returncode == 0
    done = scalecore("new", "--template", "kind", str(target))
    assert done.returncode == 2
    assert done.stderr == (f"scalecore: error: {target} already exists and is not empty: nothing was written. Fix: "
                           "name a new folder, e.g. scalecore new --template kind kinds/my-other-kind\n")


def test_bundle_without_a_built_site_says_how_to_build_one(tmp_path):
    done = scalecore("bundle", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == ("scalecore: error: site has no index.html: there is no built site to bundle. Fix: build "
                           "it first (scalecore build, or mkdocs build), or name the site's folder: scalecore bundle "
                           "SITE ZIP\n")


@pytest.mark.parametrize("command", [["build"], ["build", "--strict"], ["serve"]])
def test_the_commands_that_run_mkdocs_turn_materials_notice_off(command, tmp_path, monkeypatch):
    """Material prints its end-of-life notice when imported by a program named mkdocs, before any
    plugin is loaded, unless NO_MKDOCS_2_WARNING is set: scalecore build and serve set it for
    the MkDocs they run (docs/guide/new-site.md says how to hide it under mkdocs itself)."""
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_MKDOCS_2_WARNING", raising=False)
    ran = []

    def become(path, args, env):  # the process becomes MkDocs (exec): recorded, not done
        ran.append((args, env))
        raise SystemExit(0)

    monkeypatch.setattr(os, "execve", become)
    with pytest.raises(SystemExit):
        cli.main(command)
    [(args, env)] = ran
    assert args[1:4] == ["-m", cli.MKDOCS_COMMAND, command[0]]
    assert env["NO_MKDOCS_2_WARNING"] == "1"


def test_a_sigterm_to_scalecore_serve_stops_the_server_and_frees_its_port(tmp_path):
    """A fresh author stopped scalecore serve with SIGTERM: its mkdocs serve child kept running and
    holding the port, and the next serve said the port was in use."""
    import signal
    import socket
    import time
    import urllib.request

    cli.new_site(tmp_path / "site", "bare")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "scalecore_generator", "serve", "-a", f"127.0.0.1:{port}"],
                              cwd=tmp_path / "site", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5).read()
                break
            except OSError:
                assert time.monotonic() < deadline and server.poll() is None, "the server never answered"
                time.sleep(0.5)
        server.send_signal(signal.SIGTERM)  # to the process the author started, not its group
        server.wait(timeout=30)
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(("127.0.0.1", port))  # free: nothing of the server is left listening
    finally:
        if server.poll() is None:
            server.kill()


@pytest.fixture(scope="module")
def bare_with_kind(tmp_path_factory):
    """A bare site, a kind's folder from the kind template in its kinds/, used on its page."""
    folder = tmp_path_factory.mktemp("templates") / "bare"
    assert cli.main(["new", "--template", "bare", str(folder)]) == 0
    assert cli.main(["new", "--template", "kind", str(folder / "kinds" / "scaled")]) == 0
    with (folder / "docs" / "index.md").open("a", encoding="utf-8") as page:
        page.write("\n/// scaled | Scaled scores\nfactor: 2.0\n///\n")
    result = build(folder, "--strict")
    assert result.returncode == 0, result.describe()
    assert "WARNING" not in result.stderr, result.describe()
    return folder


def test_the_bare_site_and_the_kind_build_and_bundle(bare_with_kind, tmp_path):
    site = bare_with_kind / "site"
    page = (site / "index.html").read_text(encoding="utf-8")
    assert page.count('class="scalecore-panel ') == 2
    assert 'class="scaled-table"' in page
    assert cli.main(["bundle", str(site), str(tmp_path / "site.zip")]) == 0
    assert "index.html" in zipfile.ZipFile(tmp_path / "site.zip").namelist()


def test_the_kind_templates_unbaked_factor_names_where_to_bake_it(bare_with_kind, tmp_path):
    folder = copy_site(tmp_path / "bare", source=bare_with_kind)
    edit(folder / "docs" / "index.md", "factor: 2.0", "factor: 3.0")
    result = build(folder, "--strict")
    assert result.returncode == 1
    assert result.errors[-1] == (
        "scalecore: docs/index.md:" + str(line_of(folder / "docs" / "index.md", "factor: 3.0")) + ": /// scaled: option "
        "'factor': 3.0 is not a baked factor; the baked ones are: 0.5, 1.0, 2.0, 4.0 (the default of the kind 'scaled' "
        "for its setting 'factors': the plugin option 'kinds' does not set it, "
        f"{folder / 'mkdocs.yml'}:{line_of(folder / 'mkdocs.yml', '- scalecore')})"
        ". Fix: write one of them, or add 3.0 to the setting factors of the kind scaled"), result.describe()
    # once the site sets it, the message points at the setting's own line
    config = folder / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace(
        "- scalecore", "- scalecore:\n      kinds:\n        scaled:\n          factors: [0.5, 1.0, 2.0, 4.0]", 1), encoding="utf-8")
    result = build(folder, "--strict")
    assert result.returncode == 1
    assert (f"(the setting 'factors' of the kind 'scaled' in the plugin option 'kinds', {config}:"
            f"{line_of(config, 'factors: [0.5')})") in result.errors[-1], result.describe()


def test_the_kind_template_switches_and_computes_live(visit, bare_with_kind):
    server = StaticServer(bare_with_kind / "site")
    try:
        page, watch = visit(server.url + "index.html")
        wait_hydrated(page)
        panel = page.locator(".scalecore-panel--scaled")
        assert panel.locator(".scaled-bars").get_attribute("data-factor") == "2"
        panel.get_by_label("Factor", exact=True).select_option(label="4")
        assert panel.locator(".scaled-bars").get_attribute("data-factor") == "4"
        panel.get_by_role("button", name="Compute live").click()  # opens the live form (u.liveForm)
        panel.get_by_label("Any factor").fill("3")
        panel.locator("form").get_by_role("button", name="Compute", exact=True).click()
        page.wait_for_function("el => el.querySelector('.scaled-bars').getAttribute('data-factor') === '3'",
                               arg=panel.element_handle(), timeout=PYODIDE_TIMEOUT_MS)
    finally:
        server.close()


def test_a_site_built_with_folder_pages_is_told_so_at_its_line_and_not_bundled(tmp_path):
    """use_directory_urls: true (MkDocs' default) builds pages as folders, which read served but
    not from disk: the build says so at the setting's line (said, not refused: a served-only site
    may want the addresses), and scalecore bundle refuses such a site with the fix (a fresh
    author's finding: it built and bundled silently, and the unzipped links showed folders)."""
    folder = tmp_path / "bare"
    assert cli.main(["new", "--template", "bare", str(folder)]) == 0
    config = folder / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("use_directory_urls: false", "use_directory_urls: true")
                      .replace("  - Home: index.md\n", "  - Home: index.md\n  - Second: second.md\n"), encoding="utf-8")
    (folder / "docs" / "second.md").write_text("# Second\n\nA second page.\n", encoding="utf-8")
    line = config.read_text(encoding="utf-8").splitlines().index(next(
        text for text in config.read_text(encoding="utf-8").splitlines() if text.startswith("use_directory_urls"))) + 1
    result = build(folder, "--strict")
    assert result.returncode == 0, result.describe()
    assert f"mkdocs.yml:{line}: use_directory_urls is true: pages are built as folders" in result.stderr, result.describe()
    assert (folder / "site" / "second" / "index.html").is_file()
    done = scalecore("bundle", cwd=folder)
    assert done.returncode == 2
    assert done.stderr == ("scalecore: error: site was built with use_directory_urls: true: its links name folders "
                           "(e.g. second/), which a browser does not open as pages from disk. Fix: set "
                           "use_directory_urls: false in mkdocs.yml and build again (or serve the site as it is, "
                           "e.g. python3 -m http.server -d site 8000)\n")
    assert not (folder / "scalecore-site.zip").exists()


def test_mkdocs_own_settings_errors_name_their_line_under_scalecore_build(tmp_path):
    """MkDocs stops at the first setting it cannot read, before loading any plugin, and said
    "Config value 'theme': ..." with no line (an issue 47 leftover): scalecore build runs MkDocs'
    command with that line put in front."""
    folder = tmp_path / "bare"
    assert cli.main(["new", "--template", "bare", str(folder)]) == 0
    config = folder / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8").replace("name: material", "name: materal"), encoding="utf-8")
    line = next(number for number, text in enumerate(config.read_text(encoding="utf-8").splitlines(), 1)
                if text.strip() == "name: materal")  # the quoted value's own line, under theme:
    done = scalecore("build", cwd=folder)
    assert done.returncode == 1
    assert (f"ERROR   -  mkdocs.yml:{line}: Config value 'theme': Unrecognised theme name: 'materal'. The available "
            "installed themes are: ") in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    # and MkDocs' own type message in an author's words, with the fix
    config.write_text(config.read_text(encoding="utf-8").replace("name: materal", "name: material")
                      .replace("strict: true", "strict: maybe"), encoding="utf-8")
    line = config.read_text(encoding="utf-8").splitlines().index("strict: maybe") + 1
    done = scalecore("build", cwd=folder)
    assert done.returncode == 1
    assert (f"ERROR   -  mkdocs.yml:{line}: Config value 'strict': expected true or false, got text. Fix: give strict: "
            "true or false\n") in done.stderr, done.stderr


def test_a_mkdocs_yml_that_is_no_yaml_is_said_at_its_line_with_the_fix(tmp_path, monkeypatch):
    """MkDocs says "MkDocs encountered an error parsing the configuration file: while parsing a block mapping ..."
    with no fix, and under mkdocs serve prints it as a sixty-line traceback (a fresh author's finding): the line and
    column, what is wrong, and the fix, under scalecore build, and the same message for the serve rebuild."""
    from scalecore_generator.adapters.mkdocs import site

    folder = tmp_path / "bare"
    assert cli.main(["new", "--template", "bare", str(folder)]) == 0
    config = folder / "mkdocs.yml"
    assert site.yaml_problem(str(config)) is None
    lines = config.read_text(encoding="utf-8").splitlines()
    at = next(i for i, text in enumerate(lines) if text.strip() == "plugins:")
    lines.insert(at + 1, "   stray: [1")  # indented unlike the list under plugins:, and a bracket left open
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = scalecore("build", cwd=folder)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = done.stderr.strip().splitlines()[-1]
    assert said.startswith("Error: mkdocs.yml:") and ": not valid YAML: " in said and "Fix: compare line" in said, said
    # where the parser stopped, and where what it could not close was opened: the stray line
    assert f"starts at line {at + 2})" in said or said.startswith(f"Error: mkdocs.yml:{at + 2}:"), said
    monkeypatch.chdir(folder)
    assert site.yaml_problem("mkdocs.yml") == said.removeprefix("Error: ")  # the serve rebuild's message
