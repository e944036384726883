"""``skillsite serve``: build into a temporary folder, serve it on 127.0.0.1 (or ``--host``,
IPv6 ones too), rebuild on change.

``http.server`` in a process of its own (forked before the first build, so that the
process that rebuilds, and forks its workers, never has other threads, and shares none of what
its builds keep; a thread where ``fork`` is missing), and a watcher of the sources, the configuration and the templates
(:mod:`skillsite.publish.watch`: file events from ``watchfiles`` in a process of its own, for the
same reason; polling where events are unavailable). Pages are
reloaded through a small script that the server injects into every HTML response
(the built files themselves are never changed, so ``serve`` shows exactly what
``build`` publishes). The script asks ``/__skillsite/version``, which changes after
every successful rebuild, and waits on it: asked with the number it has, the server answers when a
rebuild changes it.  Stopped (Ctrl-C, SIGTERM), it ends at once: its temporary folder,
two catalogs and a cache, is removed by a detached process (:func:`remove_after_exit`).
"""
from __future__ import annotations

import errno
import functools
import mmap
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, TextIO
from urllib.parse import parse_qs, unquote, urlsplit

from skillsite.diagnostics import Diagnostic, counted, format_text, printable
from skillsite.publish.interrupt import builds_end_on_signals
from skillsite.publish.lock import claim
from skillsite.publish.resident import Resident
from skillsite.publish.serve_hosts import allowed_names, host_allowed
from skillsite.publish.watch import EventWatcher, PollingWatcher, WatchUnavailable, watched_stamps

if TYPE_CHECKING:
    from skillsite.publish.plan import BuildResult

__all__ = ["CatalogHandler", "CatalogServer", "make_server", "watched_stamps", "DevServer", "RELOAD_PATH",
           "VERSION_PATH"]

RELOAD_PATH = "/__skillsite/reload.js"
VERSION_PATH = "/__skillsite/version"
RELOAD_TAG = f'<script src="{RELOAD_PATH}" defer></script>'.encode()
#: What a request naming another host is told (:mod:`skillsite.publish.serve_hosts`).
NOT_ALLOWED = ("This server answers requests for localhost, IP addresses and the --host it listens on: a page "
               "of another name may be a DNS-rebinding attack. To answer a name, start skillsite serve with "
               "--allowed-host NAME.")
#: How long a request for the version may wait for a newer one before it is answered as it is.
VERSION_WAIT = 20.0
RELOAD_JS = b"""(function () {
  "use strict";
  var seen = null;
  function poll() {
    var url = "%s" + (seen === null ? "" : "?since=" + encodeURIComponent(seen));
    fetch(url, { cache: "no-store" }).then(function (r) { return r.text(); }).then(function (v) {
      if (seen !== null && v !== seen) { location.reload(); return; }
      seen = v;
      poll();
    }, function () { setTimeout(poll, 1500); });
  }
  poll();
})();
""" % VERSION_PATH.encode()
SERVE_PREFIX = "skillsite-serve-"   # the temporary folder of one serve: the catalog and its cache
IN_USE = ".in-use"                  # in that folder: locked while the serve runs
SYNC_FOLDER = "watch"               # in that folder: the event watcher's own (see EventWatcher)


def built_line(result: BuildResult, seconds: float) -> str:
    """What serve says of a build, counted as ``build`` counts ("1 warning", "1,204 skipped")."""
    return (f"Built {counted(len(result.published), 'skill')} ({len(result.skipped):,} skipped, "
            f"{counted(result.errors, 'error')}, {counted(result.warnings, 'warning')}) in {seconds:.2f} s")


class ReloadState:
    """The number of the current build; pages reload when it changes.

    Kept in a page of memory shared with the serving process (an anonymous mapping survives
    ``fork`` shared): the rebuilding process bumps it and writes a byte to a pipe; in the serving
    process, a thread started by the first request that waits reads that pipe and wakes every
    request waiting for a new number (none looks at it on a timer).
    """

    def __init__(self) -> None:
        self._shared = mmap.mmap(-1, mmap.PAGESIZE)
        self._bumped, self._bump = os.pipe()
        os.set_blocking(self._bump, False)
        self._changed = threading.Condition()
        self._relaying = False  # whether this process has the thread that reads the pipe

    @property
    def version(self) -> int:
        return int.from_bytes(self._shared[:8], "little")

    def bump(self) -> None:
        self._shared[:8] = (self.version + 1).to_bytes(8, "little")
        try:
            os.write(self._bump, b"\0")
        except BlockingIOError:  # the pipe is full: the serving process has bytes to read already
            pass

    def after(self, since: str | None, timeout: float) -> int:
        """The number, once it is not ``since`` (its text), or after ``timeout`` seconds as it is."""
        with self._changed:
            if not self._relaying:
                threading.Thread(target=self._relay, name="skillsite-reload", daemon=True).start()
                self._relaying = True
            self._changed.wait_for(lambda: str(self.version) != since, timeout)
        return self.version

    def _relay(self) -> None:
        """Wake the waiting requests at each byte the rebuilding process writes."""
        while os.read(self._bumped, 4096):
            with self._changed:
                self._changed.notify_all()


class CatalogHandler(SimpleHTTPRequestHandler):
    """Serves a built catalog like a static host: ``404.html`` for missing paths, no caching.

    With a ``ReloadState`` it also serves the reload script and injects it into HTML pages.
    """

    reload: ReloadState | None = None
    allowed: frozenset[str] = frozenset()   # host names answered besides addresses and localhost
    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, ".md": "text/markdown; charset=utf-8",
                      ".json": "application/json", ".xml": "application/xml", ".txt": "text/plain; charset=utf-8",
                      ".svg": "image/svg+xml", ".js": "text/javascript", ".css": "text/css"}

    def __init__(self, *args, reload: ReloadState | None = None, allowed: frozenset[str] = frozenset(), **kwargs):
        self.reload = reload
        self.allowed = allowed
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - http.server's signature
        """Quiet: the console is for build output."""

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:
        self._respond()

    def do_HEAD(self) -> None:
        """The headers a GET would send (``_send`` and ``_send_with_headers`` send no body for HEAD)."""
        self._respond()

    def _respond(self) -> None:
        if not host_allowed(self.headers.get("Host"), self.allowed):
            return self.send_error(HTTPStatus.FORBIDDEN, "Host not allowed", NOT_ALLOWED)
        path = urlsplit(self.path).path
        if self.reload is not None and path == RELOAD_PATH:
            return self._send(HTTPStatus.OK, "text/javascript", RELOAD_JS)
        if self.reload is not None and path == VERSION_PATH:
            return self._send(HTTPStatus.OK, "text/plain", self._version_after(urlsplit(self.path).query).encode())
        if "\x00" in unquote(path):
            return self.send_error(HTTPStatus.BAD_REQUEST)
        local = self._served_file(path)
        if local is None:
            return self.send_error(HTTPStatus.NOT_FOUND)
        # the rules name files by their site path: the one served, however the request spells it
        extra = header_rules(Path(self.directory)).get("/" + local.relative_to(self.directory).as_posix())
        if extra is not None:
            return self._send_with_headers(local, extra)
        if self.reload is not None and local.suffix == ".html" and local.is_file():
            return self._send(HTTPStatus.OK, "text/html; charset=utf-8", inject_reload(local.read_bytes()))
        return super().do_HEAD() if self.command == "HEAD" else super().do_GET()

    def _version_after(self, query: str) -> str:
        """The current build's number; asked ``since=N`` (the number a page has), it is answered
        once it differs from N, or after :data:`VERSION_WAIT` seconds as it is: a page waiting so
        reloads as soon as a rebuild is done, not at its next look (as mkdocs' livereload does)."""
        return str(self.reload.after(parse_qs(query).get("since", [None])[0], VERSION_WAIT))

    def _served_file(self, url_path: str) -> Path | None:
        """What a request path serves (a folder's ``index.html`` when it ends in ``/``, a folder
        without it: redirected by the static handler), inside the served folder; None when
        nothing is there (or the name is one the file system refuses, such as one too long)."""
        local = Path(self.translate_path(url_path))
        try:
            if unquote(url_path).endswith("/"):
                if not local.is_dir():
                    return None  # a file's address with a slash added names nothing, as on static hosts
                local = local / "index.html"
            return local if local.exists() else None
        except OSError:
            return None

    def _send_with_headers(self, local: Path, headers: dict[str, str]) -> None:
        """A file with the headers ``_headers`` gives it (as Netlify would serve it)."""
        if not local.is_file():
            return self.send_error(HTTPStatus.NOT_FOUND)
        body = local.read_bytes()
        self.send_response(HTTPStatus.OK)
        for name, value in headers.items():
            self.send_header(name, value)
        if "content-type" not in {k.lower() for k in headers}:
            self.send_header("Content-Type", self.guess_type(str(local)))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _send(self, status: HTTPStatus, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """A 404 gets the catalog's own ``404.html``, as Netlify and GitHub Pages do."""
        page = Path(self.directory) / "404.html"
        if code == HTTPStatus.NOT_FOUND and page.is_file():
            body = page.read_bytes()
            if self.reload is not None:
                body = inject_reload(body)
            return self._send(HTTPStatus.NOT_FOUND, "text/html; charset=utf-8", body)
        return super().send_error(code, message, explain)


def header_rules(directory: Path) -> dict[str, dict[str, str]]:
    """Exact-path rules of a Netlify-style ``_headers`` file in ``directory`` (``{}`` if none)."""
    try:
        text = (directory / "_headers").read_text(encoding="utf-8")
    except OSError:
        return {}
    rules: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            current = rules.setdefault(unquote(line.strip()), {})
        elif current is not None and ":" in line:
            name, value = line.split(":", 1)
            current[name.strip()] = value.strip()
    return rules


def prepare_rebuilds() -> None:
    """Make ready, while nothing has changed yet, what the first rebuild would otherwise wait for:
    the audit's patterns and its one-pass search for their literals, in this process (a cold
    build audits in worker processes; a rebuild of a few skills audits here)."""
    from skillsite.audit.engine import audit_document

    audit_document("SKILL.md", "A text for the audit to read once.")


def inject_reload(html: bytes) -> bytes:
    """The page with the reload script added at the end of its ``<head>``."""
    marker = html.find(b"</head>")
    if marker < 0:
        return html + RELOAD_TAG
    return html[:marker] + RELOAD_TAG + b"\n" + html[marker:]


class CatalogServer(ThreadingHTTPServer):
    """A threading HTTP server that stays quiet when a browser drops a connection; in a
    process of its own, it stops once the process that started it is gone."""

    daemon_threads = True
    #: Connections waiting to be accepted: socketserver's 5 timed browsers out when a page and its
    #: assets, or a few tabs, asked at once.
    request_queue_size = 128
    parent_pid = 0  # set in a serving process: the pid of the process that forked it

    def service_actions(self) -> None:
        if self.parent_pid and os.getppid() != self.parent_pid:
            os._exit(0)  # the watcher was killed: nobody is left to stop this process

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)


class CatalogServer6(CatalogServer):
    """A :class:`CatalogServer` listening on IPv6 (``--host ::1``)."""

    address_family = socket.AF_INET6


def address_family(host: str, port: int) -> socket.AddressFamily:
    """The family to listen on ``host`` with, chosen as ``http.server``'s ``test()`` chooses it,
    by ``getaddrinfo``: IPv6 when the host's addresses are all IPv6 ones (``::1``, a name with
    only an AAAA record), else IPv4, as serve always listened (``localhost`` stays 127.0.0.1),
    and IPv4 too when it has no address, so that binding says why as it did."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (OSError, UnicodeError, TypeError):  # no address, or a name IDNA cannot encode
        return socket.AF_INET
    families = {info[0] for info in infos}
    return socket.AF_INET6 if families == {socket.AF_INET6} else socket.AF_INET


def address_text(host: str, port: int) -> str:
    """``host:port`` as a URL or a diagnostic names it: an IPv6 address in brackets
    (``[::1]:8000``, not ``::1:8000``), and the host :func:`printable`, as typed on the command line."""
    shown = printable(host)
    return f"[{shown}]:{port}" if ":" in host else f"{shown}:{port}"


class CannotListen(OSError):
    """``serve`` cannot listen on the address asked for (taken, or no address of this machine),
    told apart from its temporary folder failing to be made (the machine's, not the command line's)."""


def make_server(directory: Path, host: str = "127.0.0.1", port: int = 0,
                reload: ReloadState | None = None, allowed_hosts: Sequence[str] = ()) -> ThreadingHTTPServer:
    """An HTTP server for a built catalog (port 0 picks a free port), on IPv6 when ``host``
    is an IPv6 address (:func:`address_family`); call ``serve_forever``.  OSError when it
    cannot listen there, a ``host`` no socket can take included (as EINVAL)."""
    handler = functools.partial(CatalogHandler, directory=str(directory), reload=reload,
                                allowed=allowed_names(host, allowed_hosts))
    server_class = CatalogServer6 if address_family(host, port) == socket.AF_INET6 else CatalogServer
    try:
        return server_class((host, port), handler)
    except TypeError as exc:  # the socket module's word for a host it cannot encode ('é' * 70: IDNA refuses)
        raise OSError(errno.EINVAL, f"not a host name ({exc})") from None


def remove_abandoned_folders(parent: Path) -> None:
    """Remove the temporary folders of ``serve`` processes that were killed (their claim is free)."""
    for folder in parent.glob(f"{SERVE_PREFIX}*"):
        if not (folder / IN_USE).is_file():
            continue
        fd = claim(folder / IN_USE)
        if fd is not None:
            shutil.rmtree(folder, ignore_errors=True)
            os.close(fd)


def remove_after_exit(folder: Path, claim_fd: int | None) -> None:
    """Remove ``folder`` (a serve's temporary folder) from a detached process that holds its
    claim meanwhile, so that stopping does not wait while two catalogs' files are deleted.

    The claim file goes last: a removal cut short leaves a claimed-then-free folder, which the
    next serve removes (:func:`remove_abandoned_folders`).  Without ``fork`` (Windows) the
    folder is removed before this returns."""
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        shutil.rmtree(folder, ignore_errors=True)
        return
    pid = os.fork()
    if pid == 0:  # a child that starts the remover and ends, so that nobody waits for the remover
        try:
            if os.fork() == 0:
                os.setsid()  # out of the terminal's process group: a second Ctrl-C is not for it
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                _remove_claim_last(folder)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    if claim_fd is not None:
        os.close(claim_fd)  # the remover's copy keeps the claim until it is done


def _remove_claim_last(folder: Path) -> None:
    """Remove everything in ``folder`` but its claim file, then the claim file and the folder."""
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.name == IN_USE:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
    shutil.rmtree(folder, ignore_errors=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class DevServer:
    """Builds, serves and rebuilds one catalog. ``check()`` rebuilds when something changed.

    ``configure`` reads the configuration again (raising ConfigError or OSError when it cannot):
    called when a watched file that is no folder (the configuration file) changed, so each
    rebuild is the one ``skillsite build`` would make of the configuration as it is now;
    ``places`` gives the sources and the other folders to watch (the templates) of a
    configuration, which an edit of it may change.
    """

    def __init__(self, sources: Sequence[Path], config, host: str = "127.0.0.1", port: int = 0,
                 watch: Sequence[Path] = (), log: TextIO | None = None,
                 echo: Callable[[str], None] | None = None, configure: Callable[[], Any] | None = None,
                 config_paths: Sequence[Path] = (), show: Callable[[list[Diagnostic]], None] | None = None,
                 places: Callable[[Any], tuple[Sequence[Path], Sequence[Path]]] | None = None,
                 allowed_hosts: Sequence[str] = ()):
        self.sources = [Path(s) for s in sources]
        self.config = config
        self.configure = configure
        self.places = places
        self.config_paths = list(config_paths)  # where the configuration is, or would be found
        self.log = log or sys.stderr
        self.echo = echo or (lambda text: print(text, file=self.log, flush=True))
        # how a build's diagnostics are shown (the command summarises a long list, as build does)
        self.show = show or self._echo_each
        remove_abandoned_folders(Path(tempfile.gettempdir()))
        self.tmp = Path(tempfile.mkdtemp(prefix=SERVE_PREFIX))
        self.claim = claim(self.tmp / IN_USE)  # held (through the serving process too) until it ends
        self.out = self.tmp / "site"
        self.out.mkdir()
        self.state = ReloadState()
        self.watched = list(self.sources) + [Path(p) for p in watch]
        try:
            self.server = make_server(self.out, host, port, self.state, allowed_hosts)
        except OSError as exc:
            self.close_folder()
            raise CannotListen(exc.errno, exc.strerror or str(exc)) from exc
        self.thread = threading.Thread(target=self.server.serve_forever, name="skillsite-serve", daemon=True)
        self.server_pid = 0  # the serving process, once forked
        self.folders: EventWatcher | PollingWatcher | None = None  # the watched folders, once started
        self.others = PollingWatcher([])  # the watched files, and paths that are no folder now
        self.resident = Resident()  # what each build learned, for the next one
        self.untold = False  # a change may have gone unreported since the last build: it walks

    @property
    def url(self) -> str:
        """Where the catalog is served; an IPv6 address in brackets (``http://[::1]:8000/``)."""
        host, port = self.server.server_address[:2]
        return f"http://{address_text(host, port)}/"

    def start(self) -> bool:
        """Start serving, watch, then build (serving even if the build failed: fix and save to
        retry).  The serving process is forked first, while this one is small: forked after a
        build, it would share every page of what the build keeps for the next one, and each
        rebuild writing to those pages would copy them (slower saves, and that memory twice).
        From here on SIGTERM ends serving as Ctrl-C does (:meth:`run`)."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _interrupt)
        if hasattr(os, "fork"):
            self._fork_server()
        else:  # pragma: no cover - Windows: no fork, so builds use no worker processes to fork
            self.thread.start()
        self._watch()
        return self.rebuild()

    def _watch(self) -> None:
        """Watch the folders with file events where the system has them (one line says why not),
        files by polling: an editor that saves by renaming replaces the file an event watch follows."""
        folders = [p for p in self.watched if p.is_dir()]
        self.others = self._others()
        try:
            self.folders = EventWatcher(folders, [self.tmp], self.tmp / SYNC_FOLDER)
        except WatchUnavailable as exc:
            self._poll_instead(f"file events are unavailable: {exc}")

    def _others(self) -> PollingWatcher:
        """A watcher of the watched files and of what builds read outside the sources (see
        :mod:`skillsite.publish.serve_inputs`), by polling."""
        from skillsite.publish.serve_inputs import outside_inputs

        outside = outside_inputs(self.sources, getattr(self.config, "knowledge_dir", None), self.config_paths)
        return PollingWatcher(list(dict.fromkeys([p for p in self.watched if not p.is_dir()] + outside)))

    def _poll_instead(self, why: str) -> None:
        """Watch the folders by polling from now on, saying why."""
        self.echo(f"skillsite serve: {why}; checking every file for changes instead (polling)")
        self.folders = PollingWatcher([p for p in self.watched if p.is_dir()], [self.tmp])

    def _changed(self, wait: float | None) -> bool:
        """Whether a watched file changed: since the last look (``wait`` None), or within ``wait`` seconds."""
        try:
            changed = self.folders.look() if wait is None else self.folders.wait(wait)
        except WatchUnavailable as exc:
            self.folders.close()
            self._poll_instead(f"file events stopped: {exc}")
            self.untold = changed = True  # what changed meanwhile is unknown
        if self.others.look():
            # the configuration, the templates, git's refs, ignore rules, knowledge: the next build walks
            self.untold = changed = True
            self._configure()
            self.others = self._others()  # the knowledge folder may have moved with the configuration
        return changed

    def _configure(self) -> None:
        """Read the configuration again; a bad one is said, and the last good one kept."""
        from skillsite.config import ConfigError
        from skillsite.diagnostics import describe_os_error, format_text

        if self.configure is None:
            return
        try:
            self.config = self.configure()
            if self.places is not None:
                self._place(*self.places(self.config))
        except ConfigError as exc:
            for diag in exc.diagnostics:
                self.echo(format_text(diag))
            self.echo("skillsite serve: the configuration has errors; building with the last one read")
        except OSError as exc:
            self.echo(f"skillsite serve: cannot read the configuration ({describe_os_error(exc)}); "
                      "building with the last one read")

    def _place(self, sources: Sequence[Path], watch: Sequence[Path]) -> None:
        """Build ``sources`` and watch them and ``watch`` from now on, when the configuration moved
        them (its ``sources``, its ``templates``): the watcher is made again (what changed
        meanwhile is unknown to it, so the next build walks every source)."""
        watched = [*map(Path, sources), *map(Path, watch)]
        if watched == self.watched:
            return
        self.sources, self.watched = [Path(s) for s in sources], watched
        if self.folders is not None:
            self.folders.close()
        self._watch()
        self.echo(f"skillsite serve: watching {', '.join(str(s) for s in self.sources)} as the configuration says")

    def _fork_server(self) -> None:
        """Serve from a process of its own (see the module's docstring)."""
        parent = os.getpid()
        pid = os.fork()
        if pid:
            self.server_pid = pid
            return
        status = 0
        try:  # the serving process: Ctrl-C is the watcher's to handle; SIGTERM ends it
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            self.server.parent_pid = parent
            self.server.serve_forever(poll_interval=0.25)
        except BaseException:  # noqa: BLE001 - nothing to report to: the watcher carries on
            status = 1
        finally:
            os._exit(status)

    def _build(self, failed: str, progress: Callable[[str], None] | None = None,
               always_publish: bool = False) -> BuildResult | None:
        """Build into the served folder (``progress`` is told each stage; ``always_publish``: even
        with nothing changed); None when the build raised, which is reported after ``failed`` (a
        full disk, a folder that cannot be written, a bug): serve goes on."""
        from skillsite.diagnostics import describe_os_error
        from skillsite.publish.build import build
        from skillsite.publish.templates import TemplateProblem

        paths = self.folders.take_paths() if self.folders is not None else None
        self.resident.saw(None if self.untold else paths)
        self.untold = False
        try:
            with builds_end_on_signals(self._ended):
                return build(self.sources, self.out, self.config, keep_going=True, force=True,
                             cache_dir=self.tmp / "cache", resident=self.resident, publish_empty=True,
                             progress=progress, always_publish=always_publish)
        except OSError as exc:
            self.echo(f"skillsite serve: {failed}: {describe_os_error(exc)}")
        except TemplateProblem as exc:
            self.echo(f"skillsite serve: {failed}: {exc}")
        except Exception as exc:
            self.echo(f"skillsite serve: {failed}: {exc!r}")
        return None

    def _ended(self, signum: int) -> int:
        """Ctrl-C or SIGTERM in the middle of a build, once the build is ended (its workers, its
        staging folder): serving ends, exit status 0, as between builds.  Raised into the build
        instead, the interrupt was lost in a fork's callbacks, or left the worker pool waiting for
        a result a killed worker had half sent, for ever.  This runs in the signal handler, in the
        middle of any code: no fork (its callbacks take locks the build may hold) and no buffered
        write, so the folder is removed by ``rm`` spawned apart (else by the next serve)."""
        os.write(2, b"Stopping.\n")
        if self.folders is not None:
            self.folders.close()   # the file-event process (signals and waits without a lock held)
        self._stop_server()
        try:
            os.posix_spawnp("rm", ["rm", "-rf", "--", str(self.tmp)], os.environ, setsid=True)
        except (AttributeError, NotImplementedError, OSError):  # pragma: no cover - no posix_spawn, or no rm
            pass   # claimed by no process once this one ends: the next serve removes it
        return 0

    def _echo_each(self, diagnostics: list[Diagnostic]) -> None:
        """Every diagnostic, one line each."""
        for d in diagnostics:
            self.echo(format_text(d))

    def rebuild(self) -> bool:
        """Build into the served folder; pages reload only after a successful build: as soon as
        its catalog is in place (the build saves its cache and state after that), or once it is
        done when it had nothing to replace (nothing changed)."""
        started = time.perf_counter()
        in_place: list[str] = []

        def reload_when_in_place(stage: str) -> None:
            if stage == "save":
                self.state.bump()
                in_place.append(stage)

        result = self._build("build failed", reload_when_in_place)
        if result is None:
            return False
        self.show(result.diagnostics)
        if not result.ok:
            self.echo("skillsite serve: build failed; still serving the previous build")
            return False
        if not in_place:
            self.state.bump()
        self.echo(built_line(result, time.perf_counter() - started))
        return True

    def check(self) -> bool:
        """Rebuild if any watched file changed since the last look; True when it rebuilt."""
        return self._rebuild_if(self._changed(None))

    def _rebuild_if(self, changed: bool) -> bool:
        if changed:
            self.echo("Change detected; rebuilding…")
            self.rebuild()
        return changed

    def run(self, interval: float = 0.5) -> None:
        """Watch until interrupted (Ctrl-C or SIGTERM); the temporary folder is removed.

        A change is rebuilt as soon as it is reported (file events), or seen by the look every
        ``interval`` seconds (polling, and the watched files)."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _interrupt)
        try:
            self.prepare()
            while True:
                self._rebuild_if(self._changed(interval))
        except KeyboardInterrupt:
            self.echo("Stopping.")
        finally:
            self.stop(wait=False)

    def prepare(self) -> None:
        """Do, before the first change, what the first rebuild would otherwise do itself.  The
        cold build audited and published in worker processes, so this process has compiled no
        audit pattern yet (:func:`prepare_rebuilds`), and holds none of the rows a rebuild keeps
        for each unchanged skill (its publication taken from the cache, its row of the catalog-wide
        checks, its card): made at the first save, with the full garbage collection they bring on,
        they made it slower than the saves after it.  After a first build that worked
        and with no change reported since, the catalog is published once again with nothing
        changed: the same files, and pages are not reloaded.  A change reported first is rebuilt."""
        prepare_rebuilds()
        # a version is bumped only by a build that worked: before any change, by the first one
        if self.state.version and not self.check():
            self._build("could not prepare for the first change", always_publish=True)

    def stop(self, wait: bool = True) -> None:
        """Stop watching and serving; remove the temporary folder (``wait`` False: in a process
        that goes on after this one ends, see :func:`remove_after_exit`)."""
        if self.folders is not None:
            self.folders.close()
        self._stop_server()
        if wait:
            self.close_folder()
        else:
            remove_after_exit(self.tmp, self.claim)
            self.claim = None

    def _stop_server(self) -> None:
        """End the serving process (or thread) and close its socket."""
        if self.server_pid:
            try:
                os.kill(self.server_pid, signal.SIGTERM)
            except ProcessLookupError:  # pragma: no cover - already gone
                pass
            os.waitpid(self.server_pid, 0)
            self.server_pid = 0
        elif self.thread.is_alive():
            self.server.shutdown()
        self.server.server_close()

    def close_folder(self) -> None:
        """Remove the temporary folder and give up its claim."""
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.claim is not None:
            os.close(self.claim)
            self.claim = None
