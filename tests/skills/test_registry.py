from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentchat.protocol.errors import Invalid, NotFound
from agentchat.skills.service import SkillRegistry
from tests.skills.conftest import VALID, write_skill

SECRET = "OUTSIDE-SECRET-CONTENT"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A skill-shaped folder outside the skills directory that nothing may read."""
    folder = tmp_path / "outside"
    write_skill(tmp_path, "outside", f"---\nname: stolen\ndescription: x\n---\n{SECRET}\n")
    return folder


def test_lists_skill_folders_sorted_with_front_matter(skills_dir: Path) -> None:
    write_skill(skills_dir, "zeta", VALID.format(name="zeta"))
    write_skill(skills_dir, "alpha", VALID.format(name="Alpha skill"))

    skills = SkillRegistry(skills_dir).skills()

    assert [(s.folder_name, s.name, s.description, s.error) for s in skills] == [
        ("alpha", "Alpha skill", "Does Alpha skill things", None),
        ("zeta", "zeta", "Does zeta things", None),
    ]


def test_get_returns_the_full_text(skills_dir: Path) -> None:
    text = VALID.format(name="alpha")
    write_skill(skills_dir, "alpha", text)

    assert SkillRegistry(skills_dir).get("alpha").content == text


def test_ignores_what_is_not_a_skill_folder(skills_dir: Path, outside: Path) -> None:
    (skills_dir / "empty-folder").mkdir()
    (skills_dir / "loose-file.md").write_text(VALID.format(name="loose"))
    write_skill(skills_dir, ".hidden", VALID.format(name="hidden"))
    (skills_dir / "linked").symlink_to(outside, target_is_directory=True)
    (skills_dir / ".agentchat-samples").write_text("readme-gen\n")

    assert SkillRegistry(skills_dir).skills() == []


def test_missing_skills_dir_lists_nothing(tmp_path: Path) -> None:
    assert SkillRegistry(tmp_path / "nope").skills() == []
    with pytest.raises(NotFound):
        SkillRegistry(tmp_path / "nope").get("anything")


@pytest.mark.parametrize(
    "name", ["..", ".", "../outside", "a/b", "a\\b", "/etc/passwd", "a\x00b", "", "x..y", ".hidden"]
)
def test_invalid_folder_names_are_rejected(skills_dir: Path, outside: Path, name: str) -> None:
    with pytest.raises(Invalid):
        SkillRegistry(skills_dir).get(name)


def test_symlinked_folder_is_not_followed(skills_dir: Path, outside: Path) -> None:
    (skills_dir / "linked").symlink_to(outside, target_is_directory=True)
    with pytest.raises(NotFound):
        SkillRegistry(skills_dir).get("linked")


def test_symlinked_skill_file_is_not_read(skills_dir: Path, outside: Path) -> None:
    (skills_dir / "sneaky").mkdir()
    (skills_dir / "sneaky" / "SKILL.md").symlink_to(outside / "SKILL.md")

    skill = SkillRegistry(skills_dir).get("sneaky")

    assert skill.error is not None and "cannot be read" in skill.error
    assert skill.content == ""
    assert SECRET not in repr(skill)


def test_folder_swapped_for_a_link_after_listing_is_not_followed(
    skills_dir: Path, outside: Path
) -> None:
    write_skill(skills_dir, "swap", VALID.format(name="swap"))
    registry = SkillRegistry(skills_dir)
    assert registry.folder_names() == ["swap"]
    os.rename(skills_dir / "swap", skills_dir / "old")
    (skills_dir / "swap").symlink_to(outside, target_is_directory=True)

    skill = registry._load("swap", skills_dir)

    assert skill.error is not None
    assert SECRET not in skill.content


def test_unknown_folder_is_not_found(skills_dir: Path) -> None:
    write_skill(skills_dir, "alpha", VALID.format(name="alpha"))
    with pytest.raises(NotFound):
        SkillRegistry(skills_dir).get("beta")


MALFORMED = {
    "no-front-matter": ("# Just a heading\n", "must start with YAML front matter"),
    "unclosed": ("---\nname: x\ndescription: y\n# body\n", "no closing '---'"),
    "bad-yaml": ("---\nname: [unclosed\ndescription: y\n---\n", "not valid YAML"),
    "yaml-list": ("---\n- a\n- b\n---\n", "must be a YAML mapping"),
    "no-description": ("---\nname: x\n---\nbody\n", "non-empty 'description'"),
    "number-name": ("---\nname: 42\ndescription: y\n---\n", "non-empty 'name'"),
    "long-name": (f"---\nname: {'n' * 65}\ndescription: y\n---\n", "longer than 64"),
    "empty": ("", "must start with YAML front matter"),
    "latin1": ("---\nname: caf\xe9\ndescription: y\n---\n".encode("latin-1"), "not UTF-8"),
    "huge": ("---\nname: x\ndescription: y\n---\n" + "a" * 300_000, "larger than 256 KiB"),
}


def test_malformed_skills_are_listed_with_their_error(skills_dir: Path) -> None:
    for folder, (text, _) in MALFORMED.items():
        write_skill(skills_dir, folder, text)
    write_skill(skills_dir, "good", VALID.format(name="good"))

    skills = {s.folder_name: s for s in SkillRegistry(skills_dir).skills()}

    assert skills["good"].error is None
    for folder, (_, expected) in MALFORMED.items():
        error = skills[folder].error
        assert error is not None and expected in error, (folder, error)
        assert skills[folder].name == folder


def test_bom_and_crlf_are_accepted(skills_dir: Path) -> None:
    text = "\ufeff---\r\nname: win\r\ndescription: saved on Windows\r\n---\r\nbody\r\n"
    write_skill(skills_dir, "win", text.encode("utf-8"))

    skill = SkillRegistry(skills_dir).get("win")

    assert (skill.name, skill.description, skill.error) == ("win", "saved on Windows", None)


def test_skills_path_that_is_a_file_lists_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert SkillRegistry(tmp_path / "file").skills() == []
