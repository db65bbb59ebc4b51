"""Attachments reach the real hermes-agent (behind a real bridge) as the scripted model sees
them: an image as an image part with its bytes (a vision model), or as a file in the chat's
workspace (a model that does not see images); a short text whole in the question; a long one
and a PDF's text read by the agent's file tool from the workspace. Later turns, regenerate and
edit keep them, and the stored history holds references, not the image's bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from agentchat.chat.tables import ChatMessage, ChatSession
from tests.attachments.files import pdf_with_text, png
from tests.support.api_stack import Stack
from tests.support.own_bridge import own_bridge

pytestmark = pytest.mark.timeout(300)
TOOLSETS = "clarify,todo,memory,skills,file"


bridge = own_bridge(AGENTCHAT_AGENT_TOOLSETS=TOOLSETS)


@pytest.fixture
def stack_settings() -> dict[str, Any]:
    return {"agent_toolsets": TOOLSETS}


def _upload(stack: Stack, chat: int, name: str, data: bytes) -> dict[str, Any]:
    response = stack.http.post(
        f"/api/chat/sessions/{chat}/attachments", params={"name": name}, content=data
    )
    assert response.status_code == 201, response.text
    return dict(response.json())


def _answer(stack: Stack, chat: int, message: str, **extra: Any) -> str:
    _started, events = stack.ask(chat, message, **extra)
    assert events[-1].event == "workflow_complete", events[-1].data
    return str(events[-1].data["finalText"])


def _sees_images(stack: Stack, on: bool) -> None:
    response = stack.http.patch(f"/api/models/{stack.model_id}", json={"vision": on})
    assert response.status_code == 200 and response.json()["seesImages"] is on


def _workspace(stack: Stack, chat: int) -> Path:
    with stack.database.session() as db:
        hermes = db.get(ChatSession, chat).hermes_session  # type: ignore[union-attr]
    return stack.bridge.home / "workspaces" / str(hermes)


def test_an_image_reaches_a_vision_model_as_its_bytes_and_stays_in_the_history(
    stack: Stack,
) -> None:
    _sees_images(stack, True)
    chat = stack.new_session()
    image = _upload(stack, chat, "chart.png", png((30, 20), "green"))
    seen = f"image/png:{image['digest']}"

    first = _answer(stack, chat, "What is this?\n#echo-parts", attachmentIds=[image["id"]])
    later = _answer(stack, chat, "And now?\n#echo-parts")

    assert first == f"PARTS: text + {seen}"
    assert later == f"PARTS: text + {seen} || text"
    with stack.database.session() as db:
        stored = db.scalars(select(ChatMessage.agent_messages)).all()
    assert not any("base64" in (turn or "") for turn in stored)
    shown = stack.get(f"/api/chat/sessions/{chat}")["messages"][0]["attachments"]
    assert [(a["id"], a["delivery"]) for a in shown] == [(image["id"], "image")]


def test_a_model_that_does_not_see_images_gets_the_file_in_its_workspace(stack: Stack) -> None:
    chat = stack.new_session()
    data = png((12, 12), "red")
    image = _upload(stack, chat, "photo.png", data)

    answer = _answer(stack, chat, "Look\n#echo-parts\n#echo-context", attachmentIds=[image["id"]])

    assert answer.startswith("PARTS: text\n")
    assert f"attachments/{image['id']}-photo.png" in answer and "cannot see images" in answer
    stored = _workspace(stack, chat) / "attachments" / f"{image['id']}-photo.png"
    assert hashlib.sha256(stored.read_bytes()).hexdigest() == image["digest"]


def test_a_short_text_goes_whole_into_the_question(stack: Stack) -> None:
    chat = stack.new_session()
    notes = _upload(stack, chat, "notes.csv", b"city,people\nLyon,522250\n")

    answer = _answer(stack, chat, "Sum it\n#echo-context", attachmentIds=[notes["id"]])

    assert "Lyon,522250" in answer and "notes.csv" in answer
    shown = stack.get(f"/api/chat/sessions/{chat}")["messages"][0]["attachments"]
    assert shown[0]["delivery"] == "inline"


def test_a_long_text_and_a_pdf_are_read_with_the_file_tool(stack: Stack) -> None:
    chat = stack.new_session()
    text = "MARKER-OKAPI first line\n" + "filler line of the log\n" * 3000
    log = _upload(stack, chat, "server.log", text.encode())
    paper = _upload(stack, chat, "paper.pdf", pdf_with_text(["Quarterly figures 42"]))
    ids = [log["id"], paper["id"]]

    read_log = json.dumps({"path": f"attachments/{log['id']}-server.log", "limit": 3})
    read_pdf = json.dumps({"path": f"attachments/{paper['id']}-paper.pdf.txt"})
    answer = _answer(
        stack,
        chat,
        f"Read them\n#tool read_file {read_log}\n#echo-tool-result",
        attachmentIds=ids,
    )
    pdf_answer = _answer(stack, chat, f"#tool read_file {read_pdf}\n#echo-tool-result")

    assert "MARKER-OKAPI" in answer
    assert "Quarterly figures 42" in pdf_answer
    shown = stack.get(f"/api/chat/sessions/{chat}")["messages"][0]["attachments"]
    assert [a["delivery"] for a in shown] == ["workspace", "inline"]


def test_regenerate_and_edit_keep_the_attachments(stack: Stack) -> None:
    _sees_images(stack, True)
    chat = stack.new_session()
    image = _upload(stack, chat, "a.png", png((8, 8), "blue"))
    seen = f"image/png:{image['digest']}"
    started, _events = stack.ask(chat, "#echo-parts", attachmentIds=[image["id"]])

    again = stack.post(f"/api/chat/messages/{started['messageId']}/regenerate", expect=201)
    regenerated = stack.events(again["runId"])[-1].data["finalText"]
    edit = stack.http.patch(
        f"/api/chat/messages/{started['userMessageId']}", json={"content": "#echo-parts"}
    )
    edited = edit.json()["newMessageId"]
    kept = _answer(stack, chat, "", parentMessageId=edited)
    dropped = stack.http.patch(
        f"/api/chat/messages/{started['userMessageId']}",
        json={"content": "#echo-parts", "attachmentIds": []},
    ).json()["newMessageId"]
    without = _answer(stack, chat, "", parentMessageId=dropped)

    assert regenerated == f"PARTS: text + {seen}"
    assert kept == f"PARTS: text + {seen}"
    assert without == "PARTS: text"


def test_too_many_attachments_or_another_chats_file_write_nothing(stack: Stack) -> None:
    chat, other = stack.new_session(), stack.new_session()
    mine = [_upload(stack, chat, f"{i}.txt", f"file {i}".encode())["id"] for i in range(11)]
    theirs = _upload(stack, other, "x.txt", b"other chat")["id"]

    too_many = stack.http.post(
        f"/api/chat/sessions/{chat}/runs", json={"message": "hi", "attachmentIds": mine}
    )
    foreign = stack.http.post(
        f"/api/chat/sessions/{chat}/runs", json={"message": "hi", "attachmentIds": [theirs]}
    )

    assert too_many.status_code == 413
    assert too_many.json()["error"]["code"] == "too_many_attachments"
    assert foreign.status_code == 404
    assert stack.get(f"/api/chat/sessions/{chat}")["messages"] == []
