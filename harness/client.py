"""A plain HTTP client for the servers the harness starts, one fresh connection a request."""

import http.client
import json
import socket

# What a request to a server that is killed or stopped can raise.
CONNECTION_ERRORS = (OSError, http.client.HTTPException)


class Response:
    """Status, headers and decoded body of one HTTP exchange."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        """The body parsed as JSON."""
        return json.loads(self.body)


def http_request(port, method, path, body=None, headers=None, source="127.0.0.1"):
    """One HTTP request on a fresh connection from source; a dict or list body is sent as JSON."""
    headers = dict(headers or {})
    if isinstance(body, (dict, list)):
        body = json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        chunked = headers.get("Transfer-Encoding") == "chunked"
        conn.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = conn.getresponse()
        return Response(response.status, response.headers, response.read())
    finally:
        conn.close()


def raw_exchange(port, data, half_close=True, timeout=30):
    """Send data as it is on a fresh connection, half-close it if told, and read one answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        response = http.client.HTTPResponse(sock)
        response.begin()
        return Response(response.status, response.headers, response.read())
