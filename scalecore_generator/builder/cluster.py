"""The bake on a Dask cluster (the plugin option ``bake_scheduler``): the same groups as on local
processes, computed by ``dask.distributed`` workers, with the same files and the same errors.

What a worker on another machine has, and what it is sent:

- **installed**: ``scalecore[site,dask]``, the same version as the build's (the bake's own code,
  the core, the figures' views.js and the Node that draws them). Nothing checks a version
  number; each worker computes the kind's code version (points.code_version) itself and refuses a
  group whose key was made from other code, so a stale worker never fills the cache with
  results of other code.
- **sent once per build**: the folders of the kinds to bake and the packages they compute with
  (the site's ``packages`` and the top-level package of any compute function outside the core),
  in one zip named by its sha256, scattered to the workers as data; each worker unpacks it
  under its local directory, in a folder named by that hash. Not ``client.upload_file`` (a
  module's reload re-imports the package's top module but not its sub-modules, and a kind is a
  folder of files, not a module) nor ``UploadDirectory`` (a nanny plugin: it unpacks over the
  previous upload, keeping deleted files; it puts the folder on the nanny's ``sys.path``, not
  the worker's; and it skips any folder named ``tests`` or ``docs``). A folder named by its
  content is never stale, and a long-lived worker that baked another version of a package
  drops those modules before it imports this one.
- **sent as data**: the site files a group reads (a corpus's embedding table): the worker has
  no path to the build's cache. Each is scattered once and sent to a worker once.
- **sent back**: the group's files, as bytes. The build writes the cache entry itself
  (cache.writing), exactly as a local worker does, so the site and the manifest are
  byte-identical to a local build's (on workers with the same Python and platform: a compute
  function's floats are the same IEEE operations).

A group that fails on a worker raises the same BakeError as locally, its paths (the kind's
files, the site package's line) mapped back to the author's own files.
"""

import hashlib
import io
import os
import shutil
import sys
import tempfile
import threading
import zipfile
from concurrent.futures import Future
from pathlib import Path

from scalecore_generator.foundation import cache
from scalecore_generator.builder.points import BakeError, Cluster, bake_points, code_version
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.kinds.kind import Kind

CONNECT_S = 10  # how long to try to reach the scheduler
WORKERS_S = 30  # how long to wait for the first worker to join it
CORE = {"scalecore", "scalecore_generator"}  # installed on every worker, never sent
FIX_INSTALL = "install the same scalecore on the cluster's workers as on this machine (pip install 'scalecore[site,dask]')"


class DaskCluster:
    """An executor for bake._run: ``submit(job)`` sends a group to the cluster, ``collect`` writes
    the files it sent back into the group's cache entry."""

    def __init__(self, cluster: Cluster, kinds: dict[str, type[Kind]], log):
        self.cluster = cluster
        self.client = _connect(cluster)
        try:
            self.executor = self.client.get_executor(pure=False)
            bundle, self.places = site_code(kinds, cluster.packages)
            self.digest = hashlib.sha256(bundle).hexdigest()[:24]
            self.bundle = self.client.scatter(bundle, hash=False)
            self.inputs: dict[str, object] = {}  # site file -> its scattered text
            workers = len(self.client.scheduler_info().get("workers", {}))
            log.info(f"bake: on the Dask cluster at {cluster.address} ({workers} worker{'s' * (workers != 1)}); "
                     f"its code, {len(bundle) / 1e3:,.0f} kB, sent as {self.digest[:12]}")
        except BaseException:
            self.client.close()
            raise

    def submit(self, job: dict) -> Future:
        for site_path, file in job["inputs"].items():
            if site_path not in self.inputs:
                self.inputs[site_path] = self.client.scatter(Path(file).read_text(encoding="utf-8"), hash=False)
        sent = dict(job, folder=f"kinds/{Path(job['folder']).name}", target=None,
                    inputs={site_path: self.inputs[site_path] for site_path in job["inputs"]})
        return self.executor.submit(bake_on_worker, sent, self.bundle, self.digest, self.places)

    def collect(self, job: dict, future: Future) -> None:
        try:
            files = future.result()
        except ScalecoreError:  # the group's own mistake, as a local bake says it
            raise
        except Exception as error:  # the cluster's own trouble: a lost worker, a worker without scalecore
            raise BakeError(f"{self.cluster.where}: the Dask cluster at {self.cluster.address} could not bake the "
                            f"group {job['data_key']!r}: {type(error).__name__}: {error}. Fix: {FIX_INSTALL}, and "
                            "give its workers the memory a group needs; or remove bake_scheduler to bake on this "
                            "machine.") from None
        with cache.writing(Path(job["target"])) as folder:
            for name, data in files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)

    def shutdown(self) -> None:
        if self.client is None:
            return
        self.executor.shutdown(wait=False)  # cancels what is still queued
        self.client.close()
        self.client = None


def _connect(cluster: Cluster):
    try:
        from distributed import Client
    except ImportError:
        raise BakeError(f"{cluster.where}: bake_scheduler is set, but dask.distributed is not installed. Fix: pip "
                        "install 'scalecore[dask]' (here and on the cluster's workers), or remove bake_scheduler "
                        "to bake with local processes.") from None
    try:
        client = Client(cluster.address, timeout=CONNECT_S, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise BakeError(f"{cluster.where}: cannot reach the Dask scheduler at {cluster.address!r} "
                        f"({type(error).__name__}: {error}). Fix: start it (dask scheduler) and its workers (dask "
                        f"worker ADDRESS --nthreads 1), check the address and port, or remove bake_scheduler to "
                        "bake on this machine.") from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_S)
    except (TimeoutError, OSError):
        client.close()
        raise BakeError(f"{cluster.where}: the Dask scheduler at {cluster.address} has no worker ({WORKERS_S} s "
                        "waited). Fix: start workers on it (dask worker ADDRESS --nthreads 1), or remove "
                        "bake_scheduler to bake on this machine.") from None
    return client


# ------------------------------------------------------------------------------ what is sent


def site_code(kinds: dict[str, type[Kind]], packages) -> tuple[bytes, dict[str, str]]:
    """The zip of the kinds' folders (``kinds/<name>/``) and the packages they compute with
    (``packages/<name>/``), and where each came from (to map a worker's paths back). Its bytes
    depend on the files' content only (sorted names, a fixed date), so its hash names it."""
    places = {f"kinds/{name}": kind.folder for name, kind in sorted(kinds.items())}
    for package in [*packages, *(_compute_package(kind) for kind in kinds.values())]:
        if package is not None:
            places.setdefault(f"packages/{package.name}", package)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for inside, source in sorted(places.items()):
            files = [source] if source.is_file() else sorted(
                p for p in source.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")
            for file in files:
                name = inside if file == source else f"{inside}/{file.relative_to(source).as_posix()}"
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
                archive.writestr(info, file.read_bytes())
    return buffer.getvalue(), {inside: str(source) for inside, source in places.items()}


def _compute_package(kind) -> Path | None:
    """The top-level package (or module) of a kind's compute function, unless it is the core."""
    import importlib.util

    if not kind.compute:
        return None
    top = kind.compute.partition(":")[0].split(".")[0]
    if top in CORE:
        return None
    spec = importlib.util.find_spec(top)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin) if spec.origin and spec.origin.endswith(".py") else None


# ------------------------------------------------------------------------------ on the worker

_unpacking = threading.Lock()
_checked: set[tuple[str, str]] = set()  # (kind folder, code version) found equal on this worker


def bake_on_worker(job: dict, bundle: bytes, digest: str, places: dict[str, str]) -> dict[str, bytes]:
    """One group, computed on a Dask worker: its files as bytes (runs on the worker)."""
    with _unpacking:  # one group at a time per worker process: sitedata and sys.modules are its own
        root = _unpacked(bundle, digest)
        _use_packages(root)
        try:
            kind_folder = root / job["folder"]
            _check_code(kind_folder, job["code"], places)
            with tempfile.TemporaryDirectory(prefix="scalecore-group-") as folder:
                bake_points(Path(folder), kind_folder, job, job["inputs"].__getitem__)
                return {path.relative_to(folder).as_posix(): path.read_bytes()
                        for path in sorted(Path(folder).rglob("*")) if path.is_file()}
        except Exception as error:
            raise _mapped(error, root, places) from None


def _unpacked(bundle: bytes, digest: str) -> Path:
    """The site's code, unpacked once per worker into a folder named by its hash."""
    try:
        from distributed import get_worker

        base = Path(get_worker().local_directory)
    except (ImportError, ValueError):
        base = Path(tempfile.gettempdir())
    root = base / f"scalecore-site-{digest}"
    if not root.is_dir():
        temporary = base / f"{cache.TEMPORARY}scalecore-site-{digest}-{os.getpid()}"
        shutil.rmtree(temporary, ignore_errors=True)
        with zipfile.ZipFile(io.BytesIO(bundle)) as archive:
            archive.extractall(temporary)
        (temporary / "packages").mkdir(exist_ok=True)
        try:
            temporary.rename(root)
        except OSError:  # another process of this machine unpacked it first
            shutil.rmtree(temporary, ignore_errors=True)
    return root


def _use_packages(root: Path) -> None:
    """Import the site's packages from this upload: first on sys.path, and modules of the same
    names imported from another upload (an earlier build's) dropped."""
    packages = str(root / "packages")
    sys.path[:] = [packages] + [p for p in sys.path if p != packages and "scalecore-site-" not in p]
    names = {path.name.removesuffix(".py") for path in (root / "packages").iterdir()}
    for module_name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None) or ""
        if module_name.split(".")[0] in names and not file.startswith(packages):
            del sys.modules[module_name]


def _check_code(kind_folder: Path, expected: str, places: dict[str, str]) -> None:
    """The build keyed the group's cache entry by its own code: refuse to compute it with other."""
    if (str(kind_folder), expected) in _checked:
        return
    from scalecore_generator.kinds.registry import load_kind
    import scalecore

    if code_version(load_kind(kind_folder)) != expected:
        raise BakeError(f"the Dask worker {_worker_address()} runs other code than this build for the kind "
                        f"{kind_folder.name!r} (its scalecore {scalecore.__version__}, at "
                        f"{Path(scalecore.__file__).parent}), so its results would not be the ones this build "
                        f"keys. Fix: {FIX_INSTALL}.")
    _checked.add((str(kind_folder), expected))


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "(not a Dask worker)"


def _mapped(error: Exception, root: Path, places: dict[str, str]) -> Exception:
    """``error`` with the worker's paths of the site's code replaced by the author's own."""
    message = str(error)
    for inside, source in sorted(places.items(), key=lambda item: -len(item[0])):
        message = message.replace(str(root / inside), source)
    if isinstance(error, ScalecoreError):
        try:
            return type(error)(message)
        except TypeError:  # a subclass with other arguments: the message as a BakeError
            return BakeError(message)
    return BakeError(f"the Dask worker {_worker_address()}: {type(error).__name__}: {message}. Fix: {FIX_INSTALL}.")
