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

Where the cluster is (``bake_scheduler``): an address (``tcp://`` or ``tls://``: Dask's own
configuration, ``distributed.comm.tls.*``, gives TLS its certificates); or ``module:function``, a
function of the site's that returns a ``distributed.Client`` (made with a ``Security`` of its
own, say) or a Dask cluster object (dask-jobqueue, dask-kubernetes, Coiled); or, from Python, a
``Client``. How long to wait for the scheduler and for a worker are options too.

A cluster loses work: a worker killed (its memory, a preempted node), or every worker at once,
which takes with them the code and tables scattered to them, so Dask cancels every group that
needed those ("lost dependencies"). Dask itself sends a group again when one worker dies under it
(up to ``distributed.scheduler.allowed-failures``); a group lost otherwise is sent again here, the
code re-scattered, after waiting for a worker to come back, up to ``retries`` times; then the
build stops naming what happened. Only a worker whose scalecore differs from the build's is told
to install the same one.
"""

import hashlib
import importlib
import io
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import zipfile
from concurrent.futures import Future
from pathlib import Path

from scalecore_generator.foundation import cache
from scalecore_generator.builder.points import BakeError, Cluster, bake_points, code_version
from scalecore_generator.errors import ScalecoreError
from scalecore_generator.kinds.kind import Kind

CORE = {"scalecore", "scalecore_generator"}  # installed on every worker, never sent
FIX_INSTALL = "install the same scalecore on the cluster's workers as on this machine (pip install 'scalecore[site,dask]')"
FIX_OR_LOCAL = "or remove bake_scheduler to bake on this machine"
FACTORY = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")  # module:function (an address's port is digits)
LOST = {"KilledWorker", "CommClosedError", "StreamClosedError", "FutureCancelledError", "CancelledError"}


def _version() -> str:
    import scalecore

    return scalecore.__version__


class DaskCluster:
    """An executor for bake._run: ``submit(job)`` sends a group to the cluster (and again when the
    cluster loses it), ``collect`` writes the files it sent back into the group's cache entry."""

    def __init__(self, cluster: Cluster, kinds: dict[str, type[Kind]], log):
        self.cluster, self.log = cluster, log
        self.client, self.started, self.named = _connect(cluster)
        try:
            self._bundle, self.places = site_code(kinds, cluster.packages)
            self.digest = hashlib.sha256(self._bundle).hexdigest()[:24]
            self._sending = threading.Lock()
            self.bundle = self.client.scatter(self._bundle, hash=False)
            self.inputs: dict[str, object] = {}  # site file -> its scattered text
            self.lost: list[str] = []  # what the cluster lost, for the last message
            self.running: set = set()  # the groups sent and not yet answered (cancelled at shutdown)
            workers = len(self.client.scheduler_info().get("workers", {}))
            log.info(f"bake: on the Dask cluster at {self.named} ({workers} worker{'s' * (workers != 1)}); "
                     f"its code, {len(self._bundle) / 1e3:,.0f} kB, sent as {self.digest[:12]}")
        except BaseException:
            self.shutdown()
            raise

    def submit(self, job: dict) -> Future:
        outer = Future()
        outer.set_running_or_notify_cancel()
        self._send(job, outer, 0)
        return outer

    def _send(self, job: dict, outer: Future, attempt: int) -> None:
        with self._sending:
            for site_path, file in job["inputs"].items():
                if site_path not in self.inputs:
                    self.inputs[site_path] = self._scatter(Path(file).read_text(encoding="utf-8"))
            sent = dict(job, folder=f"kinds/{Path(job['folder']).name}", target=None, version=_version(),
                        inputs={site_path: self.inputs[site_path] for site_path in job["inputs"]})
            inner = self.client.submit(bake_on_worker, sent, self.bundle, self.digest, self.places, pure=False)
            self.running.add(inner)
        inner.add_done_callback(lambda done: self._landed(job, outer, attempt, done))

    def _landed(self, job: dict, outer: Future, attempt: int, inner) -> None:
        """A group's answer (on one of the client's threads): its files, its own error, or lost
        with the cluster's workers: then sent again, once a worker is there, up to ``retries``."""
        with self._sending:
            self.running.discard(inner)
        try:
            try:
                outer.set_result(inner.result())  # its error, or why it was cancelled, raised
                return
            except BaseException as raised:  # noqa: BLE001 - judged below
                error = raised
            if type(error).__name__ not in LOST or self.client is None:
                outer.set_exception(error)
                return
            self.lost.append(f"{type(error).__name__}: {error}".rstrip(": ."))
            if attempt >= self.cluster.retries:
                outer.set_exception(self._gave_up(job, error, attempt))
                return
            if not self._workers_back():
                outer.set_exception(BakeError(
                    f"{self.cluster.where}: the Dask cluster at {self.named} lost the group {job['data_key']!r} "
                    f"with its workers ({self.lost[-1]}), and no worker joined it again in "
                    f"{self.cluster.workers_timeout:g} s. Fix: restart its workers, or give them the memory a "
                    f"group needs (a worker killed for its memory says so in its log); {FIX_OR_LOCAL}."))
                return
            self.log.info(f"bake: the Dask cluster lost the group {job['data_key']!r} ({self.lost[-1]}); "
                          f"sending it again ({attempt + 1} of {self.cluster.retries})")
            self._send(job, outer, attempt + 1)
        except BaseException as error:  # noqa: BLE001 - the build waits on outer: it must hear of it
            if not outer.done():
                outer.set_exception(error)

    def _workers_back(self) -> bool:
        """Wait for a worker; scatter the code and tables again if the cluster lost them."""
        try:
            self.client.wait_for_workers(1, timeout=self.cluster.workers_timeout)
        except (TimeoutError, OSError):
            return False
        with self._sending:
            if self.bundle.status != "finished":
                self.bundle = self._scatter(self._bundle)
            self.inputs = {site_path: scattered for site_path, scattered in self.inputs.items()
                           if scattered.status == "finished"}
        return True

    def _scatter(self, data):
        """``data`` sent to the cluster's workers; tried again while workers that just came back
        (or are still going) close their connections, for up to ``workers_timeout``."""
        deadline = time.monotonic() + self.cluster.workers_timeout
        while True:
            try:
                return self.client.scatter(data, hash=False)
            except Exception as error:  # noqa: BLE001 - a closed connection is tried again, the rest raised
                if type(error).__name__ not in LOST and not isinstance(error, OSError):
                    raise
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
                self.client.wait_for_workers(1, timeout=max(1.0, deadline - time.monotonic()))

    def _gave_up(self, job: dict, error: BaseException, attempt: int) -> BakeError:
        return BakeError(
            f"{self.cluster.where}: the Dask cluster at {self.named} lost the group {job['data_key']!r} "
            f"{attempt + 1} times, each time with its workers (last: {self.lost[-1]}). Fix: keep its workers "
            "running for the build and give them the memory a group needs (a worker killed for its memory says so "
            f"in its log); a cluster that loses workers often can be given more tries (bake_retries); {FIX_OR_LOCAL}.")

    def collect(self, job: dict, future: Future) -> None:
        try:
            files = future.result()
        except ScalecoreError:  # the group's own mistake, as a local bake says it; or given up above
            raise
        except Exception as error:  # the cluster's own trouble: the scheduler gone, say
            raise BakeError(f"{self.cluster.where}: the Dask cluster at {self.named} could not bake the group "
                            f"{job['data_key']!r}: {type(error).__name__}: {error}. Fix: check that its scheduler "
                            f"and workers are running and reachable from here; {FIX_OR_LOCAL}.") from None
        with cache.writing(Path(job["target"])) as folder:
            for name, data in files.items():
                (folder / name).parent.mkdir(parents=True, exist_ok=True)
                (folder / name).write_bytes(data)

    def shutdown(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return
        try:  # the groups still queued or running (a build that stops), the scattered code and tables
            with self._sending:
                sent = [*self.running, self.bundle, *self.inputs.values()]
            client.cancel(sent)
        except Exception:  # noqa: BLE001 - a cluster already gone, or the build stopped before sending
            pass
        _close(self.started)  # what this build made: its client, a cluster the site's function started


def _connect(cluster: Cluster):
    """The client for ``cluster.address`` (see the module's docstring), what this build started
    and closes at its end (the client it made; the cluster object a site's function returned),
    and how messages name the cluster."""
    try:
        from distributed import Client
    except ImportError:
        raise BakeError(f"{cluster.where}: bake_scheduler is set, but dask.distributed is not installed. Fix: pip "
                        "install 'scalecore[dask]' (here and on the cluster's workers), or remove bake_scheduler "
                        "to bake with local processes.") from None
    target, started = cluster.address, []
    if isinstance(target, Client):
        client = target
    else:
        if isinstance(target, str) and FACTORY.fullmatch(target):
            target = _made(cluster, target)
            if not isinstance(target, (Client, str)):  # a Dask cluster object: its client, made here
                started.append(target)
        if isinstance(target, Client):
            client = target
            started.append(client)
        else:
            try:
                client = Client(target, timeout=cluster.connect_timeout, set_as_default=False)
                started.insert(0, client)
            except (OSError, TimeoutError, ValueError, TypeError) as error:
                _close(started)
                raise BakeError(f"{cluster.where}: cannot reach the Dask scheduler at {_named(target)!r} "
                                f"({type(error).__name__}: {error}; waited up to {cluster.connect_timeout:g} s, "
                                "bake_connect_timeout). Fix: start it (dask scheduler) and its workers (dask worker "
                                "ADDRESS --nthreads 1), check the address and port (and, for tls://, Dask's "
                                f"distributed.comm.tls settings), {FIX_OR_LOCAL}.") from None
    named = _named(client.scheduler.address if getattr(client, "scheduler", None) else target)
    try:
        client.wait_for_workers(1, timeout=cluster.workers_timeout)
    except (TimeoutError, OSError):
        _close(started)
        raise BakeError(f"{cluster.where}: the Dask scheduler at {named} has no worker ({cluster.workers_timeout:g} "
                        "s waited, bake_workers_timeout). Fix: start workers on it (dask worker ADDRESS --nthreads "
                        f"1), or wait longer for a cluster that starts them on demand; {FIX_OR_LOCAL}.") from None
    return client, started, named


def _close(started: list) -> None:
    for each in started:
        try:
            each.close()
        except Exception:  # noqa: BLE001 - closing what is already gone
            pass


def _made(cluster: Cluster, factory: str):
    """What the site's ``module:function`` returns: a Client, or a Dask cluster object (its client)."""
    from distributed import Client

    module_name, function_name = factory.split(":")
    if cluster.root is not None and str(cluster.root) not in sys.path:
        sys.path.insert(0, str(cluster.root))  # a module beside mkdocs.yml
    try:
        made = getattr(importlib.import_module(module_name), function_name)()
    except ScalecoreError:
        raise
    except Exception as error:  # noqa: BLE001 - the site's own code: its error, named
        raise BakeError(f"{cluster.where}: bake_scheduler {factory}: {type(error).__name__}: {error}. Fix: make "
                        f"{function_name}() in the module {module_name} (importable from the site's folder) return "
                        f"a distributed.Client or a Dask cluster; {FIX_OR_LOCAL}.") from None
    if isinstance(made, (Client, str)) or hasattr(made, "scheduler_address"):  # a LocalCluster,
        return made  # SLURMCluster, KubeCluster, coiled.Cluster...: _connect makes its client
    raise BakeError(f"{cluster.where}: bake_scheduler {factory} returned {type(made).__name__}, not a "
                    f"distributed.Client, a Dask cluster or an address. Fix: return one of those; {FIX_OR_LOCAL}.")


def _named(address) -> str:
    return address if isinstance(address, str) else type(address).__name__


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
            raise _mapped(error, root, places, job.get("version")) from None


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


def _mapped(error: Exception, root: Path, places: dict[str, str], version: str | None = None) -> Exception:
    """``error`` with the worker's paths of the site's code replaced by the author's own; told to
    install the build's scalecore only when this worker's differs (``version``: the build's)."""
    message = str(error)
    for inside, source in sorted(places.items(), key=lambda item: -len(item[0])):
        message = message.replace(str(root / inside), source)
    if isinstance(error, ScalecoreError):
        try:
            return type(error)(message)
        except TypeError:  # a subclass with other arguments: the message as a BakeError
            return BakeError(message)
    if version is not None and version != _version():
        return BakeError(f"the Dask worker {_worker_address()}: {type(error).__name__}: {message}. Its scalecore is "
                         f"{_version()}, this build's {version}. Fix: {FIX_INSTALL}.")
    return BakeError(f"the Dask worker {_worker_address()}: {type(error).__name__}: {message}. Fix: see that worker's "
                     "log; a group needs the memory and the Python packages of a local bake.")
