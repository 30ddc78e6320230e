"""The bake on a Dask cluster (the plugin option ``bake_scheduler``, scalecore_generator/builder/cluster.py):
the same site as a local bake, the same errors, and a clear word when the cluster is missing.

The cluster is a ``LocalCluster`` of two worker processes on 127.0.0.1 (no dashboard), started
in the test process: the builds run in subprocesses, so the workers never see the site's folder
on their path and must use the code the build sends them. The fixture site adds a kind of its
own (``temperature``, from the scaffold) that computes with the site's package ``mylessons``.
"""

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import pytest
from distributed import Client, LocalCluster

from scalecore_generator.foundation.manifest import MANIFEST
from sites import REPO, Build, build, build_command, copy_site, edit, environment, line_of, tree

SCAFFOLD = REPO / "scalecore_generator" / "scaffold"


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      host="127.0.0.1") as local:
        yield local


def site_with_own_kind(folder, temperatures="[0.5, 1.0, 2.0]"):
    """The base fixture site, plus a kind from its own kinds/ folder computing with its own package."""
    site = copy_site(folder)
    shutil.copytree(SCAFFOLD / "kinds", site / "kinds")
    shutil.copytree(SCAFFOLD / "mylessons", site / "mylessons")
    (site / "docs" / "temperature.md").write_text("# Temperature\n\n/// temperature | Softmax at a temperature\n"
                                                  "temperature: 1.0\n///\n", encoding="utf-8")
    edit(site / "mkdocs.yml", "        variance: {dims: [3, 10], samples: 100}",
         f"        variance: {{dims: [3, 10], samples: 100}}\n        temperature: {{temperatures: {temperatures}}}\n"
         "      packages: [mylessons]")
    edit(site / "mkdocs.yml", "  - Lesson: lesson.md", "  - Lesson: lesson.md\n  - Temperature: temperature.md")
    return site


def on_scheduler(site, address):
    edit(site / "mkdocs.yml", "      live: false", f"      live: false\n      bake_scheduler: {address}")


def test_a_bake_on_a_dask_cluster_builds_the_same_site_byte_for_byte(tmp_path, cluster):
    here = site_with_own_kind(tmp_path / "here")
    there = site_with_own_kind(tmp_path / "there")
    on_scheduler(there, cluster.scheduler_address)
    local, remote = build(here), build(there)
    assert local.returncode == 0, local.describe()
    assert remote.returncode == 0, remote.describe()
    assert any(f"on the Dask cluster at {cluster.scheduler_address} (2 workers)" in line
               for line in remote.lines("INFO")), remote.describe()
    assert any(re.search(r"\((1 group|\d+ groups) computed\)", line) and "(0 groups computed)" not in line
               for line in remote.lines("INFO"))
    baked, ours = tree(here / "site"), tree(there / "site")
    assert [path for path in ours if path.startswith("api/temperature/")], "the site's own kind baked nothing"
    assert MANIFEST in ours
    assert ours == baked, [path for path in set(baked) | set(ours) if baked.get(path) != ours.get(path)]
    with Client(cluster.scheduler_address, set_as_default=False) as client:  # the workers' package: the sent one
        where = [path for path in client.run(lambda: getattr(sys.modules.get("mylessons"), "__file__", None)).values()
                 if path]
    assert where and all("scalecore-site-" in path for path in where), where


def test_a_group_that_fails_on_a_worker_stops_the_build_with_the_same_error_as_a_local_bake(tmp_path, cluster):
    here = site_with_own_kind(tmp_path / "here", temperatures="[1.0, 0.0]")
    there = site_with_own_kind(tmp_path / "there", temperatures="[1.0, 0.0]")
    on_scheduler(there, cluster.scheduler_address)
    local, remote = build(here), build(there)
    assert local.returncode != 0 and remote.returncode != 0, remote.describe()
    message = next(line for line in local.errors if "temperature" in line)
    assert f"{here / 'mylessons' / 'temperature.py'}:{line_of(here / 'mylessons' / 'temperature.py', 'raise ValueError')}" \
           in message and "{temperature: 0.0}" in message and "Fix:" in message, message
    assert [line.replace(str(there), str(here)) for line in remote.errors if "temperature" in line] == [message]
    assert "Traceback" not in remote.stderr
    assert not (there / "site").exists()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_scheduler_that_cannot_be_reached_stops_the_build_naming_the_option_and_the_fix(tmp_path):
    site = site_with_own_kind(tmp_path / "site")
    on_scheduler(site, f"tcp://127.0.0.1:{free_port()}")
    done = build(site)
    assert done.returncode != 0
    where = f"{site / 'mkdocs.yml'}:{line_of(site / 'mkdocs.yml', 'bake_scheduler:')}"
    assert any(line.startswith(f"scalecore: {where}: cannot reach the Dask scheduler at") and "Fix: start it" in line
               for line in done.errors), done.describe()
    assert "Traceback" not in done.stderr


def test_without_dask_installed_the_option_says_how_to_install_it(tmp_path, cluster):
    """A machine without the extra (simulated by a ``distributed`` module that cannot be
    imported, first on the path) is told the line of the option and the pip command."""
    site = site_with_own_kind(tmp_path / "site")
    on_scheduler(site, cluster.scheduler_address)
    missing = tmp_path / "no-dask"
    missing.mkdir()
    (missing / "distributed.py").write_text("raise ImportError(\"No module named 'distributed'\")\n", encoding="utf-8")
    done = build(site, env=environment(PYTHONPATH=str(missing)))
    assert done.returncode != 0
    where = f"{site / 'mkdocs.yml'}:{line_of(site / 'mkdocs.yml', 'bake_scheduler:')}"
    assert [line for line in done.errors if "dask" in line] == [
        f"scalecore: {where}: bake_scheduler is set, but dask.distributed is not installed. Fix: pip install "
        "'scalecore[dask]' (here and on the cluster's workers), or remove bake_scheduler to bake with local "
        "processes."], done.describe()


def test_a_warm_build_with_the_option_set_does_not_need_the_cluster(tmp_path, cluster):
    """Nothing to compute, nothing sent: a warm rebuild works even when the scheduler is gone."""
    site = site_with_own_kind(tmp_path / "site")
    on_scheduler(site, cluster.scheduler_address)
    assert build(site).returncode == 0
    edit(site / "mkdocs.yml", f"bake_scheduler: {cluster.scheduler_address}", f"bake_scheduler: tcp://127.0.0.1:{free_port()}")
    again = build(site)
    assert again.returncode == 0, again.describe()
    assert not [line for line in again.lines("INFO") if "Dask" in line]


def test_a_worker_that_runs_other_code_than_the_build_refuses_the_group(cluster):
    """The build keys a group's cache entry by its own code (points.code_version); a worker whose
    scalecore differs would fill that entry with other results, so it says so instead. Here the
    build's key is made to differ from what the worker computes."""
    from scalecore_generator.builder.points import BakeError
    from scalecore_generator.builder.cluster import bake_on_worker, site_code
    from scalecore_generator.kinds.registry import discover

    import hashlib

    kinds = {"variance": discover()["variance"]}
    bundle, places = site_code(kinds, ())
    job = dict(folder="kinds/variance", code="0" * 64, data_key="variance", inputs={}, points=[])
    with Client(cluster.scheduler_address, set_as_default=False) as client:
        future = client.submit(bake_on_worker, job, bundle, hashlib.sha256(bundle).hexdigest()[:24], places, pure=False)
        with pytest.raises(BakeError) as raised:
            future.result()
    message = str(raised.value)
    assert message.startswith("the Dask worker tcp://127.0.0.1:") and "runs other code than this build for the kind " \
           "'variance'" in message and "Fix: install the same scalecore on the cluster's workers" in message, message


def slowed(site):
    """Each point of the site's own kind takes half a second (its results unchanged)."""
    edit(site / "mylessons" / "temperature.py", '    if not temperature > 0:',
         '    import time\n\n    time.sleep(0.5)\n    if not temperature > 0:')
    return site


def test_a_bake_whose_workers_are_all_killed_sends_the_groups_again_and_builds_the_same_site(tmp_path):
    """Every worker of the cluster killed while the groups compute (a preempted node pool, an
    out-of-memory kill): the code scattered to them is lost with them, and Dask cancels the groups
    that needed it. The build waits for the workers to come back (the nannies restart them), sends
    the code and the lost groups again, and the site is the same as a local bake's."""
    temperatures = "[0.25, 0.5, 1.0, 2.0, 4.0, 8.0]"
    here = slowed(site_with_own_kind(tmp_path / "here", temperatures))
    there = slowed(site_with_own_kind(tmp_path / "there", temperatures))
    local = build(here)
    assert local.returncode == 0, local.describe()
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      host="127.0.0.1") as cluster, Client(cluster.scheduler_address, set_as_default=False) as client:
        on_scheduler(there, cluster.scheduler_address)
        process = subprocess.Popen(build_command(), cwd=there, env=environment(), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        said = []
        for line in process.stderr:
            said.append(line)
            if "on the Dask cluster at" in line:
                break
        time.sleep(1.0)  # the groups are computing
        killed = client.run(os.getpid)
        for pid in killed.values():
            os.kill(pid, signal.SIGKILL)
        out, err = process.communicate(timeout=300)
        remote = Build(process.returncode, out, "".join(said) + err)
    assert remote.returncode == 0, remote.describe()
    assert any("lost the group" in line and "sending it again" in line for line in remote.lines("INFO")), \
        remote.describe()
    assert tree(there / "site") == tree(here / "site")


def test_a_function_of_the_site_can_give_the_build_its_client(tmp_path, cluster):
    """``bake_scheduler: module:function``: a module beside mkdocs.yml returns the Client (made
    with its own Security, on a TLS cluster), here a plain one; the same site as a local bake."""
    here = site_with_own_kind(tmp_path / "here")
    there = site_with_own_kind(tmp_path / "there")
    (there / "bakecluster.py").write_text("from distributed import Client\n\n\ndef client():\n"
                                          f"    return Client({cluster.scheduler_address!r}, set_as_default=False)\n",
                                          encoding="utf-8")
    on_scheduler(there, "bakecluster:client")
    edit(there / "mkdocs.yml", "      live: false", "      live: false\n      bake_connect_timeout: 20\n"
                                                  "      bake_workers_timeout: 60\n      bake_retries: 1")
    local, remote = build(here), build(there)
    assert local.returncode == 0, local.describe()
    assert remote.returncode == 0, remote.describe()
    assert any(f"on the Dask cluster at {cluster.scheduler_address} (2 workers)" in line
               for line in remote.lines("INFO")), remote.describe()
    assert tree(there / "site") == tree(here / "site")


def test_a_worker_error_names_the_install_fix_only_when_the_workers_scalecore_differs(tmp_path):
    from scalecore_generator.builder.cluster import _mapped, _version

    same = str(_mapped(MemoryError("no room"), tmp_path, {}, _version()))
    assert "MemoryError: no room" in same and "install the same scalecore" not in same, same
    other = str(_mapped(ImportError("no module named scalecore.attention"), tmp_path, {}, "0.0.1"))
    assert f"Its scalecore is {_version()}, this build's 0.0.1" in other and "install the same scalecore" in other


def _certificates(folder) -> tuple[str, str, str]:
    """A CA and one certificate it signed for 127.0.0.1 (openssl), as files: ca, cert, key."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder.mkdir()
    ca_key, ca, key, request, cert = (str(folder / name) for name in ("ca.key", "ca.pem", "key.pem", "req.csr", "cert.pem"))
    (folder / "ext.cnf").write_text("subjectAltName = IP:127.0.0.1\n", encoding="utf-8")

    def run(*args):
        subprocess.run(["openssl", *args], check=True, capture_output=True)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=test-ca")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request, "-subj", "/CN=127.0.0.1")
    run("x509", "-req", "-in", request, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
        "-extfile", str(folder / "ext.cnf"))
    return ca, cert, key


def test_a_tls_cluster_is_reached_with_dasks_own_configuration(tmp_path):
    """A scheduler that speaks only TLS: ``bake_scheduler: tls://...`` and the certificates in
    Dask's own configuration (here its environment variables, as in CI); nothing of Scalecore's."""
    from distributed import Security

    ca, cert, key = _certificates(tmp_path / "certificates")
    security = Security(tls_ca_file=ca, tls_scheduler_cert=cert, tls_scheduler_key=key, tls_worker_cert=cert,
                        tls_worker_key=key, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
    here = site_with_own_kind(tmp_path / "here")
    there = site_with_own_kind(tmp_path / "there")
    local = build(here)
    assert local.returncode == 0, local.describe()
    with LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1",
                      protocol="tls://", security=security) as cluster:
        assert cluster.scheduler_address.startswith("tls://")
        on_scheduler(there, cluster.scheduler_address)
        unconfigured = build(there)
        assert unconfigured.returncode != 0 and "cannot reach the Dask scheduler" in "".join(unconfigured.errors), \
            unconfigured.describe()
        remote = build(there, env=environment(DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION="True",
                                              DASK_DISTRIBUTED__COMM__TLS__CA_FILE=ca,
                                              DASK_DISTRIBUTED__COMM__TLS__CLIENT__CERT=cert,
                                              DASK_DISTRIBUTED__COMM__TLS__CLIENT__KEY=key))
    assert remote.returncode == 0, remote.describe()
    assert any(f"on the Dask cluster at {cluster.scheduler_address} (1 worker)" in line
               for line in remote.lines("INFO")), remote.describe()
    assert tree(there / "site") == tree(here / "site")


def test_a_function_of_the_site_can_start_a_cluster_that_ends_with_the_build(tmp_path):
    """``module:function`` returning a Dask cluster object (here a LocalCluster; a SLURMCluster,
    KubeCluster or coiled.Cluster alike): the build makes its client, bakes, and closes it."""
    here = site_with_own_kind(tmp_path / "here")
    there = site_with_own_kind(tmp_path / "there")
    (there / "bakecluster.py").write_text(
        "from distributed import LocalCluster\n\n\ndef local():\n"
        "    return LocalCluster(n_workers=1, processes=True, threads_per_worker=1, dashboard_address=None, "
        "host='127.0.0.1')\n", encoding="utf-8")
    on_scheduler(there, "bakecluster:local")
    local, remote = build(here), build(there)
    assert local.returncode == 0, local.describe()
    assert remote.returncode == 0, remote.describe()
    assert any("on the Dask cluster at tcp://127.0.0.1:" in line and "(1 worker)" in line
               for line in remote.lines("INFO")), remote.describe()
    assert tree(there / "site") == tree(here / "site")
