from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.webhook_endpoint import WebhookEndpoint
from ...models.webhook_endpoint_change import WebhookEndpointChange
from ...types import Response


def _get_kwargs(
    id: str,
    *,
    body: WebhookEndpointChange,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/webhooks/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | WebhookEndpoint | None:
    if response.status_code == 200:
        response_200 = WebhookEndpoint.from_dict(response.json())

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
) -> Response[Error | WebhookEndpoint]:
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
    body: WebhookEndpointChange,
) -> Response[Error | WebhookEndpoint]:
    """Change any of a webhook endpoint's settings, each as its field says.

     `enabled: false` disables it: it gets no new events, and its pending deliveries fail, to
    be recovered once it is enabled again. `enabled: true` enables it and clears
    `disabled_reason`. A new url is checked as at registration. A new `throttle_rate` paces
    its attempts within a second, those already pending too; `null` lifts it. A new `payload`
    holds for every attempt from then on, a pending delivery's next one and a resend's too.
    Unknown keys are refused.

    Args:
        id (str):
        body (WebhookEndpointChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookEndpoint]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: WebhookEndpointChange,
) -> Error | WebhookEndpoint | None:
    """Change any of a webhook endpoint's settings, each as its field says.

     `enabled: false` disables it: it gets no new events, and its pending deliveries fail, to
    be recovered once it is enabled again. `enabled: true` enables it and clears
    `disabled_reason`. A new url is checked as at registration. A new `throttle_rate` paces
    its attempts within a second, those already pending too; `null` lifts it. A new `payload`
    holds for every attempt from then on, a pending delivery's next one and a resend's too.
    Unknown keys are refused.

    Args:
        id (str):
        body (WebhookEndpointChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookEndpoint
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: WebhookEndpointChange,
) -> Response[Error | WebhookEndpoint]:
    """Change any of a webhook endpoint's settings, each as its field says.

     `enabled: false` disables it: it gets no new events, and its pending deliveries fail, to
    be recovered once it is enabled again. `enabled: true` enables it and clears
    `disabled_reason`. A new url is checked as at registration. A new `throttle_rate` paces
    its attempts within a second, those already pending too; `null` lifts it. A new `payload`
    holds for every attempt from then on, a pending delivery's next one and a resend's too.
    Unknown keys are refused.

    Args:
        id (str):
        body (WebhookEndpointChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | WebhookEndpoint]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    body: WebhookEndpointChange,
) -> Error | WebhookEndpoint | None:
    """Change any of a webhook endpoint's settings, each as its field says.

     `enabled: false` disables it: it gets no new events, and its pending deliveries fail, to
    be recovered once it is enabled again. `enabled: true` enables it and clears
    `disabled_reason`. A new url is checked as at registration. A new `throttle_rate` paces
    its attempts within a second, those already pending too; `null` lifts it. A new `payload`
    holds for every attempt from then on, a pending delivery's next one and a resend's too.
    Unknown keys are refused.

    Args:
        id (str):
        body (WebhookEndpointChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | WebhookEndpoint
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
        )
    ).parsed
