from __future__ import annotations

from pathlib import Path

from agentchat.skills.service import SAMPLES_DIR, SkillRegistry, install_samples

SAMPLES = ["code-review", "meeting-notes", "readme-gen"]


def test_shipped_samples_are_valid_skills() -> None:
    skills = SkillRegistry(SAMPLES_DIR).skills()

    assert [s.folder_name for s in skills] == SAMPLES
    for skill in skills:
        assert skill.error is None
        assert skill.name == skill.folder_name
        assert 20 < len(skill.description) <= 1024
        assert len(skill.content) > 500


def test_install_copies_missing_samples_into_a_new_dir(tmp_path: Path) -> None:
    root = tmp_path / "skills"

    assert install_samples(root) == SAMPLES
    assert [s.folder_name for s in SkillRegistry(root).skills()] == SAMPLES
    assert install_samples(root) == []


def test_install_keeps_user_edits(tmp_path: Path) -> None:
    install_samples(tmp_path)
    edited = tmp_path / "readme-gen" / "SKILL.md"
    edited.write_text("---\nname: readme-gen\ndescription: mine\n---\nmy version\n")

    install_samples(tmp_path)

    assert edited.read_text().endswith("my version\n")


def test_install_does_not_overwrite_a_user_folder_of_the_same_name(tmp_path: Path) -> None:
    (tmp_path / "code-review").mkdir()
    (tmp_path / "code-review" / "notes.txt").write_text("mine")

    assert install_samples(tmp_path) == ["meeting-notes", "readme-gen"]
    assert not (tmp_path / "code-review" / "SKILL.md").exists()


def test_deleted_sample_is_not_reinstalled(tmp_path: Path) -> None:
    install_samples(tmp_path)
    (tmp_path / "meeting-notes" / "SKILL.md").unlink()
    (tmp_path / "meeting-notes").rmdir()

    assert install_samples(tmp_path) == []
    assert not (tmp_path / "meeting-notes").exists()
