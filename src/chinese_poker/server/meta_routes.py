"""What the server offers, for the lobby to build its forms: presets, options, bots; its
health and readiness (for a proxy or an orchestrator), and its own timings and counts
for benchmarks and operators on its machine."""

from __future__ import annotations

import gc
import sys
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import JSONResponse

from chinese_poker import __version__
from chinese_poker.rules.words import option_catalogue, preset_catalogue
from chinese_poker.server import PROTOCOL_VERSION
from chinese_poker.server.guard import client_address
from chinese_poker.server.holdings import Manager
from chinese_poker.server.responses import BotInfo, Health, OptionInfo, PresetInfo
from chinese_poker.server.tables import bot_catalogue

__all__ = ["router"]

router = APIRouter(tags=["meta"])


@router.get("/api/health", response_model=Health)
async def health() -> dict[str, Any]:
    """Liveness check."""
    return {"ok": True, "version": __version__, "protocol": PROTOCOL_VERSION}


@router.get("/api/ready")
async def ready(request: Request) -> JSONResponse:
    """Readiness: 200 once the database is migrated and the tables resumed, while the
    process takes tables; 503 while it starts or after it was told to stop (SIGTERM),
    so that a proxy sends new requests to the other processes."""
    manager = getattr(request.app.state, "manager", None)
    if manager is None or not manager.ready:
        state = "draining" if manager is not None and manager.draining else "starting"
        return JSONResponse({"ready": False, "state": state}, 503)
    return JSONResponse({"ready": True, "state": "ready"})


@router.get("/api/metrics", include_in_schema=False)
async def metrics(request: Request, manager: Manager, reset: bool = False) -> dict[str, Any]:
    """The server's own timings (server/metrics.py), for benchmarks on its machine, and
    this process's counts (``process``: tables owned, moves applied and per second over
    the last minute, lease renewals, takeovers, handovers given and taken)."""
    if client_address(request) not in ("127.0.0.1", "::1"):
        raise HTTPException(404, "Not Found")
    return manager.timings.snapshot(reset) | {
        "process": manager.counts.snapshot(len(manager.tables)),
        "kernels_warm": manager.workers.kernels_warm.is_set(),
        # Memory as Python sees it, to tell a leak from the allocator's high-water
        # mark (RSS) and from reference cycles the GC pacer froze alive.
        "allocated_blocks": sys.getallocatedblocks(),
        "gc_frozen": gc.get_freeze_count(),
    }


@router.get("/api/presets", response_model=list[PresetInfo])
async def presets() -> list[dict[str, Any]]:
    """Every RULES §14 preset with its words, rules and allowed player counts."""
    return preset_catalogue()


@router.get("/api/options", response_model=list[OptionInfo])
async def options() -> list[dict[str, Any]]:
    """Every RULES §13 option with its words and its choices' words."""
    return option_catalogue()


@router.get("/api/bots", response_model=list[BotInfo])
async def bots() -> list[dict[str, Any]]:
    """The bots a seat can be given."""
    return bot_catalogue()
