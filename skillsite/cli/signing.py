"""Signed catalogs: ``skillsite keys`` and ``skillsite verify``."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from skillsite.arguments import LONGEST_WAIT, ExistingPath, Seconds
from skillsite.cli.output import fail
from skillsite.diagnostics import counted, describe_os_error, json_output, printable
from skillsite.exit_codes import EXIT_CATALOG, EXIT_ENVIRONMENT, EXIT_USAGE


@click.group()
def keys() -> None:
    """Make and show the Ed25519 keys that sign a catalog (`skillsite build --sign-key`)."""


@keys.command("new")
# readable=False: an existing OUT, readable or not, is refused for existing (a key is never replaced).
@click.option("--out", "out", type=click.Path(dir_okay=False, readable=False, path_type=Path), required=True,
              help="Where to write the private key (PEM, readable by you alone); an existing file is never replaced.")
def keys_new(out: Path) -> None:
    """Make a signing key; print its public key (ed25519:<base64>) as the last line."""
    from skillsite.publish.signing import SigningError, new_key_file

    try:
        public = new_key_file(out)
    except FileExistsError:
        fail(f"{out} exists; refusing to replace a key (choose another file)", EXIT_USAGE)
    except SigningError as exc:
        fail(str(exc), EXIT_USAGE)
    except OSError as exc:
        fail(describe_os_error(exc), EXIT_ENVIRONMENT)
    click.echo(f"Wrote the private key to {out} (mode 0600): keep it secret, e.g. as a CI secret for "
               "$SKILLSITE_SIGNING_KEY. Agents pin the public key:")
    click.echo(public.text)


@keys.command("public")
@click.argument("key_file", metavar="FILE", type=ExistingPath(dir_okay=False, path_type=Path))
def keys_public(key_file: Path) -> None:
    """Print the public key (ed25519:<base64>) of the private key in FILE."""
    from skillsite.publish.signing import SigningError, SigningKey

    try:
        click.echo(SigningKey.from_file(key_file).public.text)
    except SigningError as exc:
        fail(str(exc), EXIT_USAGE)


@click.command()
@click.argument("source", metavar="CATALOG")
@click.option("--trusted-key", "trusted_keys", multiple=True, metavar="KEY",
              help="The key the catalog must be signed by (repeatable) [default: $SKILLSITE_TRUSTED_KEYS; "
                   "else the key the catalog names, which proves it consistent, not authentic].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--timeout", type=Seconds(min=0.1, max=LONGEST_WAIT), default=10.0, show_default=True,
              help="Seconds allowed for each request.")
def verify(source: str, trusted_keys: tuple[str, ...], as_json: bool, timeout: float) -> None:
    """Check a signed catalog (a site folder or its URL) whole: its signed metadata, then every
    file and release against the digests that pin them. Exit 0 when all hold, 1 otherwise."""
    import tempfile

    from skillsite.agent.trust_keys import keys_from_environment, read_keys
    from skillsite.agent.verify import check_files, named_keys, refused
    from skillsite.loader import Catalog, LoaderError

    try:
        keys = read_keys(trusted_keys) if trusted_keys else keys_from_environment()
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--trusted-key") from None
    with tempfile.TemporaryDirectory(prefix="skillsite-verify-") as cache:  # never the user's trust records
        try:
            if not keys:
                unchecked = Catalog.open(source, cache_dir=cache, timeout=timeout, trusted_keys=())
                keys = named_keys(unchecked.manifest, unchecked.location)
            catalog = Catalog.open(source, cache_dir=cache, timeout=timeout, max_risk="high",
                                   trusted_keys=[k.text for k in keys])
            report = check_files(catalog, _site_folder(source))
        except (LoaderError, ValueError) as exc:
            report = refused(str(source), exc)
    if as_json:
        click.echo(json_output(report.to_json(), indent=1))
    else:
        for line in verify_lines(report):
            click.echo(printable(line))
    sys.exit(0 if report.ok else EXIT_CATALOG)


def _site_folder(source: str) -> Path | None:
    """The site folder ``source`` names (the folder, or its skills.json), else None (a URL)."""
    if "://" in source:
        return None
    path = Path(source)
    return path if path.is_dir() else path.parent if path.is_file() else None


def verify_lines(report) -> list[str]:
    """``skillsite verify``'s report for people."""
    lines = [f"catalog: {report.catalog}"]
    if report.signed is not None:
        signed = report.signed
        lines += [f"key: {', '.join(k.text for k in signed.keys)}", f"version: {signed.version}",
                  f"expires: {signed.expires.isoformat().replace('+00:00', 'Z')}",
                  f"root version: {signed.root_version}"]
    lines += [f"FAILED {path}: {reason}" for path, reason in report.failures]
    lines.append(f"{counted(report.checked, 'file')} checked: " + ("all hold" if report.ok else
                                                                  f"{counted(len(report.failures), 'failure')}"))
    return lines
