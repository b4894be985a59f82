from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.event import Event
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    after: str | Unset = UNSET,
    types: str | Unset = UNSET,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["after"] = after

    params["types"] = types

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/events",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | list[Event] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = Event.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 405:
        response_405 = Error.from_dict(response.json())

        return response_405

    if response.status_code == 410:
        response_410 = Error.from_dict(response.json())

        return response_410

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | list[Event]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    types: str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[Error | list[Event]]:
    """Follow the events feed: every change, in order, a page at a time.

     At most `limit` events after the one named by `after` (from the oldest kept without it),
    of the listed `types` (every type by default). Follow the `Link` header's `rel="next"`
    URL, which every page carries, an empty one too, and again once it is empty: a follower
    sees each event exactly once, in the same order as every other reader, and an event
    committed after one written later is never skipped. Events are kept for
    PLANTSTORE_EVENT_RETENTION seconds: an `after` past which one was dropped is a 410, and the
    feed must be read again from its start; so is an `after` that the database the feed has
    moved to (a restore, a promoted replica) may never have seen.

    Args:
        after (str | Unset):
        types (str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[Event]]
    """

    kwargs = _get_kwargs(
        after=after,
        types=types,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    types: str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Error | list[Event] | None:
    """Follow the events feed: every change, in order, a page at a time.

     At most `limit` events after the one named by `after` (from the oldest kept without it),
    of the listed `types` (every type by default). Follow the `Link` header's `rel="next"`
    URL, which every page carries, an empty one too, and again once it is empty: a follower
    sees each event exactly once, in the same order as every other reader, and an event
    committed after one written later is never skipped. Events are kept for
    PLANTSTORE_EVENT_RETENTION seconds: an `after` past which one was dropped is a 410, and the
    feed must be read again from its start; so is an `after` that the database the feed has
    moved to (a restore, a promoted replica) may never have seen.

    Args:
        after (str | Unset):
        types (str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[Event]
    """

    return sync_detailed(
        client=client,
        after=after,
        types=types,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    types: str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Response[Error | list[Event]]:
    """Follow the events feed: every change, in order, a page at a time.

     At most `limit` events after the one named by `after` (from the oldest kept without it),
    of the listed `types` (every type by default). Follow the `Link` header's `rel="next"`
    URL, which every page carries, an empty one too, and again once it is empty: a follower
    sees each event exactly once, in the same order as every other reader, and an event
    committed after one written later is never skipped. Events are kept for
    PLANTSTORE_EVENT_RETENTION seconds: an `after` past which one was dropped is a 410, and the
    feed must be read again from its start; so is an `after` that the database the feed has
    moved to (a restore, a promoted replica) may never have seen.

    Args:
        after (str | Unset):
        types (str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[Event]]
    """

    kwargs = _get_kwargs(
        after=after,
        types=types,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    after: str | Unset = UNSET,
    types: str | Unset = UNSET,
    limit: int | Unset = 100,
) -> Error | list[Event] | None:
    """Follow the events feed: every change, in order, a page at a time.

     At most `limit` events after the one named by `after` (from the oldest kept without it),
    of the listed `types` (every type by default). Follow the `Link` header's `rel="next"`
    URL, which every page carries, an empty one too, and again once it is empty: a follower
    sees each event exactly once, in the same order as every other reader, and an event
    committed after one written later is never skipped. Events are kept for
    PLANTSTORE_EVENT_RETENTION seconds: an `after` past which one was dropped is a 410, and the
    feed must be read again from its start; so is an `after` that the database the feed has
    moved to (a restore, a promoted replica) may never have seen.

    Args:
        after (str | Unset):
        types (str | Unset):
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[Event]
    """

    return (
        await asyncio_detailed(
            client=client,
            after=after,
            types=types,
            limit=limit,
        )
    ).parsed
