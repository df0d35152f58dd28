"""The process configuration: CONTRACT.md defaults, and errors that name the variable and the
fix. Go twins: TestConfig* in go_reference/controller_unit_test.go, same names in CamelCase
(test_config_missing_kubeconfig has none: Go reads KUBECONFIG through ctrl.GetConfig)."""

from __future__ import annotations

import dataclasses
import socket
from datetime import timedelta
from pathlib import Path

import pytest

from python_operator.__main__ import ConfigError, addresses_free, config_from_env, request_timeout


@pytest.fixture
def kubeconfig(tmp_path: Path) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text("apiVersion: v1\nkind: Config\n")
    return str(path)


def test_config_defaults(kubeconfig: str) -> None:
    cfg = config_from_env({"KUBECONFIG": kubeconfig})
    assert cfg.watch_namespace == "modeldock-lab"
    assert cfg.leader_election is False
    assert cfg.leader_election_namespace == "modeldock-lab"
    assert (cfg.lease_duration, cfg.renew_deadline, cfg.retry_period) == (
        timedelta(seconds=15),
        timedelta(seconds=10),
        timedelta(seconds=2),
    )
    assert (cfg.metrics_bind_address, cfg.health_probe_bind_address) == (":8080", ":8081")
    assert cfg.max_concurrent_reconciles == 4
    assert cfg.request_timeout == 35.0
    assert request_timeout(cfg) == 35.0


def test_config_values_and_fractional_seconds(kubeconfig: str) -> None:
    cfg = config_from_env(
        {
            "KUBECONFIG": kubeconfig,
            "WATCH_NAMESPACE": "lab",
            "LEADER_ELECTION": "TRUE",
            "LEASE_DURATION": "1.5",
            "RENEW_DEADLINE": "1",
            "RETRY_PERIOD": "0.2",
            "METRICS_BIND_ADDRESS": "0",
            "HEALTH_PROBE_BIND_ADDRESS": "127.0.0.1:9000",
            "MAX_CONCURRENT_RECONCILES": "2",
            "REQUEST_TIMEOUT_SECONDS": "2.5",
        }
    )
    assert cfg.leader_election is True
    assert cfg.leader_election_namespace == "lab"
    assert cfg.lease_duration == timedelta(seconds=1.5)
    assert cfg.retry_period == timedelta(seconds=0.2)
    assert cfg.metrics_bind_address == "0"
    assert cfg.max_concurrent_reconciles == 2
    assert cfg.request_timeout == 2.5


def test_request_timeout_is_no_longer_than_the_watch_deadline(kubeconfig: str) -> None:
    """Without HTTP/2 a silent socket is given up after the watch deadline (idle + ping); a
    non-watch request waits no longer than that, nor than REQUEST_TIMEOUT_SECONDS."""
    env = {"KUBECONFIG": kubeconfig, "HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5"}
    env["HTTP2_PING_TIMEOUT_SECONDS"] = "3"
    assert request_timeout(config_from_env(env)) == 8.0
    assert request_timeout(config_from_env({**env, "REQUEST_TIMEOUT_SECONDS": "2"})) == 2.0


@pytest.mark.parametrize(
    "name, value, fix",
    [
        ("LEADER_ELECTION", "yes", "must be true or false"),
        ("LEASE_DURATION", "abc", "positive number of seconds"),
        ("RETRY_PERIOD", "-1", "positive number of seconds"),
        ("RENEW_DEADLINE", "nan", "positive number of seconds"),
        ("MAX_CONCURRENT_RECONCILES", "0", "at least 1"),
        ("MAX_CONCURRENT_RECONCILES", "two", "at least 1"),
        ("REQUEST_TIMEOUT_SECONDS", "0", "positive number of seconds"),
        ("METRICS_BIND_ADDRESS", "8080", "host:port"),
        ("HEALTH_PROBE_BIND_ADDRESS", "localhost:http", "host:port"),
    ],
)
def test_config_bad_value_names_variable_and_fix(
    kubeconfig: str, name: str, value: str, fix: str
) -> None:
    with pytest.raises(ConfigError) as err:
        config_from_env({"KUBECONFIG": kubeconfig, name: value})
    assert f"{name}={value!r}" in str(err.value)
    assert fix in str(err.value)


def test_config_missing_kubeconfig() -> None:
    with pytest.raises(ConfigError, match="KUBECONFIG is not set"):
        config_from_env({})
    with pytest.raises(ConfigError, match="no such file"):
        config_from_env({"KUBECONFIG": "/nonexistent/kubeconfig"})


def test_config_leader_election_timings_are_checked(kubeconfig: str) -> None:
    env = {"KUBECONFIG": kubeconfig, "LEADER_ELECTION": "true"}
    with pytest.raises(ConfigError, match="LEASE_DURATION=10s must be greater than RENEW_DEADLINE"):
        config_from_env({**env, "LEASE_DURATION": "10"})
    with pytest.raises(ConfigError, match=r"1\.2 x RETRY_PERIOD"):
        config_from_env({**env, "RETRY_PERIOD": "9"})
    # Without leader election the timings are not used, so not checked against each other.
    config_from_env({"KUBECONFIG": kubeconfig, "LEASE_DURATION": "10"})


def test_config_watch_deadline_from_client_gos_variables(kubeconfig: str) -> None:
    """HTTP2_READ_IDLE_TIMEOUT_SECONDS / HTTP2_PING_TIMEOUT_SECONDS (client-go reads them in the
    Go operator) become the Python operator's watch deadline; unset, its own defaults."""
    assert config_from_env({"KUBECONFIG": kubeconfig}).watch_silence is None
    cfg = config_from_env(
        {
            "KUBECONFIG": kubeconfig,
            "HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5",
            "HTTP2_PING_TIMEOUT_SECONDS": "3",
        }
    )
    assert cfg.watch_silence == (5.0, 3.0)
    only_idle = config_from_env({"KUBECONFIG": kubeconfig, "HTTP2_READ_IDLE_TIMEOUT_SECONDS": "7"})
    assert only_idle.watch_silence == (7.0, 15.0)  # client-go's ping default
    with pytest.raises(ConfigError, match="HTTP2_PING_TIMEOUT_SECONDS='x'"):
        config_from_env(
            {
                "KUBECONFIG": kubeconfig,
                "HTTP2_READ_IDLE_TIMEOUT_SECONDS": "5",
                "HTTP2_PING_TIMEOUT_SECONDS": "x",
            }
        )


def test_manager_gives_informers_the_watch_deadline() -> None:
    """Each watch asks the server to end it after the idle time and gives up a socket silent
    for idle + ping."""
    from unittest import mock

    from python_operator.runtime import client as client_
    from python_operator.runtime import manager

    mgr = manager.Manager(
        client=mock.Mock(spec=client_.Client), namespace="ns", watch_silence=(5.0, 3.0)
    )
    inf = mgr.informer_for(client_.Resource("apps", "v1", "deployments", "Deployment"))
    assert (inf._watch_timeout, inf._read_timeout_margin) == ((5, 5), 3.0)
    default = manager.Manager(client=mock.Mock(spec=client_.Client), namespace="ns")
    d_inf = default.informer_for(client_.Resource("apps", "v1", "deployments", "Deployment"))
    assert d_inf._watch_timeout == (30, 60)


def test_config_address_in_use_names_variable(kubeconfig: str) -> None:
    """A port another process holds is refused before any request, naming the variable that
    sets it and the fix (Go twin: TestConfigAddressInUseNamesVariable)."""
    held = socket.create_server(("127.0.0.1", 0))
    with held:
        address = f"127.0.0.1:{held.getsockname()[1]}"
        cfg = config_from_env(
            {
                "KUBECONFIG": kubeconfig,
                "METRICS_BIND_ADDRESS": address,
                "HEALTH_PROBE_BIND_ADDRESS": "127.0.0.1:0",
            }
        )
        with pytest.raises(ConfigError) as exc:
            addresses_free(cfg)
        text = str(exc.value)
        assert text.startswith(f"METRICS_BIND_ADDRESS={address} cannot be listened on (")
        assert text.endswith(
            "): must be a host:port no other process holds, e.g. "
            "METRICS_BIND_ADDRESS=127.0.0.1:18080, or 0 to turn it off"
        )
        addresses_free(dataclasses.replace(cfg, metrics_bind_address="0"))  # off: not tried
