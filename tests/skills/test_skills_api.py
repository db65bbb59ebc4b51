from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from tests.skills.conftest import VALID, write_skill

SECRET = "OUTSIDE-SECRET-CONTENT"


@pytest.fixture
def outside(skills_dir: Path) -> Path:
    """A skill-shaped folder next to the skills directory, and a loose file above it."""
    parent = skills_dir.parent
    write_skill(parent, "outside", f"---\nname: stolen\ndescription: x\n---\n{SECRET}\n")
    (parent / "SKILL.md").write_text(f"---\nname: up\ndescription: x\n---\n{SECRET}\n")
    return parent / "outside"


async def test_list_skills(client: httpx.AsyncClient, skills_dir: Path) -> None:
    write_skill(skills_dir, "readme-gen", VALID.format(name="readme-gen"))
    write_skill(skills_dir, "broken", "no front matter")

    response = await client.get("/api/skills")

    assert response.status_code == 200
    assert response.json() == [
        {
            "folderName": "broken",
            "name": "broken",
            "description": "",
            "error": "SKILL.md must start with YAML front matter between '---' lines",
            "agentMade": False,
        },
        {
            "folderName": "readme-gen",
            "name": "readme-gen",
            "description": "Does readme-gen things",
            "agentMade": False,
        },
    ]


async def test_list_without_skills_dir_is_empty(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/skills")
    assert (response.status_code, response.json()) == (200, [])


async def test_get_skill_with_content(client: httpx.AsyncClient, skills_dir: Path) -> None:
    text = VALID.format(name="readme-gen")
    write_skill(skills_dir, "readme-gen", text)

    response = await client.get("/api/skills/readme-gen")

    assert response.status_code == 200
    assert response.json() == {
        "folderName": "readme-gen",
        "name": "readme-gen",
        "description": "Does readme-gen things",
        "content": text,
        "agentMade": False,
    }


async def test_get_broken_skill_reports_its_error(
    client: httpx.AsyncClient, skills_dir: Path
) -> None:
    write_skill(skills_dir, "broken", "---\nname: [\n---\n")

    response = await client.get("/api/skills/broken")

    assert response.status_code == 200
    assert "not valid YAML" in response.json()["error"]
    assert response.json()["content"] == "---\nname: [\n---\n"


async def test_unknown_skill_is_404(client: httpx.AsyncClient, skills_dir: Path) -> None:
    response = await client.get("/api/skills/nope")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    ("raw_path", "status"),
    [
        ("%2e%2e", 422),
        ("%2E%2E", 422),
        (".", 200),  # the client normalises it to /api/skills/: the (empty) list
        ("..", 404),  # normalised to /api/
        ("..%2Foutside", 404),
        ("%2e%2e%2Foutside", 404),
        ("..%5Coutside", 422),
        ("a/b", 404),
        ("%2Fetc%2Fpasswd", 404),
        ("%2e%2e%2F%2e%2e%2Fetc%2Fpasswd", 404),
        ("a%00b", 422),
        ("outside", 404),
        ("linked", 404),
    ],
)
async def test_path_traversal_is_refused(
    client: httpx.AsyncClient, skills_dir: Path, outside: Path, raw_path: str, status: int
) -> None:
    (skills_dir / "linked").symlink_to(outside, target_is_directory=True)

    response = await client.get(f"/api/skills/{raw_path}")

    assert response.status_code == status, response.text
    assert status == 200 or "error" in response.json()
    assert SECRET not in response.text


async def test_symlinked_skill_file_is_listed_unreadable(
    client: httpx.AsyncClient, skills_dir: Path, outside: Path
) -> None:
    (skills_dir / "sneaky").mkdir()
    (skills_dir / "sneaky" / "SKILL.md").symlink_to(outside / "SKILL.md")

    listed = await client.get("/api/skills")
    one = await client.get("/api/skills/sneaky")

    assert [s["folderName"] for s in listed.json()] == ["sneaky"]
    assert "cannot be read" in one.json()["error"]
    assert SECRET not in listed.text + one.text
