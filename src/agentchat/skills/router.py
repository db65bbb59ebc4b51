"""HTTP routes of this domain (thin: parse, call the service, return)."""

from __future__ import annotations

from fastapi import APIRouter

router = APIRouter()
