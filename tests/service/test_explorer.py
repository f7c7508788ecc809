"""The explorer page in a real browser: Debian's chromium driven by playwright over a
real `redstring serve` on loopback. The page's scripts come from the package
(`static/vendor`), never a CDN: the browser is refused every other host."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import httpx
import pytest
from playwright.async_api import Page, Route, async_playwright
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from redstring.application import use_cases
from redstring.application.keys import create_key
from redstring.application.use_cases import RecordMapping
from redstring.application.workspaces import (
    Embedder,
    create_workspace,
    make_embedder,
    open_workspace,
)
from tests.service.conftest import PEOPLE

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
TEXT = (
    "Ada Lovelace worked with Charles Babbage in London. Charles Babbage was born in London.\n"
    "Mary Somerville was born in Jedburgh. Mary Somerville lives in London.\n"
)

if CHROMIUM is None and not os.environ.get("CI"):
    pytest.skip("no chromium on this machine (CI installs Debian's)", allow_module_level=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str]]:
    db = tmp_path / "explorer.db"
    create_workspace(db, Embedder.FAKE, "acme")
    with open_workspace(db) as workspace:
        key = create_key(workspace, "acme")
        tenant_id = workspace.tenant("acme")

        embeddings = make_embedder(Embedder.FAKE)

        async def seed() -> None:
            await use_cases.ingest_texts(
                [("notes.md", TEXT)], workspace, tenant_id, provider=None, domain="general",
                embeddings=embeddings,
            )  # fmt: skip
            await use_cases.ingest_records(
                PEOPLE, workspace, tenant_id, source_id="people.csv",
                mapping=RecordMapping(type_field="type", id_field="id"),
            )  # fmt: skip
            report = await use_cases.consolidate(workspace, tenant_id)
            assert report.merge_ids

        asyncio.run(seed())
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "redstring.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"{base}/health", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None
                assert time.monotonic() < deadline
                time.sleep(0.2)
        yield base, key
    finally:
        server.terminate()
        server.wait(timeout=30)


async def _open(page: Page, base: str, key: str, foreign: list[str]) -> None:
    async def only_loopback(route: Route) -> None:
        if route.request.url.startswith(base):
            await route.continue_()
        else:
            foreign.append(route.request.url)
            await route.abort()

    await page.route("**/*", only_loopback)
    await page.goto(f"{base}/explorer")
    await page.fill("#key", key)
    await page.dispatch_event("#key", "change")


async def _search(page: Page, query: str) -> None:
    await page.fill("#query", query)
    await page.click("#search button")
    await page.wait_for_selector("#results tbody tr")


async def _click_node(page: Page, name: str) -> None:
    """Click a graph node where the canvas draws it, as a user would, and wait for its
    card. The position is read once the layout has stopped moving it; a click that a
    late layout step still made miss is repeated (a user clicks again), at most 4
    times, and the last wait fails the test as before."""
    box = await page.locator("#graph").bounding_box()
    assert box is not None
    card = f"#card h2:text('{name}')"
    for attempt in range(4):
        position = await _settled_position(page, name)
        # A node drawn outside the canvas cannot be clicked by anyone: the graph
        # must keep every node in view.
        assert 0 <= position["x"] <= box["width"], (name, position, box)
        assert 0 <= position["y"] <= box["height"], (name, position, box)
        await page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])
        try:
            await page.wait_for_selector(card, timeout=7_500 if attempt < 3 else 30_000)
            return
        except PlaywrightTimeoutError:
            if attempt == 3:
                raise


async def _settled_position(page: Page, name: str) -> dict[str, float]:
    """The node's rendered position once two reads 150 ms apart agree (or after 3 s)."""
    script = (
        "(name) => window.explorerGraph.nodes()"
        ".filter(n => n.data('label') === name)[0].renderedPosition()"
    )
    position: dict[str, float] = await page.evaluate(script, name)
    for _ in range(20):
        await page.wait_for_timeout(150)
        again: dict[str, float] = await page.evaluate(script, name)
        if again == position:
            break
        position = again
    return position


async def _node_names(page: Page) -> set[str]:
    names = await page.evaluate("() => window.explorerGraph.nodes().map(n => n.data('label'))")
    return set(names)


async def test_search_card_and_a_graph_that_grows_by_clicking(served: tuple[str, str]) -> None:
    base, key = served
    foreign: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        page = await browser.new_page()
        await _open(page, base, key, foreign)
        await _search(page, "Charles Babbage")
        first = page.locator("#results tbody tr").first
        cells = await first.locator("td").all_inner_texts()
        assert cells[1] == "Charles Babbage"
        assert cells[5] == "1.000"  # the lexical channel's score
        assert cells[4] != "-"  # the semantic channel ran too
        await first.click()
        await page.wait_for_selector("#card h2:text('Charles Babbage')")
        assert "notes.md chars" in await page.inner_text("#card .provenance")
        await page.wait_for_function("() => window.explorerGraph.nodes().length === 2")
        assert await _node_names(page) == {"Charles Babbage", "London"}
        await _click_node(page, "London")
        await page.wait_for_selector("#card h2:text('London')")
        await page.wait_for_function("() => window.explorerGraph.nodes().length === 3")
        assert await _node_names(page) == {"Charles Babbage", "London", "Mary Somerville"}
        await browser.close()
    assert foreign == []


async def test_a_merge_is_undone_from_the_entity_card(served: tuple[str, str]) -> None:
    base, key = served
    foreign: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM)
        page = await browser.new_page()
        await _open(page, base, key, foreign)
        await _search(page, "Ada Lovelace")
        rows = page.locator("#results tbody tr")
        for index in range(await rows.count()):
            await rows.nth(index).click()
            await page.wait_for_selector("#card h2:text('Ada Lovelace')")
            if await page.locator("#card button.undo").count():
                break
        undo = page.locator("#card button.undo").first
        merge_id = await undo.get_attribute("data-merge-id")
        assert merge_id
        assert "Ada Lovelace" in await page.inner_text("#card .aliases")
        await undo.click()
        await page.wait_for_selector(f"#status:text('undid merge {merge_id}')")
        await browser.close()
    again = httpx.post(
        f"{base}/v1/merges/{merge_id}/undo", headers={"Authorization": f"Bearer {key}"}
    )
    assert again.status_code == 409
    assert foreign == []
