from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.plant_change import PlantChange
from ...models.stored_plant import StoredPlant
from ...types import UNSET, Response, Unset


def _get_kwargs(
    id: int,
    *,
    body: PlantChange | PlantChange | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/plants/{id}".format(
            id=quote(str(id), safe=""),
        ),
    }

    if isinstance(body, PlantChange):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, PlantChange):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/merge-patch+json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Error | StoredPlant | None:
    if response.status_code == 200:
        response_200 = StoredPlant.from_dict(response.json())

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

    if response.status_code == 412:
        response_412 = Error.from_dict(response.json())

        return response_412

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


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Error | StoredPlant]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    body: PlantChange | PlantChange | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Error | StoredPlant]:
    """Change a plant's name or tag.

     Needs a read-write token. The body is a JSON Merge Patch (RFC 7396): `name` and `tag`
    replace the plant's, with the rules of a create, and a `tag` of null removes it; what is
    left out stays. An `id` equal to the path's is ignored, any other is refused; other keys
    are ignored. The answer is the plant as it now is, with its new version in `ETag`; a change
    that changes nothing keeps the version and announces nothing. With `If-Match`, the change
    is made only if the plant is still at that version: of concurrent changes from one
    version, exactly one is made and the others get 412.

    Args:
        id (int):
        if_match (str | Unset):
        body (PlantChange):
        body (PlantChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StoredPlant]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    body: PlantChange | PlantChange | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Error | StoredPlant | None:
    """Change a plant's name or tag.

     Needs a read-write token. The body is a JSON Merge Patch (RFC 7396): `name` and `tag`
    replace the plant's, with the rules of a create, and a `tag` of null removes it; what is
    left out stays. An `id` equal to the path's is ignored, any other is refused; other keys
    are ignored. The answer is the plant as it now is, with its new version in `ETag`; a change
    that changes nothing keeps the version and announces nothing. With `If-Match`, the change
    is made only if the plant is still at that version: of concurrent changes from one
    version, exactly one is made and the others get 412.

    Args:
        id (int):
        if_match (str | Unset):
        body (PlantChange):
        body (PlantChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StoredPlant
    """

    return sync_detailed(
        id=id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    body: PlantChange | PlantChange | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[Error | StoredPlant]:
    """Change a plant's name or tag.

     Needs a read-write token. The body is a JSON Merge Patch (RFC 7396): `name` and `tag`
    replace the plant's, with the rules of a create, and a `tag` of null removes it; what is
    left out stays. An `id` equal to the path's is ignored, any other is refused; other keys
    are ignored. The answer is the plant as it now is, with its new version in `ETag`; a change
    that changes nothing keeps the version and announces nothing. With `If-Match`, the change
    is made only if the plant is still at that version: of concurrent changes from one
    version, exactly one is made and the others get 412.

    Args:
        id (int):
        if_match (str | Unset):
        body (PlantChange):
        body (PlantChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | StoredPlant]
    """

    kwargs = _get_kwargs(
        id=id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    id: int,
    *,
    client: AuthenticatedClient | Client,
    body: PlantChange | PlantChange | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Error | StoredPlant | None:
    """Change a plant's name or tag.

     Needs a read-write token. The body is a JSON Merge Patch (RFC 7396): `name` and `tag`
    replace the plant's, with the rules of a create, and a `tag` of null removes it; what is
    left out stays. An `id` equal to the path's is ignored, any other is refused; other keys
    are ignored. The answer is the plant as it now is, with its new version in `ETag`; a change
    that changes nothing keeps the version and announces nothing. With `If-Match`, the change
    is made only if the plant is still at that version: of concurrent changes from one
    version, exactly one is made and the others get 412.

    Args:
        id (int):
        if_match (str | Unset):
        body (PlantChange):
        body (PlantChange):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | StoredPlant
    """

    return (
        await asyncio_detailed(
            id=id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
