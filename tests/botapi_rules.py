"""What the Bot API checks in what a bot sends, for the fake Bot API (tests/fakebot.py): HTML
parse mode, lengths after entity parsing, inline keyboards, setMyCommands, chat types by id.

Written from the documentation, https://core.telegram.org/bots/api (each rule cites its
section), and, where the documentation says nothing of how a rule is checked or worded, from the
server's sources: TDLib (tdlib/td, td/telegram/MessageEntity.cpp `parse_html` and
`fix_formatted_text`, LinkManager.cpp `check_link_impl`, ReplyMarkup.cpp, BotCommand.cpp, at
commit 022d60202e44 of 2026-07-17) and telegram-bot-api (Client.cpp, at 01a3679c0bbf, Bot API
10.0). Error texts are Telegram's where those sources give them: TDLib's message, its first
letter made lower case after "Bad Request: " (Client::fail_query_with_error).

Where Telegram is more lenient than its documentation (it copies a bare "&" or ">" as text,
drops a link it cannot use or an entity nested where the documentation forbids it, takes the
first of two button types), the fake refuses, so that a test sees what a user would have lost;
those errors say so ("the documentation says"), as Telegram has no words for them.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

TEXT_LIMIT = 4096  # sendMessage text: "1-4096 characters after entities parsing"
CAPTION_LIMIT = 1024  # sendDocument caption: "0-1024 characters after entities parsing"
ANSWER_LIMIT = 200  # answerCallbackQuery text: "0-200 characters"
RAW_LIMIT = 1 << 15  # bytes before parsing (Client::get_formatted_text: "Text is too long")
SUPERGROUP_IDS = -1_000_000_000_000  # TDLib DialogId: ZERO_CHANNEL_ID; basic groups lie above it


class ApiError(Exception):
    """A refused call: the HTTP status and Telegram's description."""

    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description


def bad(message: str) -> ApiError:
    """A 400 with TDLib's or telegram-bot-api's `message` as Telegram words it: after
    "Bad Request: ", its first letter in lower case, unless it is a server's code such as
    BUTTON_DATA_INVALID (Client::fail_query_with_error)."""
    if not (len(message) > 1 and (message[1] == "_" or message[1].isupper())):
        message = message[:1].lower() + message[1:]
    return ApiError(400, f"Bad Request: {message}")


# -- chats -------------------------------------------------------------------------------------
def chat_type(chat_id: int) -> str:
    """What kind of chat an id is, by its form (#chat: "This number may have more than 32
    significant bits"; TDLib DialogId::get_type): a user's is positive, a basic group's
    -1..-999,999,999,999, a supergroup's (or channel's) -100xxxxxxxxxx, below -10^12."""
    if chat_id > 0:
        return "private"
    return "supergroup" if chat_id < SUPERGROUP_IDS else "group"


# -- HTML parse mode (#html-style) --------------------------------------------------------------
# "The following tags are currently supported" (#html-style), the names TDLib's parse_html
# accepts: b/strong, i/em, u/ins, s/strike/del, span class="tg-spoiler"/tg-spoiler,
# a href, tg-emoji emoji-id, tg-time unix [format], code (class="language-..." inside pre),
# pre, blockquote [expandable]. "Only the tags mentioned above are currently supported."
_SPLITTABLE = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "tg-spoiler", "span"}
_CONTINUOUS = {"a", "tg-emoji"}  # links and custom emoji: they can't contain one another
_PRE = {"code", "pre", "tg-time"}  # TDLib get_pre_entities_mask: they contain no entity
TAGS = _SPLITTABLE | _CONTINUOUS | _PRE | {"blockquote"}

_SPECIAL = re.compile(r"[<>&]")
_SPACE = " \t\r\n\0\v"  # td::is_space (NUL is the end of TDLib's C string)
_DATE_FORMAT = re.compile(r"r|w?[dD]?[tT]?")  # #date-time-entity-formatting
_NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


def _byte(text: str, index: int) -> int:
    """TDLib's error messages count in bytes of UTF-8."""
    return len(text[:index].encode("utf-8", "surrogatepass"))


class _Offset:
    """Where a tag begins, in bytes, worked out only for an error message."""

    def __init__(self, text: str, index: int) -> None:
        self.text, self.index = text, index

    def __str__(self) -> str:
        return str(_byte(self.text, self.index))


def _entity(s: str, pos: int) -> tuple[int, int]:
    """The character an HTML entity at `pos` stands for (0 if none) and where it ends: TDLib's
    decode_html_entity ("All numerical HTML entities are supported"; of the named ones only
    &lt; &gt; &amp; &quot;; the ';' may be left out)."""
    end = pos + 1
    code = 0
    if s[end] == "#":
        end += 1
        if s[end] == "x":
            end += 1
            while s[end] in "0123456789abcdefABCDEF":
                code = code * 16 + int(s[end], 16)
                end += 1
        else:
            while s[end].isascii() and s[end].isdigit():
                code = code * 10 + int(s[end])
                end += 1
        if code == 0 or code >= 0x10FFFF or end - pos >= 10:
            return 0, pos
    else:
        while s[end].isascii() and s[end].isalpha():
            end += 1
        named = _NAMED.get(s[pos + 1 : end])
        if named is None:
            return 0, pos
        code = ord(named)
    return code, end + 1 if s[end] == ";" else end


@dataclass
class _Open:
    tag: str
    start: int  # in characters of the parsed text
    argument: str = ""
    date: int = 0
    inner_code: int | None = None  # pre: where a code that opened with it ended


@dataclass(frozen=True)
class Parsed:
    """A text after entity parsing: what the user sees (`text`), or why Telegram refuses it."""

    text: str = ""
    lead: int = 0  # where the first entity starts (TDLib trims no leading space past it)
    error: str | None = None

    def trimmed(self) -> str:
        """The text as Telegram keeps it (fix_formatted_text): spaces and new lines cut from the
        end, and from the start up to the first entity."""
        end = len(self.text.rstrip(" \n"))
        start = 0
        while start < min(self.lead, end) and self.text[start] in " \n":
            start += 1
        return self.text[start:end]


class _HtmlParser:
    """TDLib's parse_html, step by step (td/telegram/MessageEntity.cpp), plus the documented
    rules it does not enforce."""

    def __init__(self, text: str) -> None:
        self.html = text
        self.s = text + "\0"
        self.out: list[str] = []
        self.length = 0
        self.stack: list[_Open] = []
        self.lead: int | None = None

    def fail(self, message: str) -> ApiError:
        return bad(f"can't parse entities: {message}")

    def parse(self) -> Parsed:
        text, n, i = self.html, len(self.html), 0
        while i < n:
            found = _SPECIAL.search(text, i)
            j = n if found is None else found.start()
            if j > i:
                self.out.append(text[i:j])
                self.length += j - i
            if found is None:
                break
            c = text[j]
            if c == "&":
                code, end = _entity(self.s, j)
                if code == 0:
                    # Telegram keeps a bare '&' as text, but #html-style: "All <, > and &
                    # symbols that are not a part of a tag or an HTML entity must be replaced
                    # with the corresponding HTML entities"; "The API currently supports only
                    # the following named HTML entities: &lt;, &gt;, &amp; and &quot;".
                    word = re.match(r"&[A-Za-z0-9#]*;?", text[j:])
                    what = word.group(0) if word and len(word.group(0)) > 1 else "&"
                    raise self.fail(
                        f'"{what}" at byte offset {_byte(text, j)} is not a supported HTML entity:'
                        " the documentation says to write & as &amp; (#html-style)"
                    )
                if 0xD800 <= code <= 0xDFFF:
                    raise self.fail(
                        "Text contains invalid Unicode characters after decoding HTML entities,"
                        " check for unmatched surrogate code units"
                    )
                self.out.append(chr(code))
                self.length += 1
                i = end
            elif c == ">":
                # Telegram keeps it as text; #html-style says to write &gt;.
                raise self.fail(
                    f'bare ">" at byte offset {_byte(text, j)}: the documentation says to write'
                    " &gt; (#html-style)"
                )
            elif text[j + 1 : j + 2] == "/":
                i = self.end_tag(j)
            else:
                i = self.start_tag(j)
        if self.stack:
            raise self.fail(
                f'Can\'t find end tag corresponding to start tag "{self.stack[-1].tag}"'
            )
        return Parsed("".join(self.out), self.length if self.lead is None else self.lead)

    def start_tag(self, begin: int) -> int:
        s, at = self.s, _Offset(self.html, begin)
        i = begin + 1
        while s[i] not in _SPACE and s[i] != ">":
            i += 1
        if s[i] == "\0":
            raise self.fail(f"Unclosed start tag at byte offset {at}")
        tag = s[begin + 1 : i].lower()
        if tag not in TAGS:
            # What a bare '<' gives too: "1 < 2" is the start tag "" at byte offset 2.
            raise self.fail(f'Unsupported start tag "{tag}" at byte offset {at}')
        opened = _Open(tag, self.length)
        language = False
        while s[i] != ">":
            while s[i] != "\0" and s[i] in _SPACE:
                i += 1
            if s[i] == ">":
                break
            first = i
            while s[i] not in _SPACE and s[i] not in "=>/\"'":
                i += 1
            name = s[first:i]
            if not name:
                raise self.fail(f'Empty attribute name in the tag "{tag}" at byte offset {at}')
            while s[i] != "\0" and s[i] in _SPACE:
                i += 1
            if s[i] != "=":
                if s[i] == "\0":
                    raise self.fail(f'Unclosed start tag "{tag}" at byte offset {at}')
                if tag == "blockquote" and name == "expandable":
                    opened.argument = "1"
                continue
            i += 1
            while s[i] != "\0" and s[i] in _SPACE:
                i += 1
            if s[i] == "\0":
                raise self.fail(f'Unclosed start tag "{tag}" at byte offset {at}')
            if s[i] not in "'\"":
                token = i  # a name token: letters, digits, '.' and '-', read in lower case
                while (s[i].isascii() and s[i].isalnum()) or s[i] in ".-":
                    i += 1
                value = s[token:i].lower()
                if s[i] not in _SPACE and s[i] != ">":
                    raise self.fail(
                        f"Unexpected end of name token at byte offset {_byte(self.html, token)}"
                    )
            else:
                quote, chars = s[i], []
                i += 1
                while s[i] != quote and s[i] != "\0":
                    if s[i] == "&":
                        code, end = _entity(s, i)
                        if code:
                            chars.append(chr(code))
                            i = end
                            continue
                    chars.append(s[i])
                    i += 1
                if s[i] == quote:
                    i += 1
                value = "".join(chars)
            if s[i] == "\0":
                raise self.fail(f"Unclosed start tag at byte offset {at}")
            if (tag, name) in (("a", "href"), ("tg-emoji", "emoji-id"), ("tg-time", "format")):
                opened.argument = value
            elif tag == "code" and name == "class" and value.startswith("language-"):
                opened.argument, language = value[9:], True
            elif tag == "span" and name == "class" and value.startswith("tg-"):
                opened.argument = value[3:]
            elif tag == "blockquote" and name == "expandable":
                opened.argument = "1"
            elif tag == "tg-time" and name == "unix":
                opened.date = int(value) if value.isascii() and value.isdigit() else 0
        if tag == "span" and opened.argument != "spoiler":
            raise self.fail(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
        if tag == "code" and not language:
            opened.argument = ""
        self.stack.append(opened)
        return i + 1

    def end_tag(self, begin: int) -> int:
        s, at = self.s, _Offset(self.html, begin)
        if not self.stack:
            raise self.fail(f"Unexpected end tag at byte offset {at}")
        i = begin + 2
        while s[i] not in _SPACE and s[i] != ">":
            i += 1
        name = s[begin + 2 : i].lower()
        while s[i] != "\0" and s[i] in _SPACE:
            i += 1
        if s[i] != ">":
            raise self.fail(f"Unclosed end tag at byte offset {at}")
        top = self.stack[-1]
        if name and name != top.tag:
            raise self.fail(
                f'Unmatched end tag at byte offset {at}, expected "</{top.tag}>", found "</{name}>"'
            )
        if self.length > top.start:  # an empty tag makes no entity, so breaks no rule
            self.close(top)
        self.stack.pop()
        return i + 1

    def close(self, entity: _Open) -> None:
        tag = entity.tag
        if tag == "tg-emoji" and not _int64(entity.argument):
            raise bad("can't parse entities: Invalid custom emoji identifier specified")
        if tag == "tg-time":
            if not 0 < entity.date < 1 << 31:
                raise bad("can't parse entities: Invalid date specified")
            # TDLib takes the letters in any order; #date-time-entity-formatting: "must adhere
            # to the following regular expression: r|w?[dD]?[tT]?"
            if not _DATE_FORMAT.fullmatch(entity.argument):
                raise bad("can't parse entities: Invalid date format used")
        if tag == "a":
            url = entity.argument or "".join(self.out)[entity.start :]
            problem = link_problem(url)
            if problem is not None:
                # Telegram keeps the text and silently drops a link it cannot use
                # (parse_html: get_checked_link is empty, no entity): refused here.
                raise self.fail(f"URL '{url}' is invalid: {problem} (the link would be dropped)")
        if tag == "pre" and entity.inner_code not in (None, self.length):
            raise self.nested("code", "pre")
        self.nesting(entity)
        if self.lead is None or entity.start < self.lead:
            self.lead = entity.start

    def nesting(self, entity: _Open) -> None:
        """#formatting-options: "If two entities have common characters, then one of them is
        fully contained inside another" (the tags' own nesting); "bold, italic, underline,
        strikethrough, and spoiler entities can contain and can be part of any other entities,
        except pre and code"; "blockquote and expandable_blockquote entities can't be nested";
        "All other entities can't contain each other"; pre with code inside for a language
        (#html-style: "Use nested pre and code tags, to define programming language for pre
        entity"; "Programming language can't be specified for standalone code tags"). TDLib's
        fix_entities drops what breaks them; the fake refuses."""
        tag, outer = entity.tag, self.stack[:-1]
        parent = outer[-1] if outer else None
        if tag == "code" and parent is not None and parent.tag == "pre":
            if entity.start == parent.start:
                parent.inner_code = self.length  # fine if the pre ends here too
                outer = outer[:-1]
        elif tag == "code" and entity.argument:
            raise self.fail(
                "the documentation says a programming language can't be specified for"
                " standalone code tags (#html-style)"
            )
        for around in outer:
            if (
                around.tag in _PRE
                or (tag in _PRE and around.tag != "blockquote")
                or (tag in _CONTINUOUS and around.tag in _CONTINUOUS)
                or (tag == "blockquote" and around.tag in _CONTINUOUS | {"blockquote"})
            ):
                raise self.nested(tag, around.tag)

    def nested(self, inner: str, outer: str) -> ApiError:
        return self.fail(
            f'"{inner}" inside "{outer}": the documentation says these entities can\'t be'
            " nested (#formatting-options); Telegram would drop one of them"
        )


def _int64(value: str) -> bool:
    try:
        number = int(value, 10)
    except ValueError:
        return False
    return number != 0 and -(1 << 63) <= number < 1 << 63


@functools.lru_cache(maxsize=4096)  # (a board's text comes back at every edit of a hand)
def parse_html(text: str) -> Parsed:
    try:
        return _HtmlParser(text).parse()
    except ApiError as error:
        return Parsed(error=error.description.removeprefix("Bad Request: "))


def html_error(text: str) -> str | None:
    """Why Telegram refuses this HTML (as its description says it, after "Bad Request: "), or
    None if it takes it."""
    return parse_html(text).error


def parsed(text: str, parse_mode: str | None) -> Parsed:
    """`text` after entity parsing in `parse_mode` (Client::get_formatted_text: the mode's name
    in any case; none, or "none", is plain text)."""
    mode = (parse_mode or "").lower()
    if not text or mode in ("", "none"):
        return Parsed(text, len(text))
    if mode == "html":
        result = parse_html(text)
        if result.error is not None:
            raise bad(result.error)
        return result
    if mode in ("markdown", "markdownv2"):
        # (a Telegram mode the fake does not parse: the bot does not use it)
        raise bad(f"parse_mode {parse_mode} is not checked by the fake Bot API: use HTML")
    raise bad("Unsupported parse_mode")


def check_text(text: str | None, parse_mode: str | None) -> str:
    """A message's text (sendMessage, editMessageText: "1-4096 characters after entities
    parsing"); the text the user sees."""
    if not text:
        raise bad("Message text is empty")  # Client::get_input_message_text
    if len(text.encode("utf-8", "surrogatepass")) > RAW_LIMIT:
        raise bad("Text is too long")
    shown = parsed(text, parse_mode).trimmed()
    if not shown:
        # `<b> </b>` alone: fix_formatted_text cuts the spaces and new lines at the ends, and
        # nothing is left ("Text must be non-empty"). Inside a text, an entity over spaces
        # stays (remove_empty_entities drops only entities of no length).
        raise bad("Text must be non-empty")
    # Counted in Unicode characters, not UTF-16 code units: TDLib compares utf8_length(text)
    # with message_text_length_max (MessageContent.cpp), and a live probe had 4,096 astral
    # characters (8,192 UTF-16 code units) accepted and 4,097 refused
    # (https://github.com/FerroxLabs/wayland/issues/934).
    if len(shown) > TEXT_LIMIT:
        raise bad("Message is too long")
    return shown


def check_caption(caption: str | None, parse_mode: str | None) -> str:
    """A media caption (#senddocument: "0-1024 characters after entities parsing")."""
    if not caption:
        return ""
    if len(caption.encode("utf-8", "surrogatepass")) > RAW_LIMIT:
        raise bad("Text is too long")
    shown = parsed(caption, parse_mode).trimmed()
    if len(shown) > CAPTION_LIMIT:  # (counted as a text is, MessageContent.cpp)
        raise bad("Message caption is too long")
    return shown


def check_answer(text: str | None) -> None:
    """answerCallbackQuery's text (#answercallbackquery: "0-200 characters"). TDLib sends it as
    is; the server's refusal, MESSAGE_TOO_LONG, reaches the bot unchanged. Whether the server
    counts characters or UTF-16 code units is not documented: counted as a message's text."""
    if text and len(text) > ANSWER_LIMIT:
        raise bad("MESSAGE_TOO_LONG")


# -- links -------------------------------------------------------------------------------------
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(?!\d+(?:[/?#]|$))")
_URL_PART = re.compile(r"(?:[A-Za-z0-9._!$,~*'();&+=-]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])*")
_URL_PART_COLON = re.compile(r"(?:[A-Za-z0-9._!$,~*'();&+=:-]|%[0-9A-Fa-f]{2}|[^\x00-\x7f])*")


def link_problem(url: str, http_only: bool = False, https_only: bool = False) -> str | None:
    """Why Telegram will not take `url` as a link, in TDLib's words (LinkManager::check_link_impl
    and parse_url: http://, https://, no scheme at all for an http host with a dot, tg:, ton:,
    tonsite:), or None."""
    scheme = _SCHEME.match(url)
    if scheme and scheme.group(1).lower() not in ("http", "https", "tg", "ton", "tonsite"):
        # TDLib would read "mailto:a@b.c" as the http link of user "mailto:a" at host "b.c",
        # and refuses ftp://, javascript: and the rest: the fake refuses every other scheme.
        return "Unsupported URL protocol"
    link, special = url, ""
    for prefix in ("tg:", "ton:", "tonsite:"):
        if link.lower().startswith(prefix):
            link, special = link[len(prefix) :], prefix[:-1]
            break
    if special and link.startswith("//"):
        link = link[2:]
    protocol = "http"
    head = re.match(r"[^:/?#@\[\]]*", link)
    rest = link
    if head is not None and link[head.end() :].startswith("://"):
        protocol = head.group(0).lower()
        if protocol not in ("http", "https"):
            return "Unsupported URL protocol"
        rest = link[head.end() + 3 :]
    hostport = re.split(r"[/?#]", rest, maxsplit=1)[0]
    cut = max(hostport.rfind(":"), hostport.rfind("]"), hostport.rfind("@"))
    port = 0
    if cut > 0 and hostport[cut] == ":":
        digits = hostport[cut + 1 :].lstrip("0") or hostport[cut + 1 :][-1:]
        if not (digits.isascii() and digits.isdigit()) or not 0 < int(digits) <= 65535:
            return "Wrong port number specified in the URL"
        port = int(digits)
        hostport = hostport[:cut]
    userinfo, _, host = hostport.rpartition("@")
    ipv6 = host.startswith("[") and host.endswith("]") and len(host) > 1
    if not host:
        return "URL host is empty"
    if host == ".":
        return "Host is invalid"
    if not ipv6:
        for part, name, pattern in (
            (host.lower(), "host", _URL_PART),
            (userinfo, "userinfo", _URL_PART_COLON),
        ):
            if not pattern.fullmatch(part):
                if re.search(r"%(?![0-9A-Fa-f]{2})", part):
                    return f"Wrong percent-encoded symbol in URL {name}"
                return f"Disallowed character in URL {name}"
    if https_only and (protocol != "https" or special):
        return "Only HTTPS links are allowed"
    if special:
        if http_only:
            return "Only HTTP links are allowed"
        if link.lower().startswith("http://") or protocol == "https" or userinfo or port or ipv6:
            return "Wrong tg URL" if special == "tg" else "Wrong ton URL"
        allowed = "-_." if special == "tonsite" else "-_"
        if not all((c.isascii() and c.isalnum()) or c in allowed for c in host):
            return "Unallowed characters in URL host"
        return None
    if "." not in host and not ipv6:
        return "Wrong HTTP URL"
    return None


# -- inline keyboards (#inlinekeyboardmarkup, #inlinekeyboardbutton) ----------------------------
# "Exactly one of the fields other than text, icon_custom_emoji_id, and style must be used to
# specify the type of the button" (#inlinekeyboardbutton; `disabled`, a DisabledButton, since
# Bot API 10.3).
BUTTON_TYPES = (
    "url", "callback_data", "web_app", "login_url", "switch_inline_query",
    "switch_inline_query_current_chat", "switch_inline_query_chosen_chat", "copy_text",
    "callback_game", "pay", "disabled",
)  # fmt: skip
BUTTON_STYLES = ("danger", "success", "primary")  # #inlinekeyboardbutton `style` (Bot API 9.4)
# Not documented; what Telegram answers past them ("reply markup is too long", the server's
# REPLY_MARKUP_TOO_LONG as telegram-bot-api words it) was measured by users: 100 buttons, 8 a
# row (https://github.com/tginfo/Telegram-Limits/issues/228). TDLib itself keeps at most 12 a
# row and 300 in all, silently.
MAX_BUTTONS = 100
MAX_ROW = 8


def _button_error(message: str) -> ApiError:
    return bad(f"can't parse inline keyboard button: {message}")


def check_keyboard(markup: Any, chat: str = "private") -> None:
    """An inline keyboard (`reply_markup`) sent to a chat of type `chat` ("private", "group",
    "supergroup"): Telegram's checks, and the documented ones it does not make."""
    if markup is None:
        return
    if isinstance(markup, str):
        try:
            markup = json.loads(markup)
        except ValueError:
            raise bad("Can't parse reply keyboard markup JSON object") from None
    if not isinstance(markup, dict):
        raise bad("Object expected as reply markup")
    rows = markup.get("inline_keyboard")
    if rows is None:
        return  # (a reply keyboard or its removal: the bot sends none, the fake checks none)
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad('Field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    if sum(len(row) for row in rows) > MAX_BUTTONS or any(len(row) > MAX_ROW for row in rows):
        raise bad("reply markup is too long")
    for row in rows:
        for button in row:
            check_button(button, chat)


def check_button(button: Any, chat: str) -> None:
    if not isinstance(button, dict):
        raise _button_error("InlineKeyboardButton must be an Object")
    text = button.get("text")
    if text is None:
        raise _button_error('Can\'t find field "text"')
    if not isinstance(text, str):
        raise _button_error('Field "text" must be of type String')
    if not text:
        # (TDLib drops a button of no text and no icon without a word; it refuses one with an
        # icon so. The fake refuses both: a button that vanishes is a bug.)
        raise bad("Inline keyboard button text must be non-empty")
    style = button.get("style")
    if style is not None and style not in BUTTON_STYLES:
        # (telegram-bot-api takes any case and "default" as well: undocumented, refused here)
        raise _button_error("invalid button style specified")
    # An empty url or callback_data counts as none (get_inline_keyboard_button_type).
    kinds = [k for k in BUTTON_TYPES if k in button and button[k] not in ("", None)]
    if not kinds:
        raise _button_error("Text buttons are unallowed in the inline keyboard")
    if len(kinds) > 1:
        # (telegram-bot-api takes the first it looks for and ignores the others)
        raise _button_error(
            f"the documentation says exactly one of the fields {', '.join(BUTTON_TYPES)} must be"
            f" used (#inlinekeyboardbutton); this button has {', '.join(kinds)}"
        )
    kind = kinds[0]
    value = button[kind]
    if kind == "callback_data":
        # #inlinekeyboardbutton: "Data to be sent in a callback query to the bot when the button
        # is pressed, 1-64 bytes"; the server's refusal, unchanged.
        if not isinstance(value, str) or len(value.encode("utf-8", "surrogatepass")) > 64:
            raise bad("BUTTON_DATA_INVALID")
    elif kind == "url":
        if not isinstance(value, str):
            raise _button_error('Field "url" must be of type String')
        if not _user_link(value):
            problem = link_problem(value)
            if problem is not None:
                raise bad(f"Inline keyboard button URL '{value}' is invalid: {problem}")
    elif kind in ("web_app", "login_url"):
        url = value.get("url") if isinstance(value, dict) else None
        if not isinstance(url, str):
            raise _button_error('Can\'t find field "url"')
        # An https link (TDLib check_link(url, http_only, https_only off the test servers))
        problem = link_problem(url, http_only=True, https_only=True)
        name = "Web App" if kind == "web_app" else "login"
        if problem is not None:
            raise bad(f"Inline keyboard button {name} URL '{url}' is invalid: {problem}")
        if kind == "web_app" and chat != "private":
            # #inlinekeyboardbutton web_app: "Available only in private chats between a user
            # and the bot"; the server's refusal elsewhere.
            raise bad("BUTTON_TYPE_INVALID")
    elif kind == "copy_text":
        copied = value.get("text") if isinstance(value, dict) else None
        # #copytextbutton: "The text to be copied to the clipboard; 1-256 characters"
        if not isinstance(copied, str) or not 1 <= len(copied) <= 256:
            raise _button_error('Field "text" of CopyTextButton must be 1-256 characters')
    elif kind == "disabled":
        if not isinstance(value, dict):  # #disabledbutton: "Currently holds no information"
            raise _button_error('Field "disabled" must be of type Object')
    elif kind in ("callback_game", "pay"):
        # #inlinekeyboardbutton: a game's button goes "in the first row" of sendGame's message,
        # pay "can only be used in invoice messages": the fake sends neither.
        raise _button_error(f"{kind} buttons belong to games and invoices, which the fake lacks")
    elif kind.startswith("switch_inline_query"):
        if kind == "switch_inline_query_chosen_chat" and not isinstance(value, dict):
            raise _button_error(f'Field "{kind}" must be of type Object')
        if kind != "switch_inline_query_chosen_chat" and not isinstance(value, str):
            raise _button_error(f'Field "{kind}" must be of type String')


def _user_link(url: str) -> bool:
    """tg://user?id=<id> (#formatting-options): a button to a user, not a link."""
    return re.fullmatch(r"(?i:tg:(?://)?user\?id=)[1-9][0-9]{0,15}", url) is not None


# -- setMyCommands (#setmycommands, #botcommand, #botcommandscope) ------------------------------
MAX_COMMANDS = 100  # #setmycommands: "At most 100 commands can be specified."
_COMMAND = re.compile(r"[a-z0-9_]{1,32}")  # #botcommand: "1-32 characters. Can contain only
# lowercase English letters, digits and underscores."
_SCOPES = {
    "default": (), "all_private_chats": (), "all_group_chats": (),
    "all_chat_administrators": (), "chat": ("chat_id",),
    "chat_administrators": ("chat_id",), "chat_member": ("chat_id", "user_id"),
}  # fmt: skip


def _command_error(message: str) -> ApiError:
    return bad(f"can't parse BotCommand: {message}")


def check_commands(
    commands: Any, scope: Any = None, language_code: str | None = None
) -> list[dict[str, Any]]:
    """setMyCommands' parameters, as sent (JSON text or objects); the commands."""
    if isinstance(commands, str):
        try:
            commands = json.loads(commands)
        except ValueError:
            raise bad("Can't parse commands JSON object") from None
    if commands is None:
        commands = []
    if not isinstance(commands, list):
        raise bad("Expected an Array of BotCommand")
    check_scope(scope)
    # #setmycommands language_code: "A two-letter ISO 639-1 language code. If empty, ..."
    # (TDLib validate_bot_language_code: empty, or two letters a-z)
    if language_code and not re.fullmatch(r"[a-z]{2}", language_code):
        raise bad("Invalid language code specified")
    if len(commands) > MAX_COMMANDS:
        raise bad("BOT_COMMANDS_TOO_MUCH")  # the server's refusal, unchanged
    seen: set[str] = set()
    for command in commands:
        if not isinstance(command, dict):
            raise _command_error("expected an Object")
        for name in ("command", "description"):
            if name not in command:
                raise _command_error(f'Can\'t find field "{name}"')
            if not isinstance(command[name], str):
                raise _command_error(f'Field "{name}" must be of type String')
        # #botcommand is_ephemeral (Bot API 10.2): "Optional. Pass True if the command is
        # ephemeral"
        if "is_ephemeral" in command and not isinstance(command["is_ephemeral"], bool):
            raise _command_error('Field "is_ephemeral" must be of type Boolean')
        name, description = command["command"], command["description"].strip()
        if not name.strip():
            raise bad("Command must be non-empty")  # BotCommand.cpp set_commands
        if len(name.strip().removeprefix("/")) > 32:
            raise bad("Command length must not exceed 32")
        if not _COMMAND.fullmatch(name):
            # The server's refusal of a command it cannot take (TDLib trims it and cuts a
            # leading '/' first; the documented form is refused here as it is written)
            raise bad("BOT_COMMAND_INVALID")
        if not description:
            raise bad("Command description must be non-empty")
        if len(description) > 256:  # #botcommand description: "1-256 characters"
            raise bad("Command description length must not exceed 256")
        if name in seen:
            # Not documented, nor found in TDLib: a list with the same command twice is
            # refused as the server refuses a command it cannot take (wording unverified).
            raise bad("BOT_COMMAND_INVALID")
        seen.add(name)
    return commands


def check_scope(scope: Any) -> None:
    """A BotCommandScope (#botcommandscope; Client::get_bot_command_scope's words)."""
    if scope is None or scope == "":
        return
    if isinstance(scope, str):
        try:
            scope = json.loads(scope)
        except ValueError:
            raise bad("Can't parse BotCommandScope JSON object") from None
    if not isinstance(scope, dict):
        raise bad("can't parse BotCommandScope: BotCommandScope must be an Object")
    kind = scope.get("type")
    if not isinstance(kind, str):
        raise bad("can't parse BotCommandScope: Can't find field \"type\"")
    if kind not in _SCOPES:
        raise bad("can't parse BotCommandScope: Unsupported type specified")
    for name in _SCOPES[kind]:
        if scope.get(name) in (None, ""):
            raise bad(f"can't parse BotCommandScope: Can't find field \"{name}\"")
    if kind == "chat_member" and not (isinstance(scope["user_id"], int) and scope["user_id"] > 0):
        raise bad("can't parse BotCommandScope: Invalid user_id specified")
