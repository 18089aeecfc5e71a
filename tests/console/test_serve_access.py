"""Who may open `recode-tui serve`: loopback by default, a token off it, and a clear word without the extra."""

from __future__ import annotations

import sys

import pytest

from recode_tui.commands.cli import main


def test_a_non_loopback_host_without_a_token_is_refused_saying_how(capsys) -> None:
    assert main(["serve", "--host", "0.0.0.0", "--", "--game", "put-01"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--token SECRET" in err and "?token=SECRET" in err


def test_an_argument_the_console_does_not_know_is_refused_before_serving(capsys) -> None:
    pytest.importorskip("textual_serve")
    assert main(["serve", "--", "--gmae", "put-01"]) == 2
    err = capsys.readouterr().err
    assert "--gmae" in err and "recode-tui tui --help" in err


def test_without_the_web_extra_serve_names_the_pip_command(capsys, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "textual_serve", None)  # as if not installed: importing it fails
    assert main(["serve", "--", "--game", "put-01"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'recode-tui[web]'" in err


async def test_the_page_and_its_files_need_the_token_then_its_cookie() -> None:
    pytest.importorskip("textual_serve")
    from aiohttp.test_utils import TestClient, TestServer

    from recode_tui.web.serve import make_server

    server = make_server("true", "127.0.0.1", 0, "s3cret", "recode-tui")
    async with TestClient(TestServer(await server._make_app())) as client:
        refused = await client.get("/")
        assert refused.status == 403 and "?token=" in await refused.text()
        assert (await client.get("/?token=wrong")).status == 403
        assert (await client.get("/static/css/xterm.css")).status == 403
        page = await client.get("/?token=s3cret")
        assert page.status == 200
        html = await page.text()
        assert "googleapis" not in html and "/static/js/textual.js" in html and 'rel="icon"' in html
        assert (await client.get("/static/css/xterm.css")).status == 200  # the cookie from the page's address


async def test_on_loopback_without_a_token_the_page_opens() -> None:
    pytest.importorskip("textual_serve")
    from aiohttp.test_utils import TestClient, TestServer

    from recode_tui.web.serve import make_server

    server = make_server("true", "127.0.0.1", 0, None, "recode-tui")
    async with TestClient(TestServer(await server._make_app())) as client:
        assert (await client.get("/")).status == 200
