from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.stored_plant import StoredPlant
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
    tag: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["after"] = after

    params["tag"] = tag

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/plants",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | list[StoredPlant] | None:
    if response.status_code == 200:
        response_200 = []
        _response_200 = response.json()
        for response_200_item_data in _response_200:
            response_200_item = StoredPlant.from_dict(response_200_item_data)

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
) -> Response[Error | list[StoredPlant]]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
    tag: str | Unset = UNSET,
) -> Response[Error | list[StoredPlant]]:
    """List plants by ascending id, a page at a time, all of them or those of one tag.

     At most `limit` plants whose id is above `after`; with `tag`, only those whose tag is
    exactly it, at the cost of an unfiltered page however rare the tag. Follow the `Link`
    header's `rel="next"` URL, which keeps the filter, until there is none: plants created or
    deleted meanwhile never make a page skip or repeat one. A parameter given twice is a 400.

    Args:
        limit (int | Unset):  Default: 100.
        after (int | Unset):
        tag (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[StoredPlant]]
    """

    kwargs = _get_kwargs(
        limit=limit,
        after=after,
        tag=tag,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
    tag: str | Unset = UNSET,
) -> Error | list[StoredPlant] | None:
    """List plants by ascending id, a page at a time, all of them or those of one tag.

     At most `limit` plants whose id is above `after`; with `tag`, only those whose tag is
    exactly it, at the cost of an unfiltered page however rare the tag. Follow the `Link`
    header's `rel="next"` URL, which keeps the filter, until there is none: plants created or
    deleted meanwhile never make a page skip or repeat one. A parameter given twice is a 400.

    Args:
        limit (int | Unset):  Default: 100.
        after (int | Unset):
        tag (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[StoredPlant]
    """

    return sync_detailed(
        client=client,
        limit=limit,
        after=after,
        tag=tag,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
    tag: str | Unset = UNSET,
) -> Response[Error | list[StoredPlant]]:
    """List plants by ascending id, a page at a time, all of them or those of one tag.

     At most `limit` plants whose id is above `after`; with `tag`, only those whose tag is
    exactly it, at the cost of an unfiltered page however rare the tag. Follow the `Link`
    header's `rel="next"` URL, which keeps the filter, until there is none: plants created or
    deleted meanwhile never make a page skip or repeat one. A parameter given twice is a 400.

    Args:
        limit (int | Unset):  Default: 100.
        after (int | Unset):
        tag (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | list[StoredPlant]]
    """

    kwargs = _get_kwargs(
        limit=limit,
        after=after,
        tag=tag,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    limit: int | Unset = 100,
    after: int | Unset = UNSET,
    tag: str | Unset = UNSET,
) -> Error | list[StoredPlant] | None:
    """List plants by ascending id, a page at a time, all of them or those of one tag.

     At most `limit` plants whose id is above `after`; with `tag`, only those whose tag is
    exactly it, at the cost of an unfiltered page however rare the tag. Follow the `Link`
    header's `rel="next"` URL, which keeps the filter, until there is none: plants created or
    deleted meanwhile never make a page skip or repeat one. A parameter given twice is a 400.

    Args:
        limit (int | Unset):  Default: 100.
        after (int | Unset):
        tag (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | list[StoredPlant]
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            after=after,
            tag=tag,
        )
    ).parsed
