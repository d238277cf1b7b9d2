"""The Tinker layer gives back what it provisioned: `close()` (or `with`) stops the session and
the model resources it created, the interpreter's exit does the same for a script that never
closes (Tinker's TrainingClient has no `close`), SIGTERM too, and resources the caller lent
with `model_resources_id` are left running. No model resource is left READY at the end."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from types import ModuleType
from typing import Any

from _tinker_helpers import (
    BASE_MODEL,
    READY,
    TrainingClients,
    model_resources_by_status,
    sessions_by_status,
)
from emulator_harness import LiveEmulator
from together import Together

SESSION_STOPPED = "TRAINING_SESSION_STATUS_STOPPED"
TEARDOWN_FAILED = "still allocated"  # the layer's log line when a stop at exit fails


def test_close_stops_the_session_and_the_resources_it_created(
    live_emulator: LiveEmulator, training_clients: TrainingClients
) -> None:
    client = training_clients.lora()
    assert list(model_resources_by_status(live_emulator).values()) == [READY]

    client.close()

    assert set(model_resources_by_status(live_emulator).values()) == {
        "MODEL_RESOURCES_STATUS_STOPPED"
    }
    assert set(sessions_by_status(live_emulator).values()) == {SESSION_STOPPED}


def test_with_block_stops_everything_even_on_error(
    tinker: ModuleType, live_emulator: LiveEmulator, service_client: Any
) -> None:
    try:
        with service_client.create_lora_training_client(base_model=BASE_MODEL, rank=8) as client:
            client.save_state("s").result()
            raise KeyError("the loop failed")
    except KeyError:
        pass
    assert READY not in model_resources_by_status(live_emulator).values()
    assert set(sessions_by_status(live_emulator).values()) == {SESSION_STOPPED}


def test_lent_resources_are_left_running(tinker: ModuleType, live_emulator: LiveEmulator) -> None:
    with Together(api_key=live_emulator.api_key, base_url=live_emulator.base_url) as sdk:
        lent = sdk.post_training.model_resources.create(base_model=BASE_MODEL, lora_enabled=True)
        service_client = tinker.ServiceClient(
            base_url=live_emulator.base_url,
            api_key=live_emulator.api_key,
            model_resources_id=lent.id,
        )
        with service_client.create_lora_training_client(base_model=BASE_MODEL, rank=8):
            pass
        assert model_resources_by_status(live_emulator) == {lent.id: READY}
        assert set(sessions_by_status(live_emulator).values()) == {SESSION_STOPPED}
        sdk.post_training.model_resources.stop(lent.id)


def run_script(live: LiveEmulator, code: str, **kwargs: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "TOGETHER_BASE_URL": live.base_url, "TOGETHER_API_KEY": live.api_key}
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_interpreter_exit_stops_what_a_script_never_closed(live_emulator: LiveEmulator) -> None:
    script = run_script(
        live_emulator,
        f"""
        import together.post_training.tinker as tinker
        client = tinker.ServiceClient().create_lora_training_client(base_model={BASE_MODEL!r})
        client.save_state("s").result()
        print("trained", flush=True)
        """,
    )
    stdout, stderr = script.communicate(timeout=120)
    assert script.returncode == 0, stderr
    assert "trained" in stdout
    assert TEARDOWN_FAILED not in stderr
    resources = model_resources_by_status(live_emulator)
    assert len(resources) == 1 and READY not in resources.values()
    assert set(sessions_by_status(live_emulator).values()) == {SESSION_STOPPED}


def test_sigterm_stops_what_the_script_holds(live_emulator: LiveEmulator) -> None:
    script = run_script(
        live_emulator,
        f"""
        import time
        import together.post_training.tinker as tinker
        client = tinker.ServiceClient().create_lora_training_client(base_model={BASE_MODEL!r})
        print("ready", flush=True)
        time.sleep(120)
        """,
    )
    assert script.stdout is not None
    for line in script.stdout:  # the layer prints its provisioning progress first
        if line.strip() == "ready":
            break
    assert list(model_resources_by_status(live_emulator).values()) == [READY]

    script.send_signal(signal.SIGTERM)
    _, stderr = script.communicate(timeout=60)

    assert script.returncode == 128 + signal.SIGTERM
    assert TEARDOWN_FAILED not in stderr
    assert READY not in model_resources_by_status(live_emulator).values()
    assert set(sessions_by_status(live_emulator).values()) == {SESSION_STOPPED}
