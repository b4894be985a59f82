from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.catalog_entry import CatalogEntry
from ...models.error import Error
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/event-types",
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | list[CatalogEntry] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = CatalogEntry.from_dict(response_200_item_data)

            response_200.append(response_200_item)

        return response_200

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 405:
        response_405 = Error.from_dict(response.json())

        return response_405

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Error | list[CatalogEntry]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | list[CatalogEntry]]:
    """List the event types: what each means, and the JSON Schema of its data.

     One entry per type that a change writes to the events feed and that webhooks deliver. Its
    `schema` (JSON Schema, draft 2020-12) describes the type's data: the whole body of a
    delivery under the payload `plant`, and the `data` of an event in the feed, or of a
    delivery under `event`. It refuses what the service never sends: an unknown key, a wrong
    type. The catalog changes only with a new version of the service.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[CatalogEntry]]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
) -> Error | list[CatalogEntry] | None:
    """List the event types: what each means, and the JSON Schema of its data.

     One entry per type that a change writes to the events feed and that webhooks deliver. Its
    `schema` (JSON Schema, draft 2020-12) describes the type's data: the whole body of a
    delivery under the payload `plant`, and the `data` of an event in the feed, or of a
    delivery under `event`. It refuses what the service never sends: an unknown key, a wrong
    type. The catalog changes only with a new version of the service.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[CatalogEntry]
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | list[CatalogEntry]]:
    """List the event types: what each means, and the JSON Schema of its data.

     One entry per type that a change writes to the events feed and that webhooks deliver. Its
    `schema` (JSON Schema, draft 2020-12) describes the type's data: the whole body of a
    delivery under the payload `plant`, and the `data` of an event in the feed, or of a
    delivery under `event`. It refuses what the service never sends: an unknown key, a wrong
    type. The catalog changes only with a new version of the service.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[CatalogEntry]]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
) -> Error | list[CatalogEntry] | None:
    """List the event types: what each means, and the JSON Schema of its data.

     One entry per type that a change writes to the events feed and that webhooks deliver. Its
    `schema` (JSON Schema, draft 2020-12) describes the type's data: the whole body of a
    delivery under the payload `plant`, and the `data` of an event in the feed, or of a
    delivery under `event`. It refuses what the service never sends: an unknown key, a wrong
    type. The catalog changes only with a new version of the service.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[CatalogEntry]
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
