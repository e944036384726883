"""The exceptions and warnings of :mod:`skillsite.loader`."""
from __future__ import annotations

from typing import TYPE_CHECKING

from skillsite.agent.catalog_format import FORMAT_VERSION

if TYPE_CHECKING:
    from skillsite.agent.results import ToolCheck


class LoaderError(Exception):
    """Base class of every error skillsite.loader raises."""


class FetchError(LoaderError):
    """The catalog or a file could not be fetched (network failure, timeout, refused URL).

    ``transient`` is true for failures worth retrying later (connection, timeout, HTTP
    5xx/408/429); only those fall back to a cached catalog.
    """

    def __init__(self, message: str, url: str = "", *, transient: bool = False) -> None:
        super().__init__(message)
        self.url = url
        self.transient = transient


class HTTPStatusError(FetchError):
    """The server answered with an HTTP error status."""

    def __init__(self, url: str, status: int, reason: str = "") -> None:
        text = f"HTTP {status}{' ' + reason if reason else ''} from {url}"
        super().__init__(text, url, transient=status >= 500 or status in (408, 429))
        self.status = status


class RedirectError(FetchError):
    """A redirect left ``allowed_hosts``, changed scheme to non-http(s), or downgraded https."""


class TooLargeError(FetchError):
    """A response was larger than ``max_bytes``."""


class CatalogFormatError(LoaderError):
    """The manifest is not a usable skillsite catalog (invalid JSON, wrong format, bad entries)."""


class UnsupportedVersionError(CatalogFormatError):
    """The catalog's ``format_version`` is newer than this loader understands."""

    def __init__(self, version: int, where: str) -> None:
        super().__init__(f"{where} has format_version {version}, but this loader supports format_version "
                         f"{FORMAT_VERSION} at most; upgrade skillsite")
        self.version = version
        self.supported = FORMAT_VERSION


class IntegrityError(LoaderError):
    """Content does not match the digest the manifest records; it is never returned."""

    def __init__(self, message: str, expected: str = "", actual: str = "") -> None:
        super().__init__(message)
        self.expected = expected
        self.actual = actual


class TrustError(IntegrityError):
    """A signed catalog cannot be trusted: no signature where one is required, a bad or unknown
    signature, expired metadata, a version older than one already accepted (rollback), a file the
    signed metadata does not pin, or a key change without a rotation.  Nothing it holds is used."""

    def __init__(self, message: str, catalog: str = "", *, key_change: bool = False) -> None:
        super().__init__(f"{catalog}: {message}" if catalog else message)
        self.catalog = catalog
        self.reason = message
        #: whether the catalog is signed by a key other than the one trusted, so that trusting its
        #: key anew could be the way out: never for a rollback, a file the metadata does not pin
        #: (a build published while it was read gives that too) or expired metadata
        self.key_change = key_change


#: The risk of a release no audit rated: above every ``max_risk`` but ``high``.
UNAUDITED = "unaudited"


class RiskError(LoaderError):
    """The audit rated a skill above the catalog's ``max_risk``: it is not loaded, installed or offered."""

    def __init__(self, skill_id: str, risk: str, max_risk: str) -> None:
        rated = f"is rated {risk} risk by the catalog's audit" if risk != UNAUDITED else \
            "was never audited (its catalog was built before releases were)"
        super().__init__(f"skill {skill_id} {rated}, above max_risk={max_risk!r}; open the catalog with "
                         f"max_risk={risk if risk != UNAUDITED else 'high'!r} to use it anyway")
        self.skill_id, self.risk, self.max_risk = skill_id, risk, max_risk


class NotFoundError(LoaderError, LookupError):
    """No such skill (by id or name), or no such bundled file in a skill."""


class DependencyError(LoaderError):
    """No version of a skill satisfies every range asking for it (or a dependency is missing,
    or the dependencies form a cycle); the message names each range and who asked for it."""

    def __init__(self, message: str, skill_id: str = "", asks: tuple[tuple[str, str], ...] = ()) -> None:
        super().__init__(message)
        self.skill_id = skill_id
        self.asks = asks            # (who asked, range) pairs


class LockFileError(LoaderError):
    """A lock file that cannot be read or written: the message names the file and why."""


class UnsafePathError(LoaderError, ValueError):
    """A path would escape its skill folder, the site, or the install destination."""


class DestinationExistsError(LoaderError, FileExistsError):
    """``install`` would overwrite an existing folder and ``overwrite`` was not given."""


class InstallError(LoaderError, OSError):
    """``install`` could not write its destination (no space, a read-only or forbidden folder, a
    name too long); ``filename`` names the path, ``strerror`` the cause.  Nothing is left behind."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


class MissingToolsError(LoaderError):
    """``check_tools(mode="strict")``: a skill needs tools the runtime does not have."""

    def __init__(self, message: str, check: ToolCheck) -> None:
        super().__init__(message)
        self.check = check


class LoaderWarning(UserWarning):
    """Base class of the warnings skillsite.loader issues."""


class StaleCatalogWarning(LoaderWarning):
    """The catalog could not be fetched; a cached copy is used instead."""


class MissingToolsWarning(LoaderWarning):
    """``check_tools(mode="warn")``: a skill needs tools the runtime does not have."""
