from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.delivery import Delivery
from ...models.error import Error
from ...models.list_deliveries_status import ListDeliveriesStatus
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: str,
    *,
    status: ListDeliveriesStatus | Unset = UNSET,
    limit: int | Unset = 100,
    before: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params["limit"] = limit

    params["before"] = before

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/webhooks/{id}/deliveries".format(
            id=quote(str(id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | list[Delivery] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = Delivery.from_dict(response_200_item_data)

            response_200.append(response_200_item)

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
) -> Response[Error | list[Delivery]]:
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
    status: ListDeliveriesStatus | Unset = UNSET,
    limit: int | Unset = 100,
    before: str | Unset = UNSET,
) -> Response[Error | list[Delivery]]:
    """List the deliveries of a webhook endpoint, newest first, a page at a time.

     Every delivery within the retention, or those in `status` alone; at most `limit` of them.
    Follow the `Link` header's `rel="next"` URL to older ones until there is none.

    Args:
        id (str):
        status (ListDeliveriesStatus | Unset):
        limit (int | Unset):  Default: 100.
        before (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[Delivery]]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        limit=limit,
        before=before,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    status: ListDeliveriesStatus | Unset = UNSET,
    limit: int | Unset = 100,
    before: str | Unset = UNSET,
) -> Error | list[Delivery] | None:
    """List the deliveries of a webhook endpoint, newest first, a page at a time.

     Every delivery within the retention, or those in `status` alone; at most `limit` of them.
    Follow the `Link` header's `rel="next"` URL to older ones until there is none.

    Args:
        id (str):
        status (ListDeliveriesStatus | Unset):
        limit (int | Unset):  Default: 100.
        before (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[Delivery]
    """

    return sync_detailed(
        id=id,
        client=client,
        status=status,
        limit=limit,
        before=before,
    ).parsed


async def asyncio_detailed(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    status: ListDeliveriesStatus | Unset = UNSET,
    limit: int | Unset = 100,
    before: str | Unset = UNSET,
) -> Response[Error | list[Delivery]]:
    """List the deliveries of a webhook endpoint, newest first, a page at a time.

     Every delivery within the retention, or those in `status` alone; at most `limit` of them.
    Follow the `Link` header's `rel="next"` URL to older ones until there is none.

    Args:
        id (str):
        status (ListDeliveriesStatus | Unset):
        limit (int | Unset):  Default: 100.
        before (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[Delivery]]
    """

    kwargs = _get_kwargs(
        id=id,
        status=status,
        limit=limit,
        before=before,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: str,
    *,
    client: AuthenticatedClient | Client,
    status: ListDeliveriesStatus | Unset = UNSET,
    limit: int | Unset = 100,
    before: str | Unset = UNSET,
) -> Error | list[Delivery] | None:
    """List the deliveries of a webhook endpoint, newest first, a page at a time.

     Every delivery within the retention, or those in `status` alone; at most `limit` of them.
    Follow the `Link` header's `rel="next"` URL to older ones until there is none.

    Args:
        id (str):
        status (ListDeliveriesStatus | Unset):
        limit (int | Unset):  Default: 100.
        before (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[Delivery]
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            status=status,
            limit=limit,
            before=before,
        )
    ).parsed
