"""Answers as receivers send them, made by hypothesis for the sender's differential judge: every
framing (Content-Length, chunked, neither, both, short), `Connection: close` and `keep-alive` in
headers and trailers, HTTP/1.0 and 1.1, 0 to 7 interim answers, chunk extensions tiny and of
70 KB, heads, bodies and the bytes that are not body on both sides of 65536, bodies on both
sides of the 1024 bytes an attempt keeps, bare LF and CRLF, lenient forms, strays after the
answer, and each answer's bytes cut at random."""

import dataclasses
import itertools

from hypothesis import strategies as st

# The limits (docs/webhooks.md, issue 57): the head that fails an attempt, the body and the
# bytes that are not body that a connection kept for the next request may have carried.
LIMIT = 65536
# The first bytes of a body that an attempt gives with its status (CONTRACT.md, Delivery).
KEPT = 1024
# Strategies made once: hypothesis validates each new one, and caches none made of a list.
ENDS = st.sampled_from((b"\r\n", b"\n"))
# Header lines as receivers send them, well formed, lenient (aiohttp accepts) or refused.
HEADERS = st.lists(
    st.sampled_from(
        (
            b"Server: receiver",
            b"X-Note:",
            b"X-Note: a\tb",
            b"X-Note: a\x01b",
            b"X-Note: caf\xc3\xa9",
            b"Retry-After: 5",
            b"Retry-After:  7 ",
            b"Retry-After: Wed, 21 Oct 2015 07:28:00 GMT",
            b"X-Note : spaced",
            b"Content-Length: x",
            b"X-Folded: a{end} b",
        )
    ),
    max_size=3,
)
INTERIM = st.tuples(
    st.sampled_from((b"HTTP/1.1 100 Continue", b"HTTP/1.1 103 Early Hints")),
    st.lists(st.sampled_from((b"Link: </a.css>; rel=preload", b"Retry-After: 9")), max_size=2),
)
STATUS = st.tuples(
    st.sampled_from((200, 201, 204, 301, 304, 400, 404, 410, 429, 500, 503)),
    st.sampled_from((b" Reason", b" ", b"")),
)
CONNECTION = (b"Connection: close", b"Connection: keep-alive", b"connection: CLOSE")
TRAILERS = st.lists(
    st.sampled_from((b"X-Trailer: t", b"Retry-After: 3000", *CONNECTION)), max_size=3
)
STRAYS = st.sampled_from(
    (
        b"HTTP/1.1 200 OK{end}X-Stray: ",
        b"HTTP/1.1 204 No Content{end}{end}",
        b"{end}",
        b"\r",
        b"\n",
        b"\x00junk",
    )
)
SIZES = st.sampled_from((b"%x", b"%X", b"%x;ext=1", b"%x  "))
LONG_EXTENSION = b";e=" + b"a" * 70_000
FRAMINGS = st.sampled_from(("length", "chunked", "none", "length and chunked", "short"))
# A few bytes either side of a limit, one byte either side or at it most often.
NEAR = st.integers(-1, 1) | st.integers(-4, 4)
STEPS = st.sampled_from((0, 1000, 16384, 65535))
# A small body: empty as often as not (hypothesis would make most of them empty).
SMALL = st.just(b"") | st.binary(min_size=1, max_size=40)


@dataclasses.dataclass(frozen=True)
class Answer:
    """What a receiver sends for one request: data (a stray after the answer included), cut
    into pieces, then closes or not; trailers are the trailer lines its chunked body carries."""

    data: bytes
    cuts: tuple
    closes: bool
    trailers: tuple

    def pieces(self):
        """data in pieces, cut at self.cuts."""
        bounds = [0, *self.cuts, len(self.data)]
        return [self.data[start:stop] for start, stop in itertools.pairwise(bounds)]

    def __repr__(self):
        # Runs of one byte written as their count: hypothesis prints examples of 200 KB.
        return f"Answer({_short(self.data)}, cuts={self.cuts}, closes={self.closes})"

    def _repr_pretty_(self, printer, cycle):
        """hypothesis's printer: the repr above, not a dataclass's fields."""
        printer.text(repr(self))


def _short(data):
    parts, literal, at = [], b"", 0
    while at < len(data):
        stop = at + 1
        while stop < len(data) and data[stop] == data[at]:
            stop += 1
        if stop - at > 16:
            parts += [repr(literal)] if literal else []
            parts.append(f"{data[at : at + 1]!r} * {stop - at}")
            literal = b""
        else:
            literal += data[at:stop]
        at = stop
    return " + ".join([*parts, repr(literal)] if literal or not parts else parts)


def _rarely(draw, times):
    """True once in times draws: an answer has few features that keep or end its connection
    otherwise, so that most answers test the one they have (shrunk to False)."""
    return draw(st.integers(0, times - 1)) == times - 1


def _lines(lines, end):
    return b"".join(line.replace(b"{end}", end) + end for line in lines)


def _padding(size, end, count):
    """count header lines of size bytes in all, ends included (fewer when size is too small)."""
    overhead = len(b"X-Pad: ") + len(end)
    count = max(1, min(count, size // (overhead + 1)))
    values = [(size - count * overhead) // count] * count
    values[0] += size - count * overhead - sum(values)
    return [b"X-Pad: " + b"a" * max(0, value) for value in values]


def _size_line(draw, size):
    line = draw(SIZES) % size
    return line + LONG_EXTENSION if _rarely(draw, 8) else line


@dataclasses.dataclass(frozen=True)
class Body:
    """A body as framed: its bytes, the head's framing headers, and when chunked, its chunks,
    its last chunk's size line, its trailers and the end of its lines."""

    body: bytes
    headers: list
    chunks: bytes
    last: bytes = b""
    trailers: tuple = ()
    end: bytes = b""

    def sent(self, extension=b"", trailer=()):
        """The bytes sent, the last chunk's line and the trailers lengthened when chunked."""
        if not self.end:
            return self.chunks
        ending = self.last + extension + self.end + _lines([*self.trailers, *trailer], self.end)
        return self.chunks + ending + self.end


@st.composite
def bodies(draw):
    """A Body framed one way or another, of a few bytes, near the bytes kept, or near the
    limit."""
    if not _rarely(draw, 3):
        body = draw(SMALL)
    elif draw(st.booleans()):  # every byte value in turn: where a piece is cut shows
        body = (bytes(range(256)) * 5)[: KEPT + draw(NEAR)]
    else:  # one byte repeated: hypothesis prints it short
        body = draw(st.binary(min_size=1, max_size=1)) * (LIMIT + draw(NEAR))
    framing = "chunked" if draw(st.booleans()) else draw(FRAMINGS)
    if framing == "length":
        return Body(body, [b"Content-Length: %d" % len(body)], body)
    if framing == "short":
        return Body(body, [b"Content-Length: %d" % (len(body) + draw(st.integers(1, 3)))], body)
    if framing == "none":
        return Body(body, [], body)
    headers = [b"Transfer-Encoding: chunked"]
    if framing == "length and chunked":
        headers.append(b"Content-Length: %d" % len(body))
    end = draw(ENDS)
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=3)))
    chunks = b""
    for start, stop in zip([0, *cuts], [*cuts, len(body)], strict=True):
        if stop > start:
            chunks += _size_line(draw, stop - start) + end + body[start:stop] + end
    last = _size_line(draw, 0)
    trailers = tuple(draw(TRAILERS))
    return Body(body, headers, chunks, last, trailers, end)


@st.composite
def heads(draw, end, framing, after):
    """The head of an answer: leading blank lines, interim answers, the final status line and
    headers; its size natural, or it or the whole answer (after: the bytes after the head) near
    the limit or past it by far (padding in the final head or an interim's)."""
    lead = end * draw(st.integers(0, 2))
    sections = []
    for _ in range(draw(st.integers(0, 7))):
        status, headers = draw(INTERIM)
        sections.append([status, *headers])
    version = b"HTTP/1.0" if _rarely(draw, 4) else b"HTTP/1.1"
    status, reason = draw(STATUS)
    headers = draw(HEADERS) + framing
    headers += [draw(st.sampled_from(CONNECTION))] if _rarely(draw, 3) else []
    headers = list(draw(st.permutations(headers)))
    sections.append([version + b" %d" % status + reason, *headers])
    if _rarely(draw, 3):
        target = LIMIT + (5000 if _rarely(draw, 4) else draw(NEAR)) - after * draw(st.booleans())
        padded = draw(st.integers(0, len(sections) - 1)) if draw(st.booleans()) else -1
        size = target - len(lead) - sum(len(_lines(each, end) + end) for each in sections)
        sections[padded] += _padding(size, end, draw(st.sampled_from((1, 2, 64))))
    return lead + b"".join(_lines(each, end) + end for each in sections)


@st.composite
def answers(draw):
    """An Answer: a head, a framed body, at times the bytes that are not body brought near the
    limit (by a chunk extension or a trailer), at times a stray, at times cut short (the
    receiver closes before its end); split into reads as by cuts()."""
    end = draw(ENDS)
    body = draw(bodies())
    sent = body.sent()
    head = draw(heads(end, body.headers, len(sent)))
    if body.end and _rarely(draw, 3):
        size = LIMIT + draw(NEAR) - (len(head) + len(sent) - len(body.body))
        if draw(st.booleans()) and size > 3:
            sent = body.sent(extension=b";p=" + b"a" * (size - 3))
        elif size > len(b"X-Pad: ") + len(body.end):
            sent = body.sent(trailer=_padding(size, body.end, 1))
    stray = draw(STRAYS) if _rarely(draw, 3) else b""
    data = head + sent + stray.replace(b"{end}", end)
    if _rarely(draw, 6):
        data = data[: draw(st.integers(1, len(data)) | st.sampled_from((LIMIT + 1, len(head) - 1)))]
    cuts = draw(splits(len(data), (LIMIT - 1, LIMIT, LIMIT + 1, len(head) - 1, len(head))))
    return Answer(data, cuts, _rarely(draw, 4), body.trailers)


@st.composite
def splits(draw, size, marks):
    """Where bytes of size are cut into reads: at random, at marks (near the limit and the
    head's end), and at times every so many bytes, as a network gives them (so that a line
    longer than the limit spans reads)."""
    cuts = st.integers(1, max(1, size - 1)) | st.sampled_from(marks)
    chosen = set(draw(st.lists(cuts, max_size=6)))
    step = draw(STEPS)
    if step:
        chosen.update(range(draw(st.integers(1, step)), size, step))
    return tuple(sorted(cut for cut in chosen if 0 < cut < size))
