"""A past release's symlinks, followed in the commit's tree as realpath follows them in the work
tree (the build's own cases are in tests/integration/test_release_links.py): absolute links, long
chains and links that multiply a folder's files."""
from __future__ import annotations

from skillsite.source.git_history import SYMLINK_MODE, TreeFile
from skillsite.source.release_links import MAX_LINK_HOPS, followed_links


def listing(files: dict[str, str], links: dict[str, str]) -> tuple[list[TreeFile], dict[str, bytes]]:
    """A tree listing of ``files`` (path -> blob) and ``links`` (path -> target), and the blobs'
    contents a reader would give (a link's blob holds its target)."""
    listed = [TreeFile(path, "100644", "blob", blob, 1) for path, blob in files.items()]
    listed += [TreeFile(path, SYMLINK_MODE, "blob", f"link:{path}", len(target)) for path, target in links.items()]
    return listed, {f"link:{path}": target.encode() for path, target in links.items()}


def followed(files: dict[str, str], links: dict[str, str], most: int = 1000) -> dict[str, str]:
    listed, blobs = listing(files, links)
    return {f.path: f.blob for f in followed_links(listed, "s/a", lambda blob, limit: blobs.get(blob), most)}


def test_an_absolute_or_empty_link_is_left_out() -> None:
    assert followed({"s/a/SKILL.md": "m"}, {"s/a/abs.md": "/s/a/SKILL.md", "s/a/empty.md": ""}) == {"s/a/SKILL.md": "m"}


def test_a_chain_of_links_is_followed_up_to_the_systems_limit() -> None:
    def chain(length: int) -> dict[str, str]:
        return {f"s/a/l{n}": f"l{n + 1}" for n in range(length - 1)} | {f"s/a/l{length - 1}": "SKILL.md"}

    reached = followed({"s/a/SKILL.md": "m"}, chain(MAX_LINK_HOPS))
    assert reached["s/a/l0"] == "m" and len(reached) == MAX_LINK_HOPS + 1
    assert "s/a/l0" not in followed({"s/a/SKILL.md": "m"}, chain(MAX_LINK_HOPS + 1))


def test_links_that_multiply_a_folders_files_stop_at_the_most_given() -> None:
    """Ten folders, each with ten links to the next: 10**9 paths in the work tree's walk."""
    files = {"s/a/SKILL.md": "m"} | {f"s/a/d{n}/f.md": f"b{n}" for n in range(10)}
    links = {f"s/a/d{n}/to{k}": f"../d{n + 1}" for n in range(9) for k in range(10)}
    reached = followed(files, links, most=5000)
    assert len(reached) == 5000 and reached["s/a/d0/to0/to0/f.md"] == "b2" and reached["s/a/d9/f.md"] == "b9"
