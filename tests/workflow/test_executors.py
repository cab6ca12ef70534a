import httpx
import pytest

from workflow.executors import ExecutorRegistry, HttpExecutor, execute, http_executors
from workflow.model import DispatchStep, RunState
from workflow.pump import pump

EFFECT = DispatchStep("s", "s@0.1", "remote", {"input": {"n": 2}})


def transport(status, body):
    seen = []

    def handler(request):
        seen.append(request)
        return httpx.Response(status, content=body, headers={"content-type": "application/json"})

    return httpx.MockTransport(handler), seen


def test_http_executor_posts_the_payload_as_json_and_returns_the_reply():
    mock, seen = transport(200, b'{"doubled": 4}')
    registry = ExecutorRegistry({"remote": HttpExecutor("http://agents/x", transport=mock)})
    outcome = execute(registry, EFFECT, at=5.0)
    assert outcome.ok and outcome.output == {"doubled": 4} and outcome.at == 5.0
    assert seen[0].method == "POST" and seen[0].url == "http://agents/x"
    assert seen[0].read() == b'{"input":{"n":2}}'


@pytest.mark.parametrize(("status", "body", "error"), [
    (503, b"busy", "executor 'remote' failed: POST http://agents/x answered 503: busy"),
    (200, b"not json", "executor 'remote' failed: POST http://agents/x did not answer JSON"),
])
def test_http_executor_failures_fail_the_attempt(status, body, error):
    mock, _ = transport(status, body)
    registry = ExecutorRegistry({"remote": HttpExecutor("http://agents/x", transport=mock)})
    outcome = execute(registry, EFFECT, at=0.0)
    assert not outcome.ok and outcome.error == error


def test_unreachable_http_executor_fails_the_attempt():
    def refuse(request):
        raise httpx.ConnectError("connection refused")

    registry = ExecutorRegistry({"remote": HttpExecutor("http://agents/x",
                                                        transport=httpx.MockTransport(refuse))})
    outcome = execute(registry, EFFECT, at=0.0)
    assert outcome.error == ("executor 'remote' failed: POST http://agents/x failed: "
                             "connection refused")


def test_http_executors_from_configuration():
    registry = http_executors({"b": "http://b", "a": "http://a"})
    assert list(registry) == ["a", "b"]
    assert registry.get("a") == HttpExecutor("http://a")


def test_conditions_see_run_variables(make_engine):
    engine = make_engine("""
workflow: vars
steps:
  - {id: check, kind: Condition, expression: '{"var": "variables.mode"}'}
""")
    run = engine.start("vars", variables={"mode": "fast"})
    assert run.state is RunState.PENDING
    pump(engine)
    assert engine.run(run.run_id).output == {"check": {"result": "fast"}}
