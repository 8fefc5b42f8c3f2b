"""The page reads the Mini App links the bot writes as the bot reads them: the prefixes come to
app.js from their one declaration (bot/links.py), served inside the page, and for every kind,
and for what is no link, the page's reading is the bot's."""

from __future__ import annotations

from playwright.async_api import Browser

from bot.links import KINDS, Channel, decode, encode, page_name

ODD = ["", "t", "r", "k", "tx", "t" + "9" * 13, "t1²", "t-1", "t 1", "h5", "j5", "tp5", "T5",
       "kk1", "r1e", "t١"]  # fmt: skip


async def test_the_page_reads_every_mini_app_link_as_the_bot_does(
    local_url: str, browser: Browser
) -> None:
    apps = [kind for kind in KINDS if kind.CHANNEL is Channel.APP]
    written = [
        encode(kind(**{kind.FIELD[0]: n}))
        for kind in apps
        if kind.FIELD
        for n in (0, 7, 10**12 - 1)
    ]
    page = await browser.new_page()
    await page.goto(local_url)
    read = await page.evaluate("(params) => params.map((p) => readLink(p))", [*written, *ODD])
    expected = []
    for text in [*written, *ODD]:
        link = decode(Channel.APP, text)
        if link is None or link.FIELD is None:
            expected.append(None)
        else:
            expected.append(
                {"name": page_name(type(link)), "value": str(getattr(link, link.FIELD[0]))}
            )
    assert read == expected
    assert {r["name"] for r in read if r} == {page_name(kind) for kind in apps}
    await page.close()
