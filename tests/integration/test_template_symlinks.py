"""A site's own templates folder (``templates:`` in skillsite.yml, which a pull request can change)
is read only where it is a regular file inside that folder: a symlink leading out of it (to
``/proc/self/environ``, to a private key) or a named pipe is refused by name, exit 2, nothing
published; a symlink to another file of the folder still works."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import write_skill


def build(project: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "skillsite", "build", "skills", "-o", "_site", "-q"], cwd=project,
                          capture_output=True, text=True, timeout=120, env={**os.environ, **env})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "repo"
    write_skill(project / "skills", "hello", "name: hello\ndescription: Say hello to the user. Use when greeting.\n")
    (project / "tpl" / "static").mkdir(parents=True)
    (project / "skillsite.yml").write_text("templates: tpl\n")
    return project


def refused(done: subprocess.CompletedProcess[str], project: Path, said: str) -> None:
    assert done.returncode == 2 and done.stderr.startswith(f"skillsite: {said}"), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (project / "_site").exists()


def test_an_include_of_a_link_to_the_process_environment_is_refused(project: Path) -> None:
    """robots.txt held the whole environment of the build (a CI token with it)."""
    (project / "tpl" / "env.txt").symlink_to("/proc/self/environ")
    (project / "tpl" / "robots.txt").write_text('{% include "env.txt" %}\n')
    done = build(project, MY_CI_TOKEN="hunter2")
    refused(done, project, "template tpl/env.txt: symlink leads outside the templates folder tpl")
    assert "hunter2" not in done.stdout + done.stderr


def test_a_static_file_linked_to_a_key_outside_is_refused(project: Path, tmp_path: Path) -> None:
    """The key was published as assets/app.<hash>.css."""
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text("SECRET-KEY\n")
    (project / "tpl" / "static" / "app.css").symlink_to(key)
    refused(build(project), project, "template tpl/static/app.css: symlink leads outside the templates folder tpl")


def test_a_link_to_a_folder_outside_is_refused(project: Path, tmp_path: Path) -> None:
    """A linked folder would let ``{% include "etc/passwd" %}`` read below it."""
    (project / "tpl" / "etc").symlink_to(tmp_path / "home", target_is_directory=True)
    (tmp_path / "home").mkdir()
    refused(build(project), project, "template tpl/etc: symlink leads outside the templates folder tpl")


def test_a_named_pipe_is_refused_instead_of_hanging_the_build(project: Path) -> None:
    os.mkfifo(project / "tpl" / "static" / "app.css")
    refused(build(project), project, "template tpl/static/app.css: a named pipe (FIFO), not a regular file; not read")


def test_a_folder_of_proc_is_refused_by_name(project: Path) -> None:
    """It was "Invalid argument (EINVAL)", no file named."""
    (project / "skillsite.yml").write_text("templates: /proc/self/task\n")
    refused(build(project), project, "templates folder /proc/self/task: on a pseudo file system")


def test_links_inside_the_templates_folder_still_work(project: Path) -> None:
    (project / "tpl" / "parts").mkdir()
    (project / "tpl" / "parts" / "robots.txt").write_text("User-agent: *\nDisallow: /private/\n")
    (project / "tpl" / "robots.txt").symlink_to("parts/robots.txt")
    (project / "tpl" / "shared").symlink_to("parts", target_is_directory=True)
    (project / "tpl" / "404.html").write_text('{% include "shared/robots.txt" %}')
    (project / "tpl" / "static" / "mine.css").write_text("body { color: red }\n")
    (project / "tpl" / "static" / "app.css").symlink_to("mine.css")
    done = build(project)
    assert done.returncode == 0, done.stderr
    site = project / "_site"
    assert (site / "robots.txt").read_text() == "User-agent: *\nDisallow: /private/\n"
    assert (site / "404.html").read_text() == "User-agent: *\nDisallow: /private/\n"
    assert [p.read_text() for p in (site / "assets").glob("app.*.css")] == ["body { color: red }\n"]
