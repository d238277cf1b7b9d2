"""Model resources: creation, listing, stop, expiry, the session cap and the price estimate.

Lifecycle in the emulator: created READY (no queue, nothing to provision), then STOPPED by
`stop` or by expiry. `expires_at` is now + `inactive_timeout` at creation and after every
session created on the resources and every operation submitted to one of their sessions;
`extend-expiry` moves it later, never earlier. When the emulator clock passes `expires_at`,
the resources are STOPPED and their running sessions EXPIRED (queued operations then fail with
SESSION_NOT_ACTIVE). Expiry is applied when the next request arrives (`expire_idle`), which is
the first moment anyone could observe it.

The clock is the wall clock plus an offset per API key that tests move forward
(`POST /_emulator/clock`, `_clock.py`), so an hour of idleness takes no time to test.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from ..base import (
    CATALOG,
    GPU_TYPE,
    MODEL_RESOURCES_READY,
    SESSION_RUNNING,
    ApiError,
    EmulatorClock,
    PageRequest,
    empty_page,
    enum_value,
    found_or_404,
    invalid,
    page_of,
    spec_defaults,
)
from ..checking import validate_schema
from ..cost import GENERATOR_GPUS_PER_REPLICA, GPU, PRICE_CURRENCY, trainer_gpus
from ..state import Store

__all__ = [
    "DEFAULT_GENERATOR_REPLICAS",
    "DEFAULT_INACTIVE_TIMEOUT_S",
    "FULL_WEIGHT_SESSION_CAP",
    "LORA_SESSION_CAP",
    "ModelResources",
    "estimate_price_per_hour",
]

_CREATE_DEFAULTS = spec_defaults("ModelResourcesCreate")
# The spec's `x-server-default` of `ModelResourcesCreate.inactive_timeout` (seconds).
DEFAULT_INACTIVE_TIMEOUT_S = int(_CREATE_DEFAULTS["inactive_timeout"])
# The spec's `default` of `ModelResourcesCreate.lora_enabled`.
DEFAULT_LORA_ENABLED = bool(_CREATE_DEFAULTS["lora_enabled"])
# The spec's `x-server-default`s of `ComputeConfigRequest`: what an omitted `compute_config`
# (or field of it) gets, a generator replica among them (the SDK's Tinker layer relies on it).
DEFAULT_COMPUTE = spec_defaults("ComputeConfigRequest")
DEFAULT_GENERATOR_REPLICAS = int(DEFAULT_COMPUTE["num_generator_replicas"])
# Concurrent RUNNING sessions per model resources (docs.together.ai, multi-LoRA page).
LORA_SESSION_CAP = 5
FULL_WEIGHT_SESSION_CAP = 1
EXPIRY_GRANULARITY_S = 1.0
# The latest `expires_at` an RFC 3339 date-time can state: 9999-12-31T23:59:59Z.
LATEST_TIME = 253_402_300_799.0

READY = MODEL_RESOURCES_READY
STOPPED = enum_value("ModelResourcesStatus", "STOPPED")
ERROR = enum_value("ModelResourcesStatus", "ERROR")
SESSION_EXPIRED = enum_value("SessionStatus", "EXPIRED")


def rfc3339(t: float) -> str:
    t = min(t, LATEST_TIME)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t)) + f".{int(t % 1 * 1000):03d}Z"


def estimate_price_per_hour(lora_enabled: bool, num_generator_replicas: int) -> float:
    """The GPU model's list price (`_gpu_model.py`), stated in the spec's estimate-cost."""
    gpus = trainer_gpus(lora_enabled) + num_generator_replicas * GENERATOR_GPUS_PER_REPLICA
    return GPU.price_per_gpu_hour * gpus


def _validated_create_body(body: Any) -> dict[str, Any]:
    validate_schema("ModelResourcesCreate", body)
    assert isinstance(body, dict)
    if body["base_model"] not in CATALOG:
        raise invalid(
            "base_model",
            f"unknown base model {body['base_model']!r}; supported: {', '.join(CATALOG)}"
            " (GET /v1/rl/supported-models)",
        )
    model = CATALOG[body["base_model"]]
    if not body.get("lora_enabled", DEFAULT_LORA_ENABLED) and not model.supports_full_weight:
        raise invalid(
            "lora_enabled",
            f"{model.name} supports LoRA training only (its supported-models entry has no"
            " full-weight trainer config); use lora_enabled true",
        )
    return body


class ModelResources:
    """The model-resources endpoints and the rules sessions obey on them."""

    def __init__(self, store: Store, clock: EmulatorClock) -> None:
        self.store = store
        self.clock = clock

    # ------------------------------------------------------------------ endpoints
    def create(self, owner: str, body: Any) -> dict[str, Any]:
        body = _validated_create_body(body)
        compute = body.get("compute_config", {})
        timeout = body.get("inactive_timeout", DEFAULT_INACTIVE_TIMEOUT_S)
        now = self.clock.now(owner)
        resources: dict[str, Any] = {
            "id": f"mr-{uuid.uuid4()}",
            "base_model": body["base_model"],
            "compute_config": {
                "num_generator_replicas": compute.get(
                    "num_generator_replicas", DEFAULT_GENERATOR_REPLICAS
                ),
                "gpu_type": compute.get("gpu_type", DEFAULT_COMPUTE.get("gpu_type", GPU_TYPE)),
            },
            "created_at": rfc3339(now),
            "created_by": owner,
            "inactive_timeout": timeout,
            "lora_enabled": body.get("lora_enabled", DEFAULT_LORA_ENABLED),
            "optimizer_config": body.get("optimizer_config", {"adam": {}}),
            "status": READY,
            "status_details": {"queue_position": 0},
            "updated_at": rfc3339(now),
            "expires_at": rfc3339(now + timeout),
        }
        if "base_weights_ref" in body:
            resources["base_weights_ref"] = body["base_weights_ref"]
        self.store.insert_model_resources(owner, resources, now + timeout)
        return resources

    def get(self, owner: str, resources_id: str) -> dict[str, Any]:
        found = self.store.get_model_resources(owner, resources_id)
        return found_or_404(found, "model resources", "model_resources_id", resources_id)

    def list_page(
        self, owner: str, page: PageRequest, status: list[str] | None, created_by: str | None
    ) -> dict[str, Any]:
        if created_by not in (None, "me", owner):
            return empty_page(page)  # every resource a key can see was created by that key
        rows = self.store.list_model_resources(owner, page.after, status, page.limit + 1)
        return page_of(rows, page)

    def stop(self, owner: str, resources_id: str, force: bool) -> dict[str, Any]:
        """STOPPED; with running sessions a 409 naming them, unless `force` stops them too.
        Resources already STOPPED or ERROR: 400 naming the status (the official SDK expects
        it, catches it and reads the resources)."""
        with self.store.lock:
            resources = self.get(owner, resources_id)
            if resources["status"] in (STOPPED, ERROR):
                raise invalid(
                    "model_resources_id",
                    f"the model resources {resources_id} are already {resources['status']};"
                    " there is nothing to stop",
                )
            running = self._running_session_ids(owner, resources_id)
            if running and not force:
                raise ApiError(
                    409,
                    f"model_resources_id: training sessions still running on {resources_id}:"
                    f" {', '.join(running)}; stop them first, or pass force=true to stop them"
                    " with the resources",
                    type="conflict_error", param="model_resources_id",
                    code="sessions_still_running", headers={"x-should-retry": "false"},
                )  # fmt: skip
            for session_id in running:
                self.store.stop_session(owner, session_id)
            return self._set_stopped(resources)

    def extend_expiry(self, owner: str, resources_id: str, body: Any) -> dict[str, Any]:
        validate_schema("ModelResourcesExtendExpiry", body)
        assert isinstance(body, dict)
        with self.store.lock:
            resources = self.get(owner, resources_id)
            if resources["status"] != READY:
                raise invalid(
                    "model_resources_id",
                    f"the model resources are {resources['status']}; only"
                    f" {READY} resources can be kept up (create new ones)",
                )
            self._push_expiry(resources, self.clock.now(owner) + body["seconds"])
            return self.get(owner, resources_id)

    def estimate_cost(self, body: Any) -> dict[str, Any]:
        body = _validated_create_body(body)
        compute = body.get("compute_config", {})
        replicas = compute.get("num_generator_replicas", DEFAULT_GENERATOR_REPLICAS)
        lora_enabled = bool(body.get("lora_enabled", DEFAULT_LORA_ENABLED))
        price = estimate_price_per_hour(lora_enabled, replicas)
        return {"currency": PRICE_CURRENCY, "price_per_hour": price}

    # ------------------------------------------------------------------ rules for sessions
    def admit_session(self, owner: str, resources: dict[str, Any]) -> None:
        """Refuse a new session on `resources` unless READY (400) and under the cap (429).
        Call with `store.lock` held, together with the insert."""
        if resources["status"] != READY:
            raise invalid(
                "model_resources_id",
                f"the model resources are {resources['status']}; sessions need"
                f" {READY} resources (create new ones)",
            )
        cap = LORA_SESSION_CAP if resources["lora_enabled"] else FULL_WEIGHT_SESSION_CAP
        running = self._running_session_ids(owner, resources["id"])
        if len(running) >= cap:
            kind = "LoRA" if resources["lora_enabled"] else "full-weight"
            raise ApiError(
                429,
                f"model_resources_id: a {kind} model resource runs at most {cap} concurrent"
                f" training session{'s' if cap > 1 else ''}, and {resources['id']} already runs"
                f" {', '.join(running)}; stop one first",
                type="rate_limit_error", param="model_resources_id",
                code="session_cap_reached",
                headers={"retry-after": "1", "x-should-retry": "false"},
            )  # fmt: skip

    def touch(self, resources_id: str) -> None:
        """Activity on the resources: keep them up `inactive_timeout` seconds from now."""
        with self.store.lock:
            resources = self.store.get_model_resources(None, resources_id)
            if resources is not None and resources["status"] == READY:
                now = self.clock.now(resources["created_by"])
                self._push_expiry(resources, now + resources["inactive_timeout"])

    def expire_idle(self) -> int:
        """Stop every READY resource past its `expires_at`, its running sessions EXPIRED.
        Returns how many resources stopped."""
        stopped = 0
        with self.store.lock:
            for resources_id, expires_at in self.store.model_resources_due(self.clock.latest()):
                resources = self.store.get_model_resources(None, resources_id)
                if resources is None or expires_at > self.clock.now(resources["created_by"]):
                    continue  # due by another key's clock only
                stopped += 1
                owner = resources["created_by"]
                for session_id in self._running_session_ids(owner, resources["id"]):
                    self.store.stop_session(owner, session_id, status=SESSION_EXPIRED)
                self._set_stopped(resources)
        return stopped

    # ------------------------------------------------------------------ internals
    def _running_session_ids(self, owner: str, resources_id: str) -> list[str]:
        """Oldest first (creation order: messages that name them are reproducible)."""
        rows = self.store.list_sessions(owner, None, [SESSION_RUNNING], 1_000_000, resources_id)
        return [r.id for r in reversed(rows)]

    def _push_expiry(self, resources: dict[str, Any], until: float) -> None:
        until = min(until, LATEST_TIME)
        # Within a second is fresh enough: spares a durable write on every operation.
        body = dict(resources, expires_at=rfc3339(until))
        self.store.push_expiry(body, until, EXPIRY_GRANULARITY_S)

    def _set_stopped(self, resources: dict[str, Any]) -> dict[str, Any]:
        now = self.clock.now(resources["created_by"])
        body = dict(resources, status=STOPPED, updated_at=rfc3339(now))
        body.pop("expires_at", None)
        self.store.retire_model_resources(body)
        return body
