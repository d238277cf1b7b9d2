"""The checks of the payload protocol: a large body goes through upload-url and PUT, an offloaded
result is fetched through download-url."""

from __future__ import annotations

import orjson

from . import _spec
from ._answer_checks import answered_ok
from ._types import CallRecord, Scenario

__all__ = ["large_body_upload", "offloaded_download"]


def large_body_upload(scenario: Scenario, records: list[CallRecord]) -> str | None:
    threshold = _spec.upload_threshold_bytes()
    for record in records:
        body = record.call.body or {}
        size = len(orjson.dumps(body))
        if size <= threshold:
            return f"the kit's body is {size} B, not over {threshold} B: a broken scenario"
        big = [a for a in record.own() if a.body_size > threshold]
        if big:
            return f"the operation was POSTed inline: {big[0].body_size} B over {threshold} B"
        puts = [a for a in record.attempts if a.method == "PUT" and a.body is not None]
        largest = max(body, key=lambda k: len(orjson.dumps(body[k])))
        for put in puts:
            try:
                uploaded = orjson.loads(put.body or b"")
            except orjson.JSONDecodeError:
                continue
            if (
                isinstance(uploaded, dict)
                and uploaded.get(largest) == body[largest]
                and all(uploaded[k] == body.get(k) for k in uploaded if k in body)
            ):
                return None
        return f"no presigned PUT carried the body's `{largest}` ({len(puts)} PUTs)"
    return None


def offloaded_download(scenario: Scenario, records: list[CallRecord]) -> str | None:
    download = _spec.route("createPayloadDownloadUrl").operation_id
    for record in records:
        if not record.on(download):
            return "the offloaded result was never asked for (no download-url request)"
        outside = [a for a in record.attempts if a.method == "GET" and a.operation_id is None]
        if not outside:
            return "the presigned download URL was never fetched"
    return answered_ok(scenario, records)
