"""The sender's reading of answers judged against two well-kept HTTP clients and the contract.

hypothesis makes answers (support/differential_answers.py: every framing, `Connection: close`
and `keep-alive` in headers and trailers, HTTP/1.0 and 1.1, interim answers, heads, bodies and
framing on both sides of 64 KiB, bare LF, lenient forms, strays), several on one connection, cut
at random; a receiver writes them piece by piece to the sender's real Connection on a socket
pair. Each attempt's outcome, (its answer with the first 1024 bytes of its body, whether the
head limit failed it, whether its connection may carry the next request), must be what aiohttp's
client reads of the same bytes, with h11's word on reuse where h11 reads them, except where the
contract decides otherwise: the 64 KiB head limit, the cap of 5 interim answers, HTTP/1.0 and a
`Connection: close` trailer closing, strays closing, the 64 KiB body and framing a kept
connection may have carried, and framing past 64 KiB ending the body read
(support/differential_contract.py, a function per rule, named in a failure).

PLANTSTORE_DIFFERENTIAL_EXAMPLES sets how many runs hypothesis makes (default 1500)."""

import os

import uvloop
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.differential_answers import answers
from support.differential_contract import expected
from support.differential_wire import connection_reads

EXAMPLES = int(os.environ.get("PLANTSTORE_DIFFERENTIAL_EXAMPLES", "1500"))


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(answers(), min_size=1, max_size=3))
def test_answers_are_read_as_http_clients_read_them(made):
    read = uvloop.run(connection_reads(made))
    for number, (answer, outcome) in enumerate(zip(made, read, strict=True)):
        judged, rules = expected(answer)
        assert outcome == judged, (
            f"answer {number}: {answer!r}\nread as {outcome}\nexpected {judged}, rules: {rules}"
        )
