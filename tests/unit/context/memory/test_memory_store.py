"""Listing, reading, writing and deleting memory files, and keeping all of it inside the roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.context.memory.secrets import SecretsInTeamMemoryError
from app.context.memory.paths import MemoryScope, MemoryType
from app.context.memory.paths import TeamMemoryRootSecurityError
from app.context.memory.paths import MAX_MEMORY_FILE_BYTES
from app.context.memory.paths import file_name_problem, slugify
from app.context.memory.store import MemoryPathError, MemoryStore, MemoryStoreError
from tests.unit.memory_support import make_paths, memory_text, piece, put


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(make_paths(tmp_path))


def test_write_then_list_and_read(store: MemoryStore) -> None:
    path = store.write("project", "feedback", name="Testing Policy", description="Never mock the DB", body="Use a real database.")
    assert path == store.paths.project_root / "feedback" / "testing-policy.md"
    [entry] = store.list(MemoryScope.PROJECT)
    assert (entry.scope, entry.rel_path, entry.type, entry.title, entry.description, entry.body) == (
        MemoryScope.PROJECT, "feedback/testing-policy.md", MemoryType.FEEDBACK, "Testing Policy", "Never mock the DB", "Use a real database.",
    )
    assert entry.problems == () and entry.usable
    assert entry.mtime == pytest.approx(path.stat().st_mtime)
    assert store.read(path) == entry
    assert oct(store.paths.project_root.stat().st_mode & 0o777) == "0o700"


def test_write_replaces_a_memory_of_the_same_name(store: MemoryStore) -> None:
    store.write("user", "user", name="Role", description="v1", body="a")
    store.write("user", "user", name="Role", description="v2", body="b")
    [entry] = store.list("user")
    assert entry.description == "v2"


def test_list_scopes_keeps_project_before_user(store: MemoryStore) -> None:
    store.write("user", "user", name="A", description="", body="")
    store.write("project", "project", name="B", description="", body="")
    assert [e.scope for e in store.list_scopes()] == [MemoryScope.PROJECT, MemoryScope.USER]


def test_slugs() -> None:
    assert slugify("Testing Policy!") == "testing-policy"
    assert slugify("Café  déjà-vu") == "cafe-deja-vu"
    assert slugify("测试 policy") != slugify("部署 policy")  # dropped characters leave a hash behind
    assert slugify("测试").startswith("memory-")
    assert len(slugify("x" * 500)) <= 48
    assert slugify("a/../../b") == "a-b"


@pytest.mark.parametrize("name", ["", ".", "..", "a/b.md", "a\\b.md", "a\nb.md", ".hidden.md", "notes.txt"])
def test_bad_file_names_are_refused(store: MemoryStore, name: str) -> None:
    assert file_name_problem(name) is not None
    with pytest.raises(MemoryPathError):
        store.write("project", "user", name="x", description="", body="", file_name=name)


def test_writes_outside_the_roots_are_refused(store: MemoryStore, tmp_path: Path) -> None:
    for target in [tmp_path / "x.md", store.paths.project_root / ".." / "x.md", store.paths.project_root]:
        with pytest.raises(MemoryPathError):
            store.write_text(target, "text")
    assert not (tmp_path / "x.md").exists()


def test_symlinked_type_directory_leading_out_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    store.paths.project_root.mkdir(parents=True)
    (store.paths.project_root / "feedback").symlink_to(outside)
    with pytest.raises(MemoryPathError, match="outside the project memory directory"):
        store.write("project", "feedback", name="Escape", description="", body="")
    assert list(outside.iterdir()) == []


def test_dangling_symlink_leading_out_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    (store.paths.user_root / "user").mkdir(parents=True)
    link = store.paths.user_root / "user" / "role.md"
    link.symlink_to(tmp_path / "planted.md")  # does not exist yet
    with pytest.raises(MemoryPathError):
        store.write_text(link, memory_text("Role", "", "user"))
    assert not (tmp_path / "planted.md").exists()


def test_symlink_staying_inside_is_allowed_and_replaced_not_followed(store: MemoryStore) -> None:
    real = put(store.paths.project_root, "project/real.md", memory_text("Real", "", "project"))
    link = store.paths.project_root / "project" / "alias.md"
    link.symlink_to(real)
    store.write_text(link, memory_text("Alias", "", "project"))
    assert not link.is_symlink()
    assert "Real" in real.read_text()


def test_the_index_and_non_markdown_are_not_writable(store: MemoryStore) -> None:
    with pytest.raises(MemoryPathError, match="index"):
        store.write_text(store.paths.index_file("project"), "x")
    with pytest.raises(MemoryPathError, match="Markdown"):
        store.write_text(store.paths.project_root / "user" / "a.txt", "x")


def test_team_write_with_a_secret_is_refused(store: MemoryStore) -> None:
    token = "ghp_" + piece("abcdefghijklmnopqrstuvwxyzABCDEF0123456789", 36)
    with pytest.raises(SecretsInTeamMemoryError) as caught:
        store.write("team", "reference", name="CI", description="CI access", body=f"token: {token}")
    assert "GitHub PAT" in str(caught.value)
    assert token not in str(caught.value)
    assert not (store.paths.team_root / "reference" / "ci.md").exists()


def test_team_write_without_secrets(store: MemoryStore) -> None:
    path = store.write("team", "reference", name="CI", description="Where CI runs", body="Jenkins at ci.example.com")
    assert path.read_text().startswith("---\nname: CI\n")


def test_team_write_into_a_symlinked_root_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    (store.paths.workspace_root / ".qwen").mkdir()
    (tmp_path / "shared").mkdir()
    store.paths.team_root.symlink_to(tmp_path / "shared")
    with pytest.raises((TeamMemoryRootSecurityError, MemoryPathError)):
        store.write("team", "project", name="X", description="", body="")
    assert list((tmp_path / "shared").iterdir()) == []


def test_delete(store: MemoryStore) -> None:
    path = store.write("project", "project", name="Gone", description="", body="")
    store.delete(path)
    assert not path.exists()
    with pytest.raises(MemoryStoreError):
        store.delete(path)


def test_delete_refuses_outside_paths_the_index_and_directories(store: MemoryStore, tmp_path: Path) -> None:
    victim = tmp_path / "victim.md"
    victim.write_text("keep")
    with pytest.raises(MemoryPathError):
        store.delete(victim)
    with pytest.raises(MemoryPathError):
        store.delete(store.paths.project_root / ".." / ".." / ".." / ".." / "victim.md")
    put(store.paths.project_root, "MEMORY.md", "")
    with pytest.raises(MemoryPathError):
        store.delete(store.paths.index_file("project"))
    (store.paths.project_root / "user").mkdir()
    with pytest.raises(MemoryPathError):
        store.delete(store.paths.project_root / "user")
    assert victim.exists()


def test_delete_through_a_symlinked_directory_is_refused(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.md").write_text("keep")
    store.paths.project_root.mkdir(parents=True)
    (store.paths.project_root / "project").symlink_to(outside)
    with pytest.raises(MemoryPathError):
        store.delete(store.paths.project_root / "project" / "precious.md")
    assert (outside / "precious.md").exists()


def test_deleting_a_symlink_removes_the_link_only(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "precious.md"
    outside.write_text("keep")
    (store.paths.project_root / "user").mkdir(parents=True)
    link = store.paths.project_root / "user" / "link.md"
    link.symlink_to(outside)
    store.delete(link)
    assert not os.path.lexists(link) and outside.read_text() == "keep"


def test_read_refuses_outside_and_missing(store: MemoryStore, tmp_path: Path) -> None:
    with pytest.raises(MemoryPathError):
        store.read(tmp_path / "x.md")
    with pytest.raises(MemoryStoreError):
        store.read(store.paths.project_root / "user" / "missing.md")


# Bad inputs: listed with problems, never raised.


def _listed(store: MemoryStore, rel: str) -> object:
    return next(e for e in store.list("project") if e.rel_path == rel)


def test_bad_inputs_are_entries_with_problems(store: MemoryStore, tmp_path: Path) -> None:
    root = store.paths.project_root
    put(root, "user/not-yaml.md", "---\nname: [unclosed\ntype: user\n---\nbody")
    put(root, "user/no-type.md", "---\nname: A\n---\nbody")
    put(root, "user/bad-type.md", "---\nname: A\ntype: diary\n---\nbody")
    put(root, "user/empty.md", "")
    put(root, "feedback/wrong-dir.md", memory_text("W", "", "user"))
    (root / "user" / "latin1.md").write_bytes(b"---\nname: caf\xe9\ntype: user\n---\n")
    entries = {e.rel_path: e for e in store.list("project")}
    assert entries["user/not-yaml.md"].usable  # read line by line
    assert "not valid YAML" in entries["user/not-yaml.md"].problems[0]
    assert not entries["user/no-type.md"].usable
    assert not entries["user/bad-type.md"].usable
    assert entries["user/empty.md"].problems == ("the file is empty",)
    assert entries["feedback/wrong-dir.md"].problems == ("the file is in feedback/ but its type is user",)
    assert entries["user/latin1.md"].usable and "not valid UTF-8" in entries["user/latin1.md"].problems[0]


def test_a_ten_megabyte_file_is_read_only_up_to_the_cap(store: MemoryStore) -> None:
    root = store.paths.project_root
    big = memory_text("Big", "huge", "project", "x") + ("é" * 5_000_000)
    path = put(root, "project/big.md", big)
    assert path.stat().st_size > 10_000_000
    entry = _listed(store, "project/big.md")
    assert entry.usable and entry.size == path.stat().st_size
    assert len(entry.body.encode("utf-8")) < MAX_MEMORY_FILE_BYTES
    assert "only the first" in entry.problems[0]
    assert "\ufffd" not in entry.body  # the character cut at the cap is dropped, not garbled


def test_odd_file_names_are_listed(store: MemoryStore) -> None:
    root = store.paths.project_root
    put(root, "project/line\nbreak.md", memory_text("Newline", "", "project"))
    put(root, "project/[brackets] (parens).md", memory_text("Brackets", "", "project"))
    entries = {e.rel_path: e for e in store.list("project")}
    assert entries["project/line\nbreak.md"].usable
    assert "control characters" in entries["project/line\nbreak.md"].problems[0]
    assert entries["project/[brackets] (parens).md"].problems == ()


def test_listing_skips_the_index_hidden_files_and_other_extensions(store: MemoryStore) -> None:
    root = store.paths.project_root
    put(root, "MEMORY.md", "- [x](user/x.md) — y")
    put(root, "user/.x.md.123.tmp", "partial")
    put(root, "user/.hidden.md", memory_text("H", "", "user"))
    put(root, "user/notes.txt", "text")
    put(root, "user/kept.md", memory_text("K", "", "user"))
    put(root, "pinned/always.md", memory_text("Pinned", "", "feedback"))
    entries = store.list("project")
    assert [e.rel_path for e in entries] == ["pinned/always.md", "user/kept.md"]
    assert entries[0].pinned and not entries[1].pinned


def test_a_symlinked_file_leading_out_is_not_read(store: MemoryStore, tmp_path: Path) -> None:
    secret = tmp_path / "private.md"
    secret.write_text(memory_text("Private", "do not read", "user"))
    (store.paths.project_root / "user").mkdir(parents=True)
    (store.paths.project_root / "user" / "peek.md").symlink_to(secret)
    (store.paths.project_root / "user" / "dangling.md").symlink_to(tmp_path / "missing.md")
    entries = {e.rel_path: e for e in store.list("project")}
    assert not entries["user/peek.md"].usable and entries["user/peek.md"].description == ""
    assert "outside the memory directory" in entries["user/peek.md"].problems[0]
    assert not entries["user/dangling.md"].usable


def test_a_symlinked_directory_is_not_walked(store: MemoryStore, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    put(outside, "x.md", memory_text("X", "", "user"))
    store.paths.project_root.mkdir(parents=True)
    (store.paths.project_root / "user").symlink_to(outside)
    assert store.list("project") == []


def test_missing_roots_list_as_empty(store: MemoryStore) -> None:
    assert store.list("project") == [] and store.list("team") == []
