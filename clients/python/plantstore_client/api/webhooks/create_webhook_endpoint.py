from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.created_webhook_endpoint import CreatedWebhookEndpoint
from ...models.error import Error
from ...models.new_webhook_endpoint import NewWebhookEndpoint
from ...types import Response


def _get_kwargs(
    *,
    body: NewWebhookEndpoint,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/webhooks",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CreatedWebhookEndpoint | Error | None:
    if response.status_code == 201:
        response_201 = CreatedWebhookEndpoint.from_dict(response.json())

        return response_201

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

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = Error.from_dict(response.json())

        return response_415

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
) -> Response[CreatedWebhookEndpoint | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewWebhookEndpoint,
) -> Response[CreatedWebhookEndpoint | Error]:
    """Register a webhook endpoint; its secret is in this answer only.

     The endpoint gets the events of `events` (every type by default) from now on, each signed
    with its own secret as Standard Webhooks says. Keep the secret: no other answer shows it.
    The url's host must be, and resolve to, public addresses, unless
    PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS allows them; a name that does not resolve yet is
    accepted. `throttle_rate` caps its attempts a second over every worker. `payload` chooses
    its bodies, the feed's Event (`event`) by default. Unknown keys are refused.

    Args:
        body (NewWebhookEndpoint):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhookEndpoint | Error]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: NewWebhookEndpoint,
) -> CreatedWebhookEndpoint | Error | None:
    """Register a webhook endpoint; its secret is in this answer only.

     The endpoint gets the events of `events` (every type by default) from now on, each signed
    with its own secret as Standard Webhooks says. Keep the secret: no other answer shows it.
    The url's host must be, and resolve to, public addresses, unless
    PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS allows them; a name that does not resolve yet is
    accepted. `throttle_rate` caps its attempts a second over every worker. `payload` chooses
    its bodies, the feed's Event (`event`) by default. Unknown keys are refused.

    Args:
        body (NewWebhookEndpoint):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhookEndpoint | Error
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: NewWebhookEndpoint,
) -> Response[CreatedWebhookEndpoint | Error]:
    """Register a webhook endpoint; its secret is in this answer only.

     The endpoint gets the events of `events` (every type by default) from now on, each signed
    with its own secret as Standard Webhooks says. Keep the secret: no other answer shows it.
    The url's host must be, and resolve to, public addresses, unless
    PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS allows them; a name that does not resolve yet is
    accepted. `throttle_rate` caps its attempts a second over every worker. `payload` chooses
    its bodies, the feed's Event (`event`) by default. Unknown keys are refused.

    Args:
        body (NewWebhookEndpoint):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreatedWebhookEndpoint | Error]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: NewWebhookEndpoint,
) -> CreatedWebhookEndpoint | Error | None:
    """Register a webhook endpoint; its secret is in this answer only.

     The endpoint gets the events of `events` (every type by default) from now on, each signed
    with its own secret as Standard Webhooks says. Keep the secret: no other answer shows it.
    The url's host must be, and resolve to, public addresses, unless
    PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS allows them; a name that does not resolve yet is
    accepted. `throttle_rate` caps its attempts a second over every worker. `payload` chooses
    its bodies, the feed's Event (`event`) by default. Unknown keys are refused.

    Args:
        body (NewWebhookEndpoint):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreatedWebhookEndpoint | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
