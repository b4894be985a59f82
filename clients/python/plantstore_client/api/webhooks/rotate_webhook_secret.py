from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.new_webhook_secret import NewWebhookSecret
from ...types import Response


def _get_kwargs(
    id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/webhooks/{id}/secret".format(
            id=quote(str(id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | NewWebhookSecret | None:
    if response.status_code == 200:
        response_200 = NewWebhookSecret.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Error.from_dict(response.json())

        return response_403

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
) -> Response[Error | NewWebhookSecret]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | NewWebhookSecret]:
    """Give a webhook endpoint a new secret; the old one still signs for a while.

     For PLANTSTORE_WEBHOOK_SECRET_OVERLAP seconds (a day by default) every attempt carries two
    signatures, the new secret's first, so that a receiver holding either verifies it; then
    only the new one. A secret replaced again within its overlap still signs until that overlap
    ends: three signatures at most, newest first. The new secret is in this answer only.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | NewWebhookSecret]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | NewWebhookSecret | None:
    """Give a webhook endpoint a new secret; the old one still signs for a while.

     For PLANTSTORE_WEBHOOK_SECRET_OVERLAP seconds (a day by default) every attempt carries two
    signatures, the new secret's first, so that a receiver holding either verifies it; then
    only the new one. A secret replaced again within its overlap still signs until that overlap
    ends: three signatures at most, newest first. The new secret is in this answer only.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | NewWebhookSecret
    """

    return sync_detailed(
        id=id,
        client=client,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[Error | NewWebhookSecret]:
    """Give a webhook endpoint a new secret; the old one still signs for a while.

     For PLANTSTORE_WEBHOOK_SECRET_OVERLAP seconds (a day by default) every attempt carries two
    signatures, the new secret's first, so that a receiver holding either verifies it; then
    only the new one. A secret replaced again within its overlap still signs until that overlap
    ends: three signatures at most, newest first. The new secret is in this answer only.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | NewWebhookSecret]
    """

    kwargs = _get_kwargs(
        id=id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Error | NewWebhookSecret | None:
    """Give a webhook endpoint a new secret; the old one still signs for a while.

     For PLANTSTORE_WEBHOOK_SECRET_OVERLAP seconds (a day by default) every attempt carries two
    signatures, the new secret's first, so that a receiver holding either verifies it; then
    only the new one. A secret replaced again within its overlap still signs until that overlap
    ends: three signatures at most, newest first. The new secret is in this answer only.

    Args:
        id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | NewWebhookSecret
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
        )
    ).parsed
